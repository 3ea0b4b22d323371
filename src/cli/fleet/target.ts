/**
 * A target (`dev`, `production`): a Pulumi stack that holds no resources and whose
 * `Pulumi.<target>.yaml` carries the API settings (URL, e-mail, the token as a secret) for all of
 * its per-file stacks `<target>.<API stack>`. Every engine run of a per-file stack reads that one
 * file (`--config-file`), so no site has a config file of its own.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { CommandError, LocalWorkspace, type StackSummary } from "@pulumi/pulumi/automation";
import { z } from "zod";
import { perFileStackName, targetProblem } from "../../config";
import { engineEnv, pulumiCommand } from "../engine/env";
import { hostedProject, sharedProviderHost, startProgramHost } from "../../program";
import { EngineStack, type EngineHosts } from "../engine/run";
import { CliError, UsageError } from "../kit/exit-codes";
import { createStackIfAbsent } from "../state/new-stack";
import { openStateStore } from "../state/store";
import { lockTargetOf, projectNameOf } from "../state/target";

export interface Target {
  readonly name: string;
  readonly projectDir: string;
  /** `<projectDir>/Pulumi.<target>.yaml`; undefined for `--stack`, a stack with its own file. */
  readonly configFile: string | undefined;
  /** Environment of the engine and everything it spawns. */
  readonly env: Record<string, string>;
  readonly workspace: LocalWorkspace;
  /** The stacks of the backend when the target was opened, by name. */
  readonly stacks: ReadonlyMap<string, StackSummary>;
  /**
   * When the project's program is Stackwright's: each engine run's program runs in this process
   * (src/program/host.ts) and its dynamic providers in one process shared by the runs
   * (src/program/shared-provider.ts). None: the engine starts a language host and a plugin.
   */
  readonly hosts: EngineHosts | undefined;
}

/** The hosts of the project's engine runs, when its program is this very program. */
function engineHosts(projectDir: string): EngineHosts | undefined {
  const project = hostedProject(projectDir);
  if (project === undefined) return undefined;
  return {
    program: (env) => startProgramHost({ rootDirectory: projectDir, env }),
    providers: sharedProviderHost(project),
  };
}

/** A directory that is not a Pulumi project: the tool cannot run there (exit 4). */
function projectProblem(dir: string): void {
  if (!fs.existsSync(path.join(dir, "Pulumi.yaml"))) {
    throw new CliError(
      "environment",
      `${dir} has no Pulumi.yaml: pass the Stackwright project directory with --project`,
    );
  }
}

/** Opens the target: its settings file must exist; lists the backend's stacks once. */
export async function openTarget(
  projectDir: string,
  name: string,
  extraEnv: Record<string, string> = {},
): Promise<Target> {
  const problem = targetProblem(name);
  if (problem !== undefined) throw new UsageError(`--target: ${problem}`);
  const dir = path.resolve(projectDir);
  projectProblem(dir);
  const configFile = path.join(dir, `Pulumi.${name}.yaml`);
  if (!fs.existsSync(configFile)) {
    throw new CliError(
      "usage",
      `target '${name}' has no settings file ${configFile}: create it once and commit it (README, "Targets and per-file stacks")`,
    );
  }
  return { ...(await openWorkspace(dir, extraEnv)), name, configFile };
}

/** The project's workspace with the engine environment, and the backend's stacks listed once. */
export async function openWorkspace(
  projectDir: string,
  extraEnv: Record<string, string> = {},
): Promise<Omit<Target, "name" | "configFile">> {
  const dir = path.resolve(projectDir);
  projectProblem(dir);
  const env = { ...engineEnv({ projectDir: dir }), ...extraEnv };
  // The program of every engine run is hosted in this process and speaks gRPC to its engine.
  process.env["no_grpc_proxy"] = env["no_grpc_proxy"];
  const backend = env["PULUMI_BACKEND_URL"] ?? "";
  // The local file backend refuses a directory that does not exist yet.
  if (backend.startsWith("file://")) fs.mkdirSync(new URL(backend).pathname, { recursive: true });
  const workspace = await LocalWorkspace.create({
    workDir: dir,
    envVars: env,
    pulumiCommand: await pulumiCommand(dir),
  });
  let listed: StackSummary[];
  try {
    listed = await workspace.listStacks();
  } catch (cause) {
    throw new CliError("environment", `cannot list the stacks of the state backend ${backend}`, { cause });
  }
  return {
    projectDir: dir,
    env,
    workspace,
    stacks: new Map(listed.map((s) => [s.name, s])),
    hosts: engineHosts(dir),
  };
}

