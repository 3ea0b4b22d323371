/**
 * The set-up most test files share, as vitest fixtures: declared once here, used by name, torn down
 * by vitest at the end of the file (or the test) whether the tests passed or not.
 *
 * ```ts
 * const test = fixtures({ seed: SEED, project: { stacksConfig: { "acme-web.yaml": FILE } } });
 * test.beforeAll(async ({ stackwright }) => expect((await stackwright(["up"])).status).toBe(0));
 * test("says nothing changed", async ({ stackwright }) => { ... });
 * ```
 *
 * - `emulator`: an emulator in a process of its own, built from dist/ (`npm run build` first), on a
 *   free port of 127.0.0.1, strict, `instant`, with its hooks and the seeded operator's settings
 *   (`env`). Its own process, so that a command run to its end synchronously in a process of
 *   its own (`runStackwright`) is answered meanwhile. Killed at the end of the file.
 * - `emulatorInProcess`: the same emulator in the test's own process (no process to start), for a
 *   file that runs the CLI without blocking (`stackwright`, `runInProject`, `startStackwright`,
 *   `runToEndAsync`). Closed at the
 *   end of the file.
 * - `client`: a client of `emulatorInProcess` as its seeded operator (the stack manager), closed at
 *   the end of the file.
 * - `project`: a scratch copy of the project (test/helpers/scratch-project.ts), its secrets sealed
 *   with the run's KMS key unless `project.secrets` says `passphrase` (test/helpers/run-kms.ts),
 *   removed at the end of the file.
 * - `freshProject`: a scratch copy of the project (with the file's program and stacks-config/)
 *   for one test, removed after it: for a case that must start from a state of its own.
 * - `stackwright`: runs `stackwright ARGS` in `project` against `emulator`, to its end, in the
 *   test's process (`runInProject` of test/helpers/in-process.ts: the engine under it is real).
 * - `providersWorld`: the providers' world of test/helpers/providers-e2e.ts (an emulator, a
 *   scratch project of the providers' fixture program, one stack with the API settings), as
 *   `providersWorld` of the options names it, for the file.
 * - `receivers`: starts a webhook receiver (test/helpers/receivers.ts) with the options given;
 *   every one it started is closed at the end of the file.
 * - `s3`: a real S3-compatible server (moto, test/helpers/s3-server.ts) with one bucket, for the
 *   file; this process's AWS credential variables are its own meanwhile (the SDK's default chain,
 *   which the tests' own reads of the bucket use) and given back at the end of the file.
 * - `fileScratchDir`: an empty directory for the whole file (what its `test.beforeAll` makes),
 *   removed at the end of the file.
 * - `scratchDir`: an empty directory of its own for one test, removed after it.
 * - `gitRepository`: a git repository on `main` with its author in its own config (what the code
 *   under test commits as) and one commit of `a.yaml` (`old`), for one test, removed after it.
 *
 * Every fixture starts only when a test or a `test.beforeAll` names it: a file that never names
 * `emulator` starts none. A file adds fixtures of its own with `.extend` (its proxy, its lanes);
 * one that needs no other fixture still names one (`{ fixtureOptions: _none }`), because vitest
 * reads a fixture's dependencies from the pattern of its first parameter and the lint refuses an
 * empty one.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test as base } from "vitest";
import { createClient, type StackwrightClient } from "../../src/client";
import type { Answers } from "../../src/emulator";
import {
  defaultTestAnswers,
  demoCredentials,
  emulatorHooks,
  spawnEmulator,
  startTestEmulator,
  TEST_USERS,
  type EmulatorHooks,
  type EmulatorProcess,
  type TestEmulator,
} from "./emulator";
import { startProvidersWorld, type ProvidersWorld, type ProvidersWorldOptions } from "./providers-e2e";
import { startReceiver, type Receiver } from "./receivers";
import { startS3Server, type TestS3Server } from "./s3-server";
import { scratchProject, type ProjectOptions } from "./run-kms";
import type { ScratchProject } from "./scratch-project";
import { runInProject } from "./in-process";
import type { Finished } from "./stackwright-process";

/** What a file's fixtures start from; everything has the default of the helpers it wraps. */
export interface FixtureOptions {
  /** The emulator's seed: a file's path, or `{ yaml }` (written to a scratch file). The test seed by default. */
  readonly seed?: string | { readonly yaml: string };
  /** More arguments of `stackwright emulator` (`--state-file`, `--public-url`, ...). */
  readonly emulatorArgs?: readonly string[];
  /** The answers' shapes; what the vitest project asks (`STACKWRIGHT_TEST_ANSWERS`) by default. */
  readonly answers?: Answers;
  /** `false` for the platform's tolerance of unknown request members. */
  readonly strict?: boolean;
  /** The scratch project's program, stacks-config/ and secrets (the run's KMS key by default). */
  readonly project?: ProjectOptions;
  /** The providers' world's stack, its user (the stack manager by default) and its options. */
  readonly providersWorld?: {
    readonly stack: string;
    readonly user?: { readonly email: string; readonly token: string };
    readonly options?: ProvidersWorldOptions;
  };
  /** Settings of the S3 server's process (e.g. `S3_IGNORE_SUBDOMAIN_BUCKETNAME`). */
  readonly s3ServerEnv?: Readonly<Record<string, string>>;
}

