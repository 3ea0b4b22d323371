import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { request } from "undici";
import { ANSWERS, type Answers, type SeedInput, type Speed, startEmulator } from "../../src/emulator";
import type { LoggedRequest } from "../../src/emulator/faults";
import type { TransferRecord as StoredTransfer } from "../../src/emulator/model";
import type { SiteBehaviour } from "../../src/emulator/sites";

/** One entry of GET /_emulator/requests, as the emulator logs it. */
export type { LoggedRequest };
/** One transfer as the emulator stores it (GET /_emulator/project/{stack}/transfers). */
export type { TransferRecord as StoredTransfer } from "../../src/emulator/model";

/** The seed every emulator test starts from unless it passes its own. */
export const TEST_SEED_PATH = resolve(__dirname, "../fixtures/emulator-seed.yaml");

/**
 * The test seed's YAML (or `yaml`, a variant of it) with ops@example.com a Stack Manager of
 * acme-intranet too, so that one operator runs a whole fleet of both API stacks.
 */
export function seedWithOpsManagingEveryStack(yaml: string = readFileSync(TEST_SEED_PATH, "utf8")): string {
  const members = "      - { email: release@example.com, role: Stack Manager }\n";
  const changed = yaml.replace(
    members,
    `${members}      - { email: ops@example.com, role: Stack Manager }\n`,
  );
  if (changed === yaml)
    throw new Error("the seed has no release@example.com Stack Manager line to add ops@example.com after");
  return changed;
}

/** Users of the test seed: email and token by role on `acme-web`. */
export const TEST_USERS = {
  stackManager: { email: "ops@example.com", token: "demo-token" },
  releaseManager: { email: "release@example.com", token: "release-token" },
  deployer: { email: "deployer@example.com", token: "deployer-token" },
  teamMember: { email: "dev@example.com", token: "dev-token" },
  outsider: { email: "outsider@example.com", token: "outsider-token" },
} as const;

/** `Basic <base64(email:token)>`. */
/** The settings of a `stackwright` run against `url` as the emulator's seeded operator. */
export function demoCredentials(url: string): Record<string, string> {
  return {
    STACKWRIGHT_API_URL: url,
    STACKWRIGHT_EMAIL: "ops@example.com",
    STACKWRIGHT_API_TOKEN: "demo-token",
  };
}

/**
 * Puts the emulator's seeded operator in this process's environment (what a provider or program
 * process reads) and returns what puts the environment back as it was. Test files share worker
 * processes (vitest.config.mts: no per-file isolation), so a file that sets them must restore them.
 */
