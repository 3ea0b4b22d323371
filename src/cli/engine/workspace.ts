/**
 * Opens a stack of the Stackwright project through the Automation API, with the engine
 * environment of src/project/engine-env.ts. The program runs in its own Node process (workDir), exactly as
 * `pulumi up` in the project directory would run it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { LocalWorkspace, Stack } from "@pulumi/pulumi/automation";
import { engineEnv, ensureStateDir, pulumiCommand } from "../../project/engine-env";
import { stackSecretsEnv } from "../../project/passphrase";
import { EngineStack } from "./run";
import { CliError } from "../kit/exit-codes";

// In src/project/engine-env.ts, which does not load the engine's SDK (the commands without the engine import it there).
export { defaultProjectDir } from "../../project/engine-env";

export interface OpenStackOptions {
  readonly projectDir: string;
  readonly stackName: string;
  /**
   * The environment the engine's own extends. Benches and tests open stacks with no command
   * around them and pass the process's (`process.env`), at the call, where a reader sees it.
   */
  readonly given: Readonly<Record<string, string | undefined>>;
  /** Extra environment for the engine and everything it spawns (program, providers). */
  readonly env?: Record<string, string>;
  /**
   * The secrets provider a stack made here is made with (`pulumi stack init --secrets-provider`,
   * e.g. `awskms://…`); Pulumi's passphrase when absent. A stack that exists keeps its own.
   */
  readonly secretsProvider?: string;
}

async function openWorkspaceStack(options: OpenStackOptions): Promise<{ ws: LocalWorkspace; stack: Stack }> {
  const projectDir = path.resolve(options.projectDir);
  if (!fs.existsSync(path.join(projectDir, "Pulumi.yaml"))) {
    throw new CliError(
      "environment",
      `${projectDir} has no Pulumi.yaml: pass the Stackwright project directory with --project`,
    );
  }
  const given = { ...options.given, ...options.env };
  const secrets = stackSecretsEnv(projectDir, options.stackName, given);
  const env = { ...engineEnv({ projectDir, baseEnv: given }), ...secrets, ...options.env };
  ensureStateDir(env);
  const ws = await LocalWorkspace.create({
    workDir: projectDir,
    envVars: env,
    pulumiCommand: await pulumiCommand(projectDir),
    ...(options.secretsProvider === undefined ? {} : { secretsProvider: options.secretsProvider }),
  });
  return { ws, stack: await Stack.createOrSelect(options.stackName, ws) };
}

/** Selects the stack, creating it on the local backend when it does not exist yet. */
export async function openStack(options: OpenStackOptions): Promise<Stack> {
  return (await openWorkspaceStack(options)).stack;
}

/**
 * The same stack, for runs of the engine command alone ({@link EngineStack}), as every stack of
 * a `stackwright` run is run: what a bench compares those runs with.
 */
export async function openEngineStack(options: OpenStackOptions): Promise<EngineStack> {
  const { ws, stack } = await openWorkspaceStack(options);
  return new EngineStack(ws, stack.name, undefined, options.given);
}