/** The options of {@link startReceiver}. */
export type ReceiverOptions = Parameters<typeof startReceiver>[0];

/** An emulator process with its hooks and the settings of a run against it as its seeded operator. */
export interface RunningEmulator extends EmulatorProcess {
  readonly hooks: EmulatorHooks;
  /** STACKWRIGHT_API_URL, STACKWRIGHT_EMAIL and STACKWRIGHT_API_TOKEN of the seeded operator. */
  readonly env: Record<string, string>;
}

/** The emulator in the test's own process, with the seeded operator's settings. */
export type InProcessEmulator = TestEmulator & { readonly env: Record<string, string> };

/** Runs the CLI in the file's project against its emulator; `env` adds to (or overrides) both. */
export type Stackwright = (args: readonly string[], env?: Record<string, string>) => Promise<Finished>;

/** A scratch git repository on `main`. */
export interface GitRepository {
  readonly dir: string;
  /** `git ARGS` in the repository, its stdout trimmed; throws with git's stderr when it fails. */
  git(...args: string[]): string;
  /** Writes `relative` (making its directories) and commits it. */
  commit(relative: string, text: string, message: string): void;
}

/** Whom a scratch repository's commits are by (its own config: the code under test commits too). */
export const GIT_AUTHOR = { name: "Rel Eng", email: "rel@example.com" } as const;

/** Makes an empty directory of its own; the returned function removes it. */
export function scratchDirectory(prefix = "stackwright-test-"): { dir: string; remove: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** The seed file of `options` (a scratch file for `{ yaml }`), and what removes a scratch one. */
function seedFile(options: FixtureOptions): { seed: string | undefined; remove: () => void } {
  if (typeof options.seed !== "object") return { seed: options.seed, remove: () => undefined };
  const { dir, remove } = scratchDirectory("stackwright-seed-");
  const seed = path.join(dir, "seed.yaml");
  fs.writeFileSync(seed, options.seed.yaml);
  return { seed, remove };
}

/** Starts the emulator process of `options` (its scratch seed removed with it). */
export async function startEmulatorProcess(options: FixtureOptions = {}): Promise<{
  emulator: RunningEmulator;
  stop: () => Promise<void>;
}> {
  const { seed, remove: removeSeed } = seedFile(options);
  const args = [
    "--port",
    "0",
    "--speed",
    "instant",
    ...(seed === undefined ? [] : ["--seed", seed]),
    ...(options.emulatorArgs ?? []),
  ];
  const child = await spawnEmulator(args, {
    fromDist: true,
    answers: options.answers ?? defaultTestAnswers(),
    ...(options.strict === undefined ? {} : { strict: options.strict }),
  });
  const emulator = { ...child, hooks: emulatorHooks(child.url), env: demoCredentials(child.url) };
  return {
    emulator,
    stop: async () => {
      // A test may have stopped it already (to see what the CLI does without an API).
      if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill("SIGTERM");
      await child.exited;
      removeSeed();
    },
  };
}

/**
 * Sets `values` in this process's environment; the returned function gives back what was there
 * (a file's fixtures end before the next file of the same worker starts).
 */
export function setProcessEnv(values: Readonly<Record<string, string>>): () => void {
  const before = Object.keys(values).map((name) => [name, process.env[name]] as const);
  Object.assign(process.env, values);
  return () => {
    for (const [name, value] of before) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}

/** Makes a git repository in `dir` on `main`, {@link GIT_AUTHOR} in its config, with `first` committed (file → text). */
export function createGitRepository(
  dir: string,
  first: Readonly<Record<string, string>> = { "a.yaml": "old\n" },
): GitRepository {
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  const commit = (relative: string, text: string, message: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, relative)), { recursive: true });
    fs.writeFileSync(path.join(dir, relative), text);
    git("add", "--", relative);
    git("commit", "-q", "-m", message);
  };
  git("init", "-q", "-b", "main");
  git("config", "user.name", GIT_AUTHOR.name);
  git("config", "user.email", GIT_AUTHOR.email);
  for (const [relative, text] of Object.entries(first)) {
    fs.mkdirSync(path.dirname(path.join(dir, relative)), { recursive: true });
    fs.writeFileSync(path.join(dir, relative), text);
  }
  git("add", "-A");
  git("commit", "-q", "--allow-empty", "-m", "first");
  return { dir, git, commit };
}

