/**
 * Shared setup of the providers' end-to-end tests: a scratch project running
 * test/fixtures/providers-program against an emulator on 127.0.0.1, with the credentials in
 * stack config (the token as a secret).
 *
 * The world runs the engine as the `stackwright` command does ({@link EngineStack}): one `pulumi`
 * process per run, its changes from the engine's summary event, its events from its event log.
 * The SDK's `Stack` would also run `pulumi stack output` twice and `pulumi stack history` after
 * every update; the world reads the same facts from the local backend's files instead: the
 * outputs from the checkpoint, the result from the update's history record.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { LocalWorkspace, type EngineEvent, type Stack } from "@pulumi/pulumi/automation";
import { EngineStack, type EngineOperation, type ResourceChanges } from "../../src/cli/engine/run";
import { sharedProviderHost } from "../../src/program";
import type { Answers } from "../../src/emulator";
import { startTestEmulator, TEST_USERS, type TestEmulator } from "./emulator";
import { fixtureProgramHost } from "./fixture-host";
import { scratchProject } from "./run-kms";
import { repoRoot, type ScratchProject } from "./scratch-project";

/** A stack output as the checkpoint holds it: a secret stays encrypted (its value is not read). */
export interface OutputValue {
  readonly value: unknown;
  readonly secret: boolean;
}

/** What an update, refresh or destroy did. */
export interface RunResult {
  readonly summary: {
    /** The result its history record holds (`succeeded`, `failed`). */
    readonly result: string;
    readonly resourceChanges: ResourceChanges;
  };
  /** The stack's outputs after the run. */
  readonly outputs: Readonly<Record<string, OutputValue>>;
  readonly stdout: string;
}

export interface PreviewResult {
  readonly changeSummary: ResourceChanges;
  readonly stdout: string;
}

export interface RunOptions {
  readonly refresh?: boolean;
  /** Every event of the run, in order, once the engine has exited. */
  readonly onEvent?: (event: EngineEvent) => void;
}

/** A scratch project, an emulator and a stack wired to each other. */
export interface ProvidersWorld {
  project: ScratchProject;
  emulator: TestEmulator;
  /** The SDK's stack: its configuration and `cancel`. */
  stack: Stack;
  stackName: string;
  /**
   * Runs of the engine. A failed run rejects with the SDK's `CommandError` (the CLI's output in
   * its text), as the SDK's `Stack` does.
   */
  preview(): Promise<PreviewResult>;
  up(options?: RunOptions): Promise<RunResult>;
  refresh(): Promise<RunResult>;
  destroy(): Promise<RunResult>;
  /** Non-GET API requests (writes) logged by the emulator since the last clear. */
  writes(): Promise<string[]>;
  /** The stack's state file as text. */
  state(): string;
  close(): Promise<void>;
}

/** Sets `fixture:*` config values, all in one `pulumi config set-all`. */
export async function setFixture(stack: Stack, values: Record<string, string>): Promise<void> {
  await stack.setAllConfig(
    Object.fromEntries(Object.entries(values).map(([key, value]) => [`fixture:${key}`, { value }])),
  );
}

/** Sets the stack's credentials (the token as a secret), in one `pulumi config set-all`. */
export async function setCredentials(
  stack: Stack,
  user: { email: string; token: string },
  apiUrl?: string,
): Promise<void> {
  await stack.setAllConfig({
    ...(apiUrl === undefined ? {} : { "stackwright:apiUrl": { value: apiUrl } }),
    "stackwright:email": { value: user.email },
    "stackwright:apiToken": { value: user.token, secret: true },
  });
}

export interface ProvidersWorldOptions {
  readonly answers?: Answers;
  /**
   * Where the fixture program and its providers run: `process` (the default) as plain `pulumi up`
   * runs them, the program in the language host's Node process (Pulumi.yaml's `main`) and the
   * providers in a plugin process the engine starts for each run; `hosted` as the `stackwright`
   * command runs its own, the program in this process through the SDK's inline-program server
   * (test/helpers/fixture-host.ts) and the providers of every run in one shared provider host
   * (src/program/shared-provider.ts). Either way the engine is a process of its own.
   */
  readonly program?: "process" | "hosted";
}

// The SDK marks a secret value in a checkpoint with this key and value (sdk/go/common/resource/sig).
const SECRET_SIG = "4dabf18193072939515e22adb298388d";
const SECRET_VALUE = "1b47061264138c4ac30d75fd1eb44270";

