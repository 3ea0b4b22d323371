/**
 * Shared setup of the client's integration tests: an emulator on 127.0.0.1, direct calls to its
 * /_emulator hooks (made with raw undici, never through the client under test), clients whose
 * logs are captured, and the token-leak check over everything captured.
 */
import { inspect } from "node:util";
import { expect } from "vitest";
import { createClient, type ClientOptions, type StackwrightClient } from "../../../src/client";
import { startTestEmulator, type EmulatorHooks } from "../../helpers/emulator";

/** The demo user of the default seed (Stack Manager on acme-web). */
export const EMAIL = "ops@example.com";
export const TOKEN = "demo-token";
/** Release Manager, Stack Manager of acme-intranet (whose prod is locked in the seed). */
export const RELEASE_EMAIL = "release@example.com";
export const RELEASE_TOKEN = "release-token";
export const STACK = "acme-web";

/** Every error and log line produced by the tests of one file, serialized every way we know. */
const captured: string[] = [];

/** Records an error in every serialization a user might log, then returns it. */
export function capture<T>(error: T): T {
  captured.push(String(error), JSON.stringify(error) ?? "", inspect(error, { depth: 10, showHidden: true }));
  if (error instanceof Error) captured.push(error.stack ?? "", error.message);
  return error;
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

/** Asserts that no captured text contains a secret (the token, or the Basic header built from it). */
export function expectNoSecretsCaptured(secrets: readonly string[]): void {
  expect(captured.length).toBeGreaterThan(0);
  const forms = secrets.flatMap((s) => [
    s,
    Buffer.from(`${EMAIL}:${s}`).toString("base64"),
    Buffer.from(`${RELEASE_EMAIL}:${s}`).toString("base64"),
  ]);
  for (const text of captured) {
    for (const secret of forms)
      expect(text.includes(secret), `captured text leaks a secret: ${text.slice(0, 200)}`).toBe(false);
  }
}

/** `METHOD path` (query dropped) of every logged request, in order: compact for exact assertions. */
export async function calls(hooks: EmulatorHooks): Promise<string[]> {
  return (await hooks.requests()).map((r) => `${r.method} ${r.path.split("?")[0] ?? r.path}`);
}

/** A started emulator with its hooks. */
export interface TestWorld {
  url: string;
  hooks: EmulatorHooks;
  close(): Promise<void>;
  /** A client for the demo user with fast retries and polls, logging into the capture. */
  client(overrides?: Partial<ClientOptions>): StackwrightClient;
}

/** Starts an emulator (instant speed unless given) and returns the world. */
export async function startWorld(speed: "instant" | "fast" | "realistic" = "instant"): Promise<TestWorld> {
  const emulator = await startTestEmulator({ speed });
  const hooks = emulator.hooks;
  const clients: StackwrightClient[] = [];
  return {
    url: emulator.url,
    hooks,
    client(overrides = {}) {
      const client = createClient({
        baseUrl: emulator.url,
        email: EMAIL,
        token: TOKEN,
        headersTimeoutMs: 5_000,
        logger: (event) => captured.push(JSON.stringify(event)),
        ...overrides,
        retry: { baseDelayMs: 1, maxDelayMs: 5, ...overrides.retry },
        poll: { firstPollMs: 1, intervalMs: 5, maxIntervalMs: 20, timeoutMs: 20_000, ...overrides.poll },
      });
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.all(clients.map((c) => c.close()));
      await emulator.close();
    },
  };
}

/** A unique marker for one create. */
export function newMarker(): string {
  return `sw:${Math.random().toString(16).slice(2, 10)}${Date.now().toString(16)}`;
}