/** The test API of a file whose fixtures start from `options` (see the top of this file). */
export function fixtures(options: FixtureOptions = {}) {
  return base
    .extend("fixtureOptions", { scope: "file" }, options)
    .extend("emulator", { scope: "file" }, async ({ fixtureOptions }, { onCleanup }) => {
      const { emulator, stop } = await startEmulatorProcess(fixtureOptions);
      onCleanup(stop);
      return emulator;
    })
    .extend(
      "emulatorInProcess",
      { scope: "file" },
      async ({ fixtureOptions }, { onCleanup }): Promise<InProcessEmulator> => {
        const { seed, remove } = seedFile(fixtureOptions);
        const emulator = await startTestEmulator({
          ...(seed === undefined ? {} : { seed }),
          ...(fixtureOptions.answers === undefined ? {} : { answers: fixtureOptions.answers }),
          ...(fixtureOptions.strict === undefined ? {} : { strict: fixtureOptions.strict }),
        });
        onCleanup(async () => {
          await emulator.close();
          remove();
        });
        return { ...emulator, env: demoCredentials(emulator.url) };
      },
    )
    .extend("client", { scope: "file" }, ({ emulatorInProcess }, { onCleanup }): StackwrightClient => {
      const client = createClient({ baseUrl: emulatorInProcess.url, ...TEST_USERS.stackManager });
      onCleanup(() => client.close());
      return client;
    })
    .extend("project", { scope: "file" }, ({ fixtureOptions }, { onCleanup }): ScratchProject => {
      const project = scratchProject(fixtureOptions.project);
      onCleanup(() => project.remove());
      return project;
    })
    .extend(
      "stackwright",
      { scope: "file" },
      ({ project, emulator }): Stackwright =>
        (args, env = {}) =>
          runInProject(project.dir, args, { ...project.env, ...emulator.env, ...env }),
    )
    .extend(
      "providersWorld",
      { scope: "file" },
      async ({ fixtureOptions }, { onCleanup }): Promise<ProvidersWorld> => {
        const world = fixtureOptions.providersWorld;
        if (world === undefined)
          throw new Error("fixtures({ providersWorld: { stack } }) names the world's stack");
        const started = await startProvidersWorld(world.stack, world.user, world.options);
        onCleanup(() => started.close());
        return started;
      },
    )
    .extend(
      "receivers",
      { scope: "file" },
      ({ fixtureOptions: _none }, { onCleanup }): ((options?: ReceiverOptions) => Promise<Receiver>) => {
        const started: Receiver[] = [];
        onCleanup(async () => void (await Promise.all(started.map((r) => r.close()))));
        return async (options) => {
          const receiver = await startReceiver(options);
          started.push(receiver);
          return receiver;
        };
      },
    )
    .extend("s3", { scope: "file" }, async ({ fixtureOptions }, { onCleanup }): Promise<TestS3Server> => {
      const server = await startS3Server("stackwright-state", { ...fixtureOptions.s3ServerEnv });
      const giveBack = setProcessEnv(server.env);
      onCleanup(async () => {
        giveBack();
        await server.close();
      });
      return server;
    })
    .extend("fileScratchDir", { scope: "file" }, ({ fixtureOptions: _none }, { onCleanup }): string => {
      const { dir, remove } = scratchDirectory("stackwright-test-file-");
      onCleanup(remove);
      return dir;
    })
    .extend("freshProject", ({ fixtureOptions }, { onCleanup }): ScratchProject => {
      const project = scratchProject(fixtureOptions.project);
      onCleanup(() => project.remove());
      return project;
    })
    .extend("scratchDir", ({ task }, { onCleanup }): string => {
      const { dir, remove } = scratchDirectory(`stackwright-test-${task.id}-`);
      onCleanup(remove);
      return dir;
    })
    .extend("gitRepository", ({ task }, { onCleanup }): GitRepository => {
      const { dir, remove } = scratchDirectory(`stackwright-git-${task.id}-`);
      onCleanup(remove);
      return createGitRepository(dir);
    });
}