function isSecret(value: unknown): boolean {
  return (
    typeof value === "object" && value !== null && SECRET_SIG in value && value[SECRET_SIG] === SECRET_VALUE
  );
}

/** The outputs of the stack resource in the state text. */
export function stackOutputs(state: string): Record<string, OutputValue> {
  const [root] = stateResourcesOfType(state, "pulumi:pulumi:Stack");
  return Object.fromEntries(
    Object.entries(root?.outputs ?? {}).map(([name, value]) => [
      name,
      isSecret(value) ? { value: undefined, secret: true } : { value, secret: false },
    ]),
  );
}

/** Starts the world; `user` picks whose credentials the stack config holds. */
export async function startProvidersWorld(
  stackName: string,
  user: { email: string; token: string } = TEST_USERS.stackManager,
  options: ProvidersWorldOptions = {},
): Promise<ProvidersWorld> {
  const emulator = await startTestEmulator({
    speed: "instant",
    ...(options.answers === undefined ? {} : { answers: options.answers }),
  });
  const project = scratchProject({
    program: path.join(repoRoot, "test", "fixtures", "providers-program", "index.js"),
  });
  const stack = await project.stack(stackName);
  await setCredentials(stack, user, emulator.url);
  const ws = stack.workspace;
  if (!(ws instanceof LocalWorkspace)) throw new Error("the scratch project's stack has no local workspace");
  // Hosted as `stackwright` hosts its own program: the program in this process, the providers of
  // every run in one shared host (the scratch copy's), stopped with the world.
  const providers =
    options.program === "hosted"
      ? sharedProviderHost(
          { name: (await ws.projectSettings()).name, programDir: project.dir },
          path.join(project.dir, "dist", "providers", "plugin-host", "main.js"),
        )
      : undefined;
  const engine = new EngineStack(
    ws,
    stackName,
    providers === undefined
      ? undefined
      : { program: fixtureProgramHost(path.join(project.dir, "program.js")), providers },
    // No command around this engine: it runs in the test process's environment.
    process.env,
  );
  const state = () => fs.readFileSync(project.stateFile(stackName), "utf8");
  const run = async (
    operation: EngineOperation,
    runOptions: RunOptions = {},
  ): Promise<{ changes: ResourceChanges; stdout: string }> => {
    let stdout = "";
    const changes = await engine.run(operation, {
      ...(runOptions.refresh === undefined ? {} : { refresh: runOptions.refresh }),
      ...(runOptions.onEvent === undefined ? {} : { onEvent: runOptions.onEvent }),
      onOutput: (text) => {
        stdout += text;
      },
    });
    return { changes, stdout };
  };
  const update = async (operation: EngineOperation, runOptions?: RunOptions): Promise<RunResult> => {
    const { changes, stdout } = await run(operation, runOptions);
    return {
      summary: { result: await project.latestResult(stackName), resourceChanges: changes },
      outputs: stackOutputs(state()),
      stdout,
    };
  };
  return {
    project,
    emulator,
    stack,
    stackName,
    preview: async () => {
      const { changes, stdout } = await run("preview");
      return { changeSummary: changes, stdout };
    },
    up: (runOptions) => update("up", runOptions),
    refresh: () => update("refresh"),
    destroy: () => update("destroy"),
    writes: async () =>
      (await emulator.hooks.requests())
        .filter((r) => r.method !== "GET" && !r.path.startsWith("/_emulator"))
        .map((r) => `${r.method} ${r.path}`),
    state,
    close: async () => {
      providers?.stop();
      await emulator.close();
      project.remove();
    },
  };
}

interface StateResource {
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
  id: string;
}

/** Resources of a given `stackwright:<Type>` in the state text. */
export function stateResources(state: string, type: string): StateResource[] {
  return stateResourcesOfType(state, `pulumi-nodejs:dynamic/stackwright:${type}`);
}

function stateResourcesOfType(state: string, type: string): StateResource[] {
  const doc = JSON.parse(state) as {
    checkpoint: {
      latest?: {
        resources?: {
          type: string;
          id: string;
          inputs: Record<string, unknown>;
          outputs: Record<string, unknown>;
        }[];
      };
    };
  };
  return (doc.checkpoint.latest?.resources ?? []).filter((r) => r.type === type);
}
