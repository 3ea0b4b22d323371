/**
 * A target (`dev`, `production`): a Pulumi stack that holds no resources and whose
 * `Pulumi.<target>.yaml` carries the API settings (URL, e-mail, the token as a secret) for all of
 * its per-file stacks `<target>.<API stack>`. Every engine run of a per-file stack reads that one
 * file (`--config-file`), so no site has a config file of its own.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { LocalWorkspace, StackSummary } from "@pulumi/pulumi/automation";
import { perFileStackName } from "../../config";
import {
  automation,
  engineEnv,
  ensureStateDir,
  pulumiCommand,
  pulumiVersionOf,
} from "../../project/engine-env";
import { stackSecretsEnv } from "../../project/passphrase";
import { hostedProject, sharedProviderHost, startProgramHost } from "../../program";
import { EngineStack, type EngineHosts } from "../engine/run";
import type { Env } from "../kit/context";
import { CliError } from "../kit/exit-codes";
import { commandLine } from "../../project/invocation";
import {
  BackendUrlError,
  createStackIfAbsent,
  hasCheckpoint,
  openStateStore,
  readCheckpoint,
  removeTornAttributes,
  type StateStore,
} from "../../state-backend";
import { lockTargetOf, projectNameOf } from "../../project/lock-target";
import {
  credentialsUnsetBy,
  settingsFileOf,
  targetApiSettings,
  targetNameOf,
  targetSecretsEnv,
} from "../../project/target-settings";

export interface Target {
  readonly name: string;
  readonly projectDir: string;
  /** `<projectDir>/Pulumi.<target>.yaml`; undefined for `--stack`, a stack with its own file. */
  readonly configFile: string | undefined;
  /** What the engine's environment adds to {@link given}, for the engine and everything it spawns. */
  readonly env: Record<string, string>;
  /**
   * The environment the command was given (its context's `env`): the engine's environment is
   * built from it as a value, and the proxies, credentials and backend settings are read from it.
   */
  readonly given: Env;
  /**
   * The engine's workspace, made by the first call (it loads the SDK's Automation API, which a
   * run whose stacks all take the no-change shortcut never needs) with {@link env} as it is then;
   * every call brings it what was added to {@link env} since (the windows' override).
   */
  readonly workspace: () => Promise<LocalWorkspace>;
  /** The Pulumi CLI's version, as the workspace hands it to an engine run. */
  readonly pulumiVersion: string;
  /** The stacks of the backend, asked one by one (never all listed unless the backend needs it). */
  readonly stacks: BackendStacks;
  /**
   * When the project's program is Stackwright's: each engine run's program runs in this process
   * (src/program/host.ts) and its dynamic providers in one process shared by the runs
   * (src/program/shared-provider.ts). None: the engine starts a language host and a plugin.
   */
  readonly hosts: EngineHosts | undefined;
}

/**
 * The backend's stacks as a run needs them: whether one exists, and how many resources it holds.
 * A run of one file asks about that one stack, so its cost does not grow with the fleet: on the
 * file and S3 backends each answer reads that stack's checkpoint alone. `pulumi stack ls` (which
 * reads every checkpoint of the backend) runs only for a backend we cannot read directly, or a
 * checkpoint we cannot parse (zstd), and then once per run.
 */
export interface BackendStacks {
  has(stackName: string): Promise<boolean>;
  /** Resources of its latest deployment; 0 for a stack that does not exist. */
  resourceCount(stackName: string): Promise<number>;
}

