/**
 * The one place that decides how the Pulumi engine runs for Stackwright: every entry point (the
 * `stackwright` command, `npm start`, the end-to-end tests, the benchmarks) builds its environment
 * here, so that all of them use the same CLI, the same Node and the same local state.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import type { PulumiCommand } from "@pulumi/pulumi/automation";
// One function, not semver's index (src/config/check-schema.ts says why).
import parseSemVer from "semver/functions/parse";
import type { SemVer } from "semver";
import { z } from "zod";
import { CliError } from "./errors";
import { commandLine } from "./invocation";

/** The environment a command was given, as the process gives it (never written to). */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * The tool root: where Stackwright's own files are (bin/, dist/, scripts/, `.tools/bin` with the
 * Pulumi CLI), from this file compiled (dist/src/project → ../../..) or run from its source
 * (src/project → ../..). In this repository it is also the project directory; installed,
 * it is `node_modules/stackwright` of an ops repository (its real path: Node loads modules by it).
 */
export function toolRoot(): string {
  const compiled = path.extname(__filename) === ".js";
  return path.resolve(__dirname, ...(compiled ? ["..", "..", ".."] : ["..", ".."]));
}

/**
 * The project directory (the ops repository: Pulumi.yaml, Pulumi.<target>.yaml, stacks-config/)
 * when no `--project` names one: the first directory holding a `Pulumi.yaml`, walking up from
 * `from` (the working directory), as git and pulumi find theirs.
 */
export function defaultProjectDir(from: string = process.cwd()): string {
  const start = path.resolve(from);
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, "Pulumi.yaml"))) return dir;
    if (path.dirname(dir) === dir) break;
  }
  // As for a --project directory without one (workspace.ts): the tool cannot run here.
  throw new CliError(
    "environment",
    `No Pulumi.yaml in ${start} or any directory above it: run this in your ops repository (make one with '${commandLine("init")}'), or pass --project DIR.`,
  );
}

export interface EngineEnvOptions {
  /** The project directory (holds Pulumi.yaml, stacks-config/, .stackwright/). */
  readonly projectDir: string;
  /** Where Stackwright's files and `.tools/bin` are; defaults to {@link toolRoot}. */
  readonly toolRoot?: string;
  /**
   * Where stack state lives. When absent, `PULUMI_BACKEND_URL` of the base environment wins, then
   * `<projectDir>/.stackwright/state`.
   */
  readonly stateDir?: string;
  /** The environment to extend: a command's `env` (a bench's or a test's own). */
  readonly baseEnv: Env;
}

/**
 * Returns the environment variables for the Pulumi CLI and everything it spawns: the local file
 * backend, no update check, no plugin download, `PULUMI_HOME` inside the project, loopback gRPC
 * kept off proxies ({@link loopbackGrpcBypass}), and first on PATH the tool root's `.tools/bin`
 * (the CLI, the language host, the dynamic-provider plugin), then the project's and the tool
 * root's `node_modules/.bin` (so that they run on the project's Node when it has one, as npm
 * scripts do). No secrets provider: those depend on the target, and only `secretsEnv`
 * (passphrase.ts) decides them.
 */
export function engineEnv(options: EngineEnvOptions): Record<string, string> {
  const base = options.baseEnv;
  const projectDir = path.resolve(options.projectDir);
  const tools = path.resolve(options.toolRoot ?? toolRoot());
  const backendUrl =
    options.stateDir !== undefined
      ? `file://${path.resolve(options.stateDir)}`
      : (base["PULUMI_BACKEND_URL"] ?? `file://${path.join(projectDir, ".stackwright", "state")}`);
  const pathEntries = [
    path.join(tools, ".tools", "bin"),
    path.join(projectDir, "node_modules", ".bin"),
    path.join(tools, "node_modules", ".bin"),
    ...(base["PATH"] ?? "").split(path.delimiter).filter((p) => p !== ""),
  ];
  return {
    PATH: [...new Set(pathEntries)].join(path.delimiter),
    PULUMI_BACKEND_URL: backendUrl,
    PULUMI_HOME: path.join(projectDir, ".stackwright", "pulumi-home"),
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    no_grpc_proxy: loopbackGrpcBypass(base),
    // S3-compatible stores often send no checksum; the AWS SDK then warns on every read. Validate
    // only where the S3 API requires it (what the SDK did before 2025), unless the caller chose.
    ...(backendUrl.startsWith("s3://")
      ? {
          AWS_REQUEST_CHECKSUM_CALCULATION: base["AWS_REQUEST_CHECKSUM_CALCULATION"] ?? "when_required",
          AWS_RESPONSE_CHECKSUM_VALIDATION: base["AWS_RESPONSE_CHECKSUM_VALIDATION"] ?? "when_required",
        }
      : {}),
  };
}

