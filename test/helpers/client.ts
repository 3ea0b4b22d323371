/**
 * Clients for tests. Every client made here records its log events, and `capture`/`failure`
 * record errors, into the run's records directory (see `test/global-setup.ts`), whose teardown
 * fails the run if any of it holds a token. The credentials a client is given are recorded too,
 * so a token a test makes up is searched for like the seeds' tokens.
 */
import { randomUUID } from "node:crypto";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { inspect } from "node:util";
import { afterAll, beforeAll, beforeEach, expect, inject } from "vitest";
import {
  createClient,
  type ClientLogger,
  type ClientOptions,
  type StackwrightClient,
} from "../../src/client";
import { RECORDS_KEY, type ClientRecord } from "../global-setup";
import { TEST_USERS, startTestEmulator, type EmulatorHooks } from "./emulator";

/** The stack the demo user manages in the test seed. */
export const STACK = "acme-web";

/**
 * How long a `latency` fault holds an answer that a client with a short `headersTimeoutMs` must
 * give up on first. undici runs its headers timeout on its coarse timers, which fire on the
 * second tick of about half a second after the bound, and ticks run late on a loaded machine:
 * an answer held 1 s won that race now and then (a red CI run), one held this long does not.
 */
export const HELD_PAST_TIMEOUT_MS = 10_000;

/** This file's records file, made on first use. */
let recordsFile: string | undefined;

function write(record: ClientRecord): void {
  if (recordsFile === undefined) {
    const dir = inject(RECORDS_KEY);
    if (typeof dir !== "string") {
      throw new Error(
        `test/helpers/client.ts records into a directory that test/global-setup.ts makes, but it did not ` +
          `run; run the tests through vitest.config.mts (npx vitest run ...), which names it in globalSetup`,
      );
    }
    recordsFile = join(dir, `${process.pid}-${randomUUID()}.jsonl`);
  }
  appendFileSync(recordsFile, `${JSON.stringify(record)}\n`);
}

/** `f()`, or the name of what it threw: a value that cannot be serialized one way is still recorded the others. */
function attempt(f: () => string | undefined): string {
  try {
    return f() ?? "";
  } catch (error) {
    return `(not serializable: ${error instanceof Error ? error.name : typeof error})`;
  }
}

/**
 * Records an error or log event in every serialization a user might print (String,
 * JSON.stringify, util.inspect, and the stack), then returns it.
 */
export function capture<T>(value: T): T {
  const { testPath, currentTestName } = expect.getState();
  const texts = [
    attempt(() => String(value)),
    attempt(() => JSON.stringify(value)),
    attempt(() => inspect(value, { depth: 10, showHidden: true })),
  ];
  if (value instanceof Error) texts.push(value.stack ?? "");
  for (const text of texts) {
    write({
      kind: "text",
      file: testPath ?? "(unknown file)",
      test: currentTestName ?? "(outside a test)",
      text,
    });
  }
  return value;
}

/** Awaits a promise that must reject; captures and returns the error. */
export async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return capture(error);
  }
  throw new Error("expected the call to fail, but it succeeded");
}

/** A logger that captures every event, then hands it to `next`. */
function recording(next: ClientLogger | undefined): ClientLogger {
  return (event) => {
    capture(event);
    next?.(event);
  };
}

/** Adds a test's own token to those the suite-wide check looks for (the seeds' are always in). */
export function recordCredentials(email: string, token: string): void {
  write({ kind: "secret", email, token });
}

/**
 * `createClient` for tests: its credentials and every log event are recorded for the suite-wide
 * token check; the caller's logger, if any, still receives each event.
 */
export function testClient(options: ClientOptions): StackwrightClient {
  recordCredentials(options.email, options.token);
  return createClient({ ...options, logger: recording(options.logger) });
}

/** `METHOD path` (query dropped) of every logged request, in order: compact for exact assertions. */
export async function calls(hooks: EmulatorHooks): Promise<string[]> {
  return (await hooks.requests()).map((r) => `${r.method} ${r.path.split("?")[0] ?? r.path}`);
}

/** A unique marker for one create. */
export function newMarker(): string {
  return `sw:${Math.random().toString(16).slice(2, 10)}${Date.now().toString(16)}`;
}

/** An emulator for one test file, with clients on it. */
export interface ClientWorld {
  readonly url: string;
  readonly hooks: EmulatorHooks;
  /** The file's main client: the demo user, fast retries and polls, plus the file's options. */
  readonly client: StackwrightClient;
  /** Another client: the demo user, fast retries and polls, plus `overrides`; closed with the world. */
  newClient(overrides?: Partial<ClientOptions>): StackwrightClient;
}

/**
 * Starts an emulator (test seed) before the file's tests and closes it and its clients after
 * them; resets the emulator before each test. `main` are the main client's options.
 */
export function useClientWorld(
  main: Partial<ClientOptions> = {},
  speed: "instant" | "fast" | "realistic" = "instant",
): ClientWorld {
  let emulator: Awaited<ReturnType<typeof startTestEmulator>> | undefined;
  let mainClient: StackwrightClient | undefined;
  const clients: StackwrightClient[] = [];
  const started = () => {
    if (emulator === undefined) throw new Error("the client world is used before its beforeAll ran");
    return emulator;
  };

  const world: ClientWorld = {
    get url() {
      return started().url;
    },
    get hooks() {
      return started().hooks;
    },
    get client() {
      started();
      mainClient ??= world.newClient(main);
      return mainClient;
    },
    newClient(overrides = {}) {
      const client = testClient({
        baseUrl: started().url,
        ...TEST_USERS.stackManager,
        headersTimeoutMs: 5_000,
        ...overrides,
        retry: { baseDelayMs: 1, maxDelayMs: 5, ...overrides.retry },
        poll: { firstPollMs: 1, intervalMs: 5, maxIntervalMs: 20, timeoutMs: 20_000, ...overrides.poll },
      });
      clients.push(client);
      return client;
    },
  };

  beforeAll(async () => {
    emulator = await startTestEmulator({ speed });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await emulator?.close();
  });
  beforeEach(async () => started().hooks.reset());
  return world;
}