function backendStacks(
  dir: string,
  env: Record<string, string>,
  given: Env,
  workspace: () => Promise<LocalWorkspace>,
): BackendStacks {
  const backend = env["PULUMI_BACKEND_URL"] ?? "";
  let listing: Promise<ReadonlyMap<string, StackSummary>> | undefined;
  const listed = () =>
    (listing ??= workspace()
      .then((ws) => ws.listStacks())
      .then(
        (all) => new Map(all.map((s) => [s.name, s])),
        (cause: unknown) => {
          throw new CliError("environment", `cannot list the stacks of the state backend ${backend}`, {
            cause,
          });
        },
      ));
  let store: StateStore | undefined;
  try {
    // `env` holds only what the engine's environment adds; the proxies are the given ones.
    store = openStateStore(backend, { ...given, ...env });
  } catch (error) {
    if (!(error instanceof BackendUrlError)) throw error;
  }
  if (store === undefined) {
    return {
      has: async (name) => (await listed()).has(name),
      resourceCount: async (name) => (await listed()).get(name)?.resourceCount ?? 0,
    };
  }
  const project = projectNameOf(dir);
  const reading = <T>(stackName: string, read: () => Promise<T>): Promise<T> =>
    read().catch((cause: unknown) => {
      throw new CliError(
        "environment",
        `cannot read stack ${stackName} of the state backend ${store.description}`,
        { cause },
      );
    });
  const has = (stackName: string) => reading(stackName, () => hasCheckpoint(store, project, stackName));
  return {
    has,
    resourceCount: async (stackName) => {
      const checkpoint = await reading(stackName, () => readCheckpoint(store, project, stackName));
      if (checkpoint !== undefined) return checkpoint.resources.length;
      // None, or one we cannot parse here (zstd): the engine's own listing says.
      return (await has(stackName)) ? ((await listed()).get(stackName)?.resourceCount ?? 0) : 0;
    },
  };
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

/**
 * Opens the target: its settings file must exist, and its secrets provider be one it may use
 * (src/project/passphrase.ts), before any engine reads or writes the file.
 */
export async function openTarget(
  projectDir: string,
  name: string,
  extraEnv: Record<string, string>,
  given: Env,
): Promise<Target> {
  targetNameOf(name);
  const dir = path.resolve(projectDir);
  projectProblem(dir);
  const configFile = settingsFileOf(dir, name);
  if (!fs.existsSync(configFile)) {
    throw new CliError(
      "usage",
      `target '${name}' has no settings file ${configFile}: create it once and commit it ` +
        `(docs/guide.md, "Targets and per-file stacks"; ${commandLine(`env --target ${name}`)} prints the environment for pulumi stack init)`,
    );
  }
  const secrets = targetSecretsEnv(dir, name, { ...given, ...extraEnv });
  return { ...(await openWorkspace(dir, { ...secrets, ...extraEnv }, given)), name, configFile };
}

/** Opens a Pulumi stack run with its own file (`--stack`), with the secrets its target may use. */
export async function openOwnStack(
  projectDir: string,
  stackName: string,
  extraEnv: Record<string, string>,
  given: Env,
): Promise<Target> {
  const dir = path.resolve(projectDir);
  projectProblem(dir);
  const secrets = stackSecretsEnv(dir, stackName, { ...given, ...extraEnv });
  return {
    ...(await openWorkspace(dir, { ...secrets, ...extraEnv }, given)),
    name: stackName,
    configFile: undefined,
  };
}

/** The project's workspace with the engine environment, and its backend's stacks. */
export async function openWorkspace(
  projectDir: string,
  extraEnv: Record<string, string>,
  given: Env,
): Promise<Omit<Target, "name" | "configFile">> {
  const dir = path.resolve(projectDir);
  projectProblem(dir);
  const env = { ...engineEnv({ projectDir: dir, baseEnv: { ...given } }), ...extraEnv };
  ensureStateDir(env);
  // The Automation API runs `pulumi` with this process's environment under `envVars`: the
  // command's own environment goes in whole, so that a command run with a context of its own
  // (in-process, test/helpers/in-process.ts) gives `pulumi stack import` and the like what the
  // process of a user who set those variables would (a KMS key's credentials, say). `env` is
  // read at each use: a run adds to it (fleet-run.ts: a change-window override).
  const givenVars = Object.fromEntries(
    Object.entries(given).filter((e): e is [string, string] => e[1] !== undefined),
  );
  let made: Promise<LocalWorkspace> | undefined;
  const workspace = async (): Promise<LocalWorkspace> => {
    const ws = await (made ??= pulumiCommand(dir).then((command) =>
      automation().LocalWorkspace.create({
        workDir: dir,
        envVars: { ...givenVars, ...env },
        pulumiCommand: command,
      }),
    ));
    Object.assign(ws.envVars, givenVars, env);
    return ws;
  };
  return {
    projectDir: dir,
    env,
    given,
    workspace,
    pulumiVersion: await pulumiVersionOf(dir),
    stacks: backendStacks(dir, env, given, workspace),
    hosts: engineHosts(dir),
  };
}

/** The per-file stack's name for `apiStack`, or a usage error naming the API stack. */
export function stackNameOf(target: Pick<Target, "name">, apiStack: string): string {
  const named = perFileStackName(target.name, apiStack);
  if (!named.ok) throw new CliError("usage", named.problem);
  return named.name;
}

/**
 * Runs `use` on the per-file stack, created when the backend did not list it (an empty
 * checkpoint written directly, not a `pulumi stack init` process: src/state-backend/new-stack.ts). A
 * listed stack is used as it is (nothing is selected: every engine run names its stack), once any
 * attributes file a killed run tore is removed (src/state-backend/torn-attributes.ts), each
 * removal told to `log`. Pulumi may write a `Pulumi.<stack>.yaml` holding only a passphrase salt
 * during a run; that file is removed afterwards, since every run passes the target's file
 * instead. A stack run with its own file (`--stack`) keeps it.
 */
export async function withPerFileStack<T>(
  target: Target,
  stackName: string,
  log: (line: string) => void,
  use: (stack: EngineStack) => Promise<T>,
): Promise<T> {
  const ownFile = path.join(target.projectDir, `Pulumi.${stackName}.yaml`);
  const stray = target.configFile !== undefined && !fs.existsSync(ownFile);
  try {
    if (!(await target.stacks.has(stackName))) {
      // Another runner sharing the backend may have made it since the listing: then it is kept.
      await createStackIfAbsent(lockTargetOf(target.projectDir, stackName, engineRunEnv(target)));
    } else {
      await repairTornAttributes(target, stackName, log);
    }
    return await use(new EngineStack(await target.workspace(), stackName, target.hosts, target.given));
  } finally {
    if (stray) fs.rmSync(ownFile, { force: true });
  }
}

/**
 * Removes the attributes files a killed run tore in the stack's state, each told to `log`: before
 * any `pulumi` process opens the stack, which would stop on them (src/state-backend/
 * torn-attributes.ts). Nothing in a backend only `pulumi` reads (neither a file nor an S3 one).
 */
async function repairTornAttributes(target: Target, stackName: string, log: (line: string) => void) {
  let removed: string[];
  try {
    removed = await removeTornAttributes(lockTargetOf(target.projectDir, stackName, engineRunEnv(target)));
  } catch (error) {
    if (error instanceof BackendUrlError) return;
    throw error;
  }
  for (const key of removed) {
    log(
      `stackwright: removed ${key}: a run killed while writing it left it unreadable, and no engine could read the stack's state`,
    );
  }
}

/**
 * The target's API settings as the preflight reads them, as every command does
 * (src/project/target-settings.ts): the variables first, the file `Pulumi.<target>.yaml` (its
 * secrets decrypted by a `pulumi config` process) only for what they leave out. With `--stack`
 * (its own file) the stack's settings when the backend lists it, under the same rule (a `pulumi
 * config` process, once what a killed run tore in its state is removed, said to `log`).
 */
export async function targetApiConfig(
  target: Target,
  log: (line: string) => void,
): Promise<(key: string) => string | undefined> {
  // The target's engine environment counts as given: a passphrase it carries opens the file.
  const env = engineRunEnv(target);
  if (target.configFile !== undefined) {
    return targetApiSettings({ projectDir: target.projectDir, target: target.name, env });
  }
  if (credentialsUnsetBy(env).length === 0 || !(await target.stacks.has(target.name))) return () => undefined;
  await repairTornAttributes(target, target.name, log);
  const settings = valuesOf(await (await target.workspace()).getAllConfig(target.name));
  return (key) => settings[key];
}

/** The whole environment of the target's engine runs: the given one with the engine's additions. */
export function engineRunEnv(target: Pick<Target, "env" | "given">): Env {
  return { ...target.given, ...target.env };
}

function valuesOf(listing: Readonly<Record<string, { value?: unknown }>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, { value }] of Object.entries(listing)) {
    if (value !== undefined) out[key] = typeof value === "string" ? value : JSON.stringify(value);
  }
  return out;
}