/**
 * Creates the directory of a `file://` backend: Pulumi refuses one that does not exist yet, so
 * whatever may create a stack (an engine run, `stackwright env` before `pulumi stack init`) makes
 * it first.
 */
export function ensureStateDir(env: Readonly<Record<string, string | undefined>>): void {
  const backend = env["PULUMI_BACKEND_URL"] ?? "";
  if (backend.startsWith("file://")) fs.mkdirSync(new URL(backend).pathname, { recursive: true });
}

/**
 * `no_grpc_proxy` that keeps loopback out of any proxy. The engine, the program and the provider
 * host speak gRPC to each other on 127.0.0.1; gRPC for Node (`@grpc/grpc-js`, in the SDK and in
 * our hosts) sends even that through `https_proxy`/`http_proxy` unless `no_grpc_proxy` (or
 * `no_proxy`) names it, and a company proxy cannot reach this machine's loopback. Go's gRPC
 * (the engine) never proxies loopback. Whatever the caller listed is kept.
 */
export function loopbackGrpcBypass(base: Readonly<Record<string, string | undefined>>): string {
  const listed = (base["no_grpc_proxy"] ?? base["no_proxy"] ?? base["NO_PROXY"] ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  return [...new Set([...listed, "127.0.0.1", "localhost", "::1"])].join(",");
}

/**
 * The SDK's Automation API, loaded by the first call, not at the top of a module: with it come
 * gRPC and most of the SDK, about 0.2 CPU-seconds, which the commands and the runs that never
 * start an engine do not pay.
 */
export function automation(): typeof import("@pulumi/pulumi/automation") {
  return createRequire(__filename)("@pulumi/pulumi/automation") as typeof import("@pulumi/pulumi/automation");
}

/**
 * The CLI in the tool root's `.tools/bin`, put there by `npm run toolchain` in this repository.
 * Installed as a package, a missing CLI is provided once by the package's own
 * scripts/ensure-toolchain.sh (a usable `pulumi` on PATH, the cached build, or a build); in a
 * checkout it is an error that says which command provides it. The SDK's `PulumiCommand.get`
 * asks the binary its version (`pulumi version`: 0.14 CPU-seconds, once per `stackwright`
 * process); when this binary answered before ({@link pulumiVersionOf}'s record), the command is
 * made with that answer instead, as `get` would make it.
 */
export async function pulumiCommand(projectDir: string, tools: string = toolRoot()): Promise<PulumiCommand> {
  const root = path.join(tools, ".tools");
  const { PulumiCommand } = automation();
  const known = rememberedVersion(projectDir, tools);
  if (known !== undefined) return commandOf(PulumiCommand, root, known);
  const installed = isInstalledPackage(tools);
  if (installed && !fs.existsSync(path.join(root, "bin", "pulumi"))) await provideToolchain(tools);
  let command: PulumiCommand;
  try {
    command = await PulumiCommand.get({ root, skipVersionCheck: true });
  } catch (cause) {
    throw new CliError(
      "environment",
      installed
        ? `The Pulumi CLI is not in ${root}/bin and ${toolchainScript(tools)} could not provide it (its lines above say why).`
        : `The Pulumi CLI is not in ${root}/bin. Run 'npm run toolchain' in ${tools} (it builds or links it).`,
      { cause },
    );
  }
  rememberVersion(projectDir, tools, command.version?.toString());
  return command;
}

/**
 * The path of the CLI that {@link pulumiCommand} runs, for the callers that run it themselves
 * (`pulumi config` for a target's settings): once the binary's version is remembered, without
 * loading the SDK's automation module, which was about 0.2 CPU-seconds of every `status`, `drift`,
 * `history` and `logs` (a fresh Node: 0.20 -> 0.41 CPU-seconds with it, medians of 15).
 */
export async function pulumiBinary(projectDir: string, tools: string = toolRoot()): Promise<string> {
  if (rememberedVersion(projectDir, tools) !== undefined) return cliUnder(path.join(tools, ".tools"));
  return (await pulumiCommand(projectDir, tools)).command;
}

/**
 * True when the tool root is a package installed in a `node_modules` (by its real path: a linked
 * checkout, `npm link` or a `file:` dependency, stays a checkout, whose developer runs
 * `npm run toolchain`).
 */
export function isInstalledPackage(tools: string): boolean {
  let real: string;
  try {
    real = fs.realpathSync(tools);
  } catch {
    return false;
  }
  return real.split(path.sep).includes("node_modules");
}

function toolchainScript(tools: string): string {
  return path.join(tools, "scripts", "ensure-toolchain.sh");
}

/**
 * Runs the package's scripts/ensure-toolchain.sh, its lines on stderr: it links a usable CLI or
 * the cached build at once, and builds one (minutes) only when there is neither.
 */
async function provideToolchain(tools: string): Promise<void> {
  const script = toolchainScript(tools);
  if (!fs.existsSync(script)) return;
  process.stderr.write(
    `stackwright: no Pulumi CLI in ${path.join(tools, ".tools", "bin")} yet; providing it with ${script}\n`,
  );
  await new Promise<void>((resolve) => {
    // Its output is progress for the user, never a command's result: all of it on stderr.
    const child = spawn("bash", [script], { cwd: tools, stdio: ["ignore", 2, 2] });
    child.once("error", () => resolve());
    child.once("close", () => resolve());
  });
}

/**
 * The SDK's `PulumiCommand` for the binary under `root` whose version is known: what
 * `PulumiCommand.get({ root })` returns (its constructor takes the command's path and the parsed
 * version; its typings declare it private, so it is reached through this one cast, and
 * test/unit/project/engine-env.test.ts compares the two).
 */
export function commandOf(sdkClass: typeof PulumiCommand, root: string, version: string): PulumiCommand {
  const construct = sdkClass as unknown as new (command: string, version: SemVer | null) => PulumiCommand;
  return new construct(cliUnder(root), parseSemVer(version));
}

/** The CLI's path under the tool root's `.tools` (where scripts/ensure-toolchain.sh links it). */
function cliUnder(root: string): string {
  return path.resolve(root, "bin", "pulumi");
}

/**
 * The version of the tool root's Pulumi CLI as the last `pulumi version` said it, remembered with
 * the identity of the binary that answered (its real path, size and modification time), so that
 * an engine run needs no process to learn it and `drift` can compute the inputs of an `up`
 * (fingerprint.ts) without starting one. It is kept beside the CLI's link
 * (`.tools/pulumi-cli.json`): every project the tool serves runs that binary, so one answer
 * serves them all (a CI runner's fresh clone, each of the tests' scratch projects). Where the
 * tool root cannot be written (a read-only global install) it is kept with the project's local
 * state (`.stackwright/pulumi-cli.json`).
 */
const RememberedVersion = z.strictObject({
  binary: z.string(),
  size: z.number(),
  mtimeMs: z.number(),
  version: z.string(),
});
type RememberedVersion = z.infer<typeof RememberedVersion>;

/** Where the answer is kept, in the order they are read and tried for writing. */
function versionFiles(projectDir: string, tools: string): string[] {
  return [
    path.join(path.resolve(tools), ".tools", "pulumi-cli.json"),
    path.join(path.resolve(projectDir), ".stackwright", "pulumi-cli.json"),
  ];
}

/** The binary the tool root's `.tools/bin/pulumi` runs, as a version's key; undefined when there is none. */
function binaryIdentity(tools: string): Omit<RememberedVersion, "version"> | undefined {
  try {
    const binary = fs.realpathSync(cliUnder(path.join(tools, ".tools")));
    const stat = fs.statSync(binary);
    return { binary, size: stat.size, mtimeMs: stat.mtimeMs };
  } catch {
    return undefined;
  }
}

function rememberVersion(projectDir: string, tools: string, version: string | undefined): void {
  const identity = binaryIdentity(tools);
  if (version === undefined || identity === undefined) return;
  for (const file of versionFiles(projectDir, tools)) {
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      // Whole or not at all: another process may read it meanwhile.
      const temporary = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(temporary, `${JSON.stringify({ ...identity, version })}\n`);
      fs.renameSync(temporary, file);
      return;
    } catch {
      // Not writable here: the next place, else `drift` asks the CLI itself.
    }
  }
}

/** The version this binary said before, if it is still the binary `.tools/bin/pulumi` runs. */
function rememberedVersion(projectDir: string, tools: string): string | undefined {
  const identity = binaryIdentity(tools);
  if (identity === undefined) return undefined;
  for (const file of versionFiles(projectDir, tools)) {
    try {
      const remembered = RememberedVersion.parse(JSON.parse(fs.readFileSync(file, "utf8")));
      const same =
        remembered.binary === identity.binary &&
        remembered.size === identity.size &&
        remembered.mtimeMs === identity.mtimeMs &&
        parseSemVer(remembered.version) !== null;
      if (same) return remembered.version;
    } catch {
      // none yet, or not one this version reads: the next place, else ask the CLI
    }
  }
  return undefined;
}

/**
 * The Pulumi CLI's version (as `workspace.pulumiVersion` gives it to an engine run): remembered
 * when the same binary answered before, else asked with one `pulumi version` (not an engine).
 */
export async function pulumiVersionOf(projectDir: string, tools: string = toolRoot()): Promise<string> {
  return (
    rememberedVersion(projectDir, tools) ??
    (await pulumiCommand(projectDir, tools)).version?.toString() ??
    "(unknown)"
  );
}