/** The per-file stack's name for `apiStack`, or a usage error naming the API stack. */
export function stackNameOf(target: Target, apiStack: string): string {
  const named = perFileStackName(target.name, apiStack);
  if (!named.ok) throw new UsageError(named.problem);
  return named.name;
}

/**
 * Runs `use` on the per-file stack, created when the backend did not list it (an empty
 * checkpoint written directly, not a `pulumi stack init` process: ../state/new-stack.ts). A
 * listed stack is used as it is: nothing is selected (every engine run names its stack). Pulumi
 * may write a `Pulumi.<stack>.yaml` holding only a passphrase salt during a run; that file is
 * removed afterwards, since every run passes the target's file instead. A stack run with its own
 * file (`--stack`) keeps it.
 */
export async function withPerFileStack<T>(
  target: Target,
  stackName: string,
  use: (stack: EngineStack) => Promise<T>,
): Promise<T> {
  const ownFile = path.join(target.projectDir, `Pulumi.${stackName}.yaml`);
  const stray = target.configFile !== undefined && !fs.existsSync(ownFile);
  try {
    if (!target.stacks.has(stackName)) {
      // Another runner sharing the backend may have made it since the listing: then it is kept.
      await createStackIfAbsent(lockTargetOf(target.projectDir, stackName, target.env));
    }
    return await use(new EngineStack(target.workspace, stackName, target.hosts));
  } finally {
    if (stray) fs.rmSync(ownFile, { force: true });
  }
}

/** What `pulumi config --json --show-secrets` prints: each key with its value. */
const ConfigListing = z.record(z.string(), z.object({ value: z.unknown().optional() }));

/**
 * The target's settings (secrets decrypted) from its file `Pulumi.<target>.yaml`, whether or not
 * the backend holds a stack named like the target: per-file stacks never make one. Pulumi reads
 * the file, with the target's secrets provider as the file names it (`encryptionsalt` of the
 * passphrase, `secretsprovider`/`encryptedkey` of a KMS), for a stack of that name in a scratch
 * backend of its own, so nothing is read from or written to the real backend. With `--stack`
 * (its own file) the stack's settings when the backend lists it.
 */
export async function readTargetSettings(target: Target): Promise<Record<string, string>> {
  if (target.configFile === undefined) {
    if (!target.stacks.has(target.name)) return {};
    return valuesOf(await target.workspace.getAllConfig(target.name));
  }
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-settings-"));
  try {
    const backend = pathToFileURL(scratch).href;
    await createStackIfAbsent({
      store: openStateStore(backend),
      project: projectNameOf(target.projectDir),
      stack: target.name,
    });
    const args = [
      "config",
      "--show-secrets",
      "--json",
      "--stack",
      target.name,
      "--config-file",
      target.configFile,
    ];
    const env = { ...target.env, ...target.workspace.envVars, PULUMI_BACKEND_URL: backend };
    let stdout: string;
    try {
      stdout = (await target.workspace.pulumiCommand.run(args, target.projectDir, env)).stdout;
    } catch (error) {
      const said = error instanceof CommandError ? errorLine(error.message) : undefined;
      throw new UsageError(
        `cannot read the settings of target '${target.name}' from ${target.configFile}` +
          `${said === undefined ? "" : `: ${said}`}; check PULUMI_CONFIG_PASSPHRASE (or the secrets provider the file names)`,
      );
    }
    return valuesOf(ConfigListing.parse(JSON.parse(stdout)));
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

function valuesOf(listing: Readonly<Record<string, { value?: unknown }>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, { value }] of Object.entries(listing)) {
    if (value !== undefined) out[key] = typeof value === "string" ? value : JSON.stringify(value);
  }
  return out;
}

/** The engine's `error: ...` line of a failed command, without the secret-free rest. */
function errorLine(message: string): string | undefined {
  return message
    .split("\n")
    .map((line) => line.trim())
    .find((line) => line.startsWith("error:"))
    ?.replace(/^error:\s*/, "");
}