export function useDemoCredentials(url: string): () => void {
  const set = demoCredentials(url);
  const before = Object.fromEntries(Object.keys(set).map((key) => [key, process.env[key]]));
  Object.assign(process.env, set);
  return () => {
    for (const [key, value] of Object.entries(before)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  };
}

export function basicAuth(email: string, token: string): string {
  return `Basic ${Buffer.from(`${email}:${token}`).toString("base64")}`;
}

/** Body of POST /_emulator/faults. */
export interface FaultInput {
  method?: string;
  path: string;
  kind: "status" | "latency" | "drop";
  status?: 429 | 500 | 502 | 503 | 504;
  retry_after?: number;
  latency_ms?: number;
  count: number;
  phase?: "before" | "after";
}

/** The /_emulator/ test hooks as functions. */
export interface EmulatorHooks {
  reset(): Promise<void>;
  requests(): Promise<LoggedRequest[]>;
  clearRequests(): Promise<void>;
  fault(fault: FaultInput): Promise<string>;
  clearFaults(): Promise<void>;
  approve(stack: string, env: string, id: string | number): Promise<unknown>;
  /** Rejects in the dashboard; `reason` becomes the deployment's `rejected_reason`. */
  reject(stack: string, env: string, id: string | number, reason?: string): Promise<unknown>;
  /** The next deployment that runs in the environment fails, with `reason` in its log. */
  nextOutcome(stack: string, env: string, outcome?: "fail", reason?: string): Promise<void>;
  /** The next transfer (snapshot or restore) on the environment fails, with `reason` in its log. */
  nextTransferFailure(stack: string, env: string, reason?: string): Promise<void>;
  /** The stack's next git fetch ends Failed. */
  nextFetchFailure(stack: string): Promise<void>;
  /** The next deployment that runs in the environment stays Deploying for `ms`. */
  stallNext(stack: string, env: string, ms: number): Promise<void>;
  /** The next snapshot or restore transfer that starts in the environment stays `n/a` for `ms`. */
  stallNextTransfer(stack: string, env: string, ms: number): Promise<void>;
  /** The environment's lock as the emulator holds it. */
  lock(stack: string, env: string): Promise<{ locked: boolean; lock_message: string }>;
  /** Every transfer of the stack as the emulator stores it. */
  transfers(stack: string): Promise<StoredTransfer[]>;
  /** A deployment made by hand in the dashboard, from `ref` (a branch or tag) when given. */
  handDeploy(
    stack: string,
    env: string,
    sha: string,
    from?: { ref_type: "branch" | "tag"; ref: string },
  ): Promise<unknown>;
  /** How the environment's site answers from its next request on (one build's, or every build's). */
  site(stack: string, env: string, behaviour: SiteBehaviour): Promise<void>;
  /** The environment's site answers as the build it runs again. */
  clearSite(stack: string, env: string): Promise<void>;
  /** The build the site serves and how many requests it answered. */
  siteRequests(stack: string, env: string): Promise<{ build_sha: string; requests: number }>;
}

export interface TestEmulator {
  url: string;
  close(): Promise<void>;
  hooks: EmulatorHooks;
}

async function hook(base: string, method: "GET" | "POST" | "DELETE", path: string, body?: unknown) {
  const res = await request(`${base}/_emulator${path}`, {
    // A connection per hook: a kept-alive one that the server closed while a test blocked the
    // event loop (a spawnSync of the CLI) would fail the next hook with "other side closed".
    reset: true,
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.body.text();
  if (res.statusCode >= 400)
    throw new Error(`emulator hook ${method} ${path} answered ${res.statusCode}: ${text}`);
  return text === "" ? undefined : (JSON.parse(text) as unknown);
}

/** Builds hook functions for an emulator at `url`. */
export function emulatorHooks(url: string): EmulatorHooks {
  const env = (stack: string, e: string) =>
    `/project/${encodeURIComponent(stack)}/environment/${encodeURIComponent(e)}`;
  return {
    reset: async () => void (await hook(url, "POST", "/reset")),
    requests: async () => ((await hook(url, "GET", "/requests")) as { requests: LoggedRequest[] }).requests,
    clearRequests: async () => void (await hook(url, "DELETE", "/requests")),
    fault: async (fault) => ((await hook(url, "POST", "/faults", fault)) as { id: string }).id,
    clearFaults: async () => void (await hook(url, "DELETE", "/faults")),
    approve: (stack, e, id) => hook(url, "POST", `${env(stack, e)}/deploys/${id}/approve`),
    reject: (stack, e, id, reason) =>
      hook(
        url,
        "POST",
        `${env(stack, e)}/deploys/${id}/reject`,
        reason === undefined ? undefined : { reason },
      ),
    nextOutcome: async (stack, e, outcome = "fail", reason) =>
      void (await hook(url, "POST", `${env(stack, e)}/next-outcome`, {
        outcome,
        ...(reason === undefined ? {} : { reason }),
      })),
    nextTransferFailure: async (stack, e, reason) =>
      void (await hook(url, "POST", `${env(stack, e)}/next-transfer-outcome`, {
        outcome: "fail",
        ...(reason === undefined ? {} : { reason }),
      })),
    nextFetchFailure: async (stack) =>
      void (await hook(url, "POST", `/project/${encodeURIComponent(stack)}/next-fetch-outcome`, {
        outcome: "fail",
      })),
    site: async (stack, e, behaviour) => void (await hook(url, "POST", `${env(stack, e)}/site`, behaviour)),
    clearSite: async (stack, e) => void (await hook(url, "DELETE", `${env(stack, e)}/site`)),
    siteRequests: async (stack, e) =>
      (await hook(url, "GET", `${env(stack, e)}/site`)) as { build_sha: string; requests: number },
    handDeploy: (stack, e, sha, from) => hook(url, "POST", `${env(stack, e)}/hand-deploy`, { sha, ...from }),
    stallNext: async (stack, e, ms) =>
      void (await hook(url, "POST", `${env(stack, e)}/next-outcome`, { outcome: "stall", ms })),
    stallNextTransfer: async (stack, e, ms) =>
      void (await hook(url, "POST", `${env(stack, e)}/next-transfer-outcome`, { outcome: "stall", ms })),
    lock: async (stack, e) =>
      (await hook(url, "GET", `${env(stack, e)}/lock`)) as { locked: boolean; lock_message: string },
    transfers: async (stack) =>
      (
        (await hook(url, "GET", `/project/${encodeURIComponent(stack)}/transfers`)) as {
          transfers: StoredTransfer[];
        }
      ).transfers,
  };
}

/** Environment variable that makes every test emulator answer in the given shapes (the `platform-answers` project). */
export const TEST_ANSWERS_ENV = "STACKWRIGHT_TEST_ANSWERS";

/**
 * The answers a test emulator gives unless the test asks: `documented`, or what
 * {@link TEST_ANSWERS_ENV} names (vitest.config.mts runs the client integration tests and a
 * focused end-to-end file again under `platform`).
 */
export function defaultTestAnswers(): Answers {
  const named = process.env[TEST_ANSWERS_ENV];
  const known = ANSWERS.find((a) => a === named);
  if (named !== undefined && named !== "" && known === undefined) {
    throw new Error(`${TEST_ANSWERS_ENV} must be one of ${ANSWERS.join(", ")}, got '${named}'`);
  }
  return known ?? "documented";
}

/**
 * Starts an emulator on 127.0.0.1 (free port) for one test file: test seed, `instant` speed, and
 * strict (unknown request-body members are refused, so junk our client sends is caught; pass
 * `strict: false` for the platform's tolerance). Call `close()` in afterAll; `hooks.reset()` in
 * beforeEach gives every test a fresh world.
 */
export async function startTestEmulator(
  opts: {
    seed?: SeedInput | string;
    speed?: Speed;
    stateFile?: string;
    strict?: boolean;
    publicUrl?: string;
    /** Deployment answers: the spec's shapes or the platform's (default: {@link defaultTestAnswers}). */
    answers?: Answers;
  } = {},
): Promise<TestEmulator> {
  const emulator = await startEmulator({
    answers: opts.answers ?? defaultTestAnswers(),
    seed: opts.seed ?? TEST_SEED_PATH,
    speed: opts.speed ?? "instant",
    strict: opts.strict ?? true,
    ...(opts.publicUrl === undefined ? {} : { publicUrl: opts.publicUrl }),
    ...(opts.stateFile === undefined ? {} : { stateFile: opts.stateFile }),
  });
  return { url: emulator.url, close: emulator.close, hooks: emulatorHooks(emulator.url) };
}

/** A `stackwright emulator` child process started from the sources. */
export interface EmulatorProcess {
  url: string;
  port: number;
  child: import("node:child_process").ChildProcess;
  /** Resolves with the exit code (or the signal name) once the process has ended. */
  exited: Promise<number | string>;
}

/**
 * How long a child emulator may take to print its listening line. From the sources with an empty
 * transpile cache it needs about 3 CPU-seconds; under a loaded two-core CI run, with other tests
 * starting their own at the same moment, a start took longer than 20 s. The bound is for a child
 * that will never listen, not a measure of speed.
 */
export const EMULATOR_START_BOUND_MS = 60_000;

/** A test that starts child emulators one after the other: room for two bounded starts and its work. */
export const TWO_EMULATOR_STARTS_MS = 2 * EMULATOR_START_BOUND_MS + 30_000;

/**
 * Spawns `stackwright emulator ARGS` from the TypeScript sources (no build needed; about 3 s to
 * start) or, with `fromDist`, from the compiled `dist/` (`npm run build` first; under 1 s), and
 * waits up to {@link EMULATOR_START_BOUND_MS} for its first stdout line, `listening on
 * http://127.0.0.1:PORT`. It runs with `--strict` unless `strict: false`.
 */
export async function spawnEmulator(
  args: string[],
  opts: { fromDist?: boolean; strict?: boolean; answers?: Answers } = {},
): Promise<EmulatorProcess> {
  const { spawn } = await import("node:child_process");
  const entry =
    opts.fromDist === true
      ? [resolve(__dirname, "../../bin/stackwright.js"), "emulator"]
      : [resolve(__dirname, "run-ts.cjs"), resolve(__dirname, "emulator-main.ts")];
  // Strict unless asked otherwise: our own clients must not send members the API does not define.
  const strict = opts.strict === false || args.includes("--strict") ? [] : ["--strict"];
  const answers = opts.answers === undefined ? [] : ["--answers", opts.answers];
  const child = spawn(process.execPath, [...entry, ...strict, ...answers, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | string>((done) =>
    child.on("exit", (code, signal) => done(code ?? signal ?? "unknown")),
  );
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const firstLine = await new Promise<string>((done, fail) => {
    let out = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      fail(
        new Error(
          `emulator did not print its listening line within ${EMULATOR_START_BOUND_MS} ms ` +
            `(stdout so far: ${JSON.stringify(out)}; stderr: ${JSON.stringify(stderr)})`,
        ),
      );
    }, EMULATOR_START_BOUND_MS);
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const nl = out.indexOf("\n");
      if (nl >= 0) {
        clearTimeout(timer);
        done(out.slice(0, nl));
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      fail(new Error(`emulator exited (${code}) before listening; stderr: ${stderr}`));
    });
  });
  const match = /^listening on (http:\/\/127\.0\.0\.1:(\d+))$/.exec(firstLine);
  if (match?.[1] === undefined || match[2] === undefined) {
    child.kill("SIGKILL");
    throw new Error(`unexpected first line from the emulator: ${firstLine}`);
  }
  return { url: match[1], port: Number(match[2]), child, exited };
}
