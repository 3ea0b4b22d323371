/**
 * What `status` and `drift` share at the CLI: the selection of API stacks (names,
 * `--changed-since`, `--shard`, as the engine commands select them), the API settings and their
 * check, the state backend, and one observation of the selected stacks by src/observe. No engine
 * starts: the state is read from the backend, and the target's settings file is read only when the
 * environment does not give all three API settings.
 */
import * as path from "node:path";
import { ConfigValidationError, loadDesiredState, perFileStackName, type DesiredState } from "../../config";
import { observeFleetProving, type FleetStatus, type ProofVerdict, type StackToObserve } from "../../observe";
import type { CommandContext } from "../kit/context";
import { engineEnv, pulumiVersionOf } from "../../project/engine-env";
import { CliError, UsageError } from "../kit/exit-codes";
import { changesSince } from "../../project/changes";
import { inShard, selectByNames, selectChanged, type Selected, type Shard } from "../../project/selection";
import { checkedClient } from "../../project/preflight";
import { openStateStore, type InputDigests, type StateStore } from "../../state-backend";
import { projectNameOf } from "../../project/lock-target";
import { apiBudget, apiBudgetEnv, apiConcurrencyFlag } from "../kit/api-budget";
import { upInputDigests } from "../../project/fingerprint";
import { targetApiSettings } from "../../project/target-settings";
import { selectionFlags, targetFlags } from "../kit/flag-sets";

/** The flags of the observing commands: the target, the selection, the budget of API requests. */
export const observeFlags = {
  ...targetFlags,
  ...selectionFlags,
  ...apiConcurrencyFlag,
};

/** What `status` and `drift` observe, parsed once at the edge (observeFlags). */
export interface ObserveOptions {
  readonly command: string;
  readonly names: readonly string[];
  readonly target: string;
  /** The project directory, resolved. */
  readonly project: string;
  readonly changedSince?: string | undefined;
  readonly shard?: Shard | undefined;
  /**
   * Called once the stacks are selected and before anything is read (the API settings, the
   * preflight, the state): what must refuse the run before it reads, such as `drift`'s sinks.
   */
  readonly beforeReads?: (selected: {
    readonly projectDir: string;
    readonly target: string;
    readonly apiStacks: readonly string[];
    /** The stack files as read for the selection (so that no one reads them twice). */
    readonly desired: DesiredState;
  }) => Promise<void>;
  /** `--api-concurrency` when given (the budget of the run's clients and reads; see kit/api-budget.ts). */
  readonly apiConcurrency?: number | undefined;
  /**
   * Also decide, per observed stack, whether its last no-change run still proves it (`drift`):
   * the inputs an `up` would have now, its record, checkpoint and lock in the backend, and its
   * recorded reads made again through the observation's reads (src/observe/proof.ts).
   */
  readonly prove?: boolean;
}

/** The observation, and the backend it read (drift keeps its memory there). */
export interface Observed {
  readonly status: FleetStatus;
  /** Per API stack, whether its proof holds (empty unless asked, and for a stack not fully observed). */
  readonly proofs: ReadonlyMap<string, ProofVerdict>;
  /** How many distinct API reads the run made. */
  readonly reads: number;
  readonly projectDir: string;
  /** The variables that give the run's API budget to the processes it starts (drift --full's engines). */
  readonly budgetEnv: Record<string, string>;
  readonly store: StateStore;
  readonly project: string;
}

/** The API stacks the options select, with their parsed files. */
async function selectStacks(
  projectDir: string,
  target: string,
  options: ObserveOptions,
): Promise<{ stacks: StackToObserve[]; desired: DesiredState }> {
  if (options.names.length > 0 && options.changedSince !== undefined) {
    throw new UsageError("give API stack names or --changed-since, not both");
  }
  const shard = options.shard;
  const loaded = await loadDesiredState(path.join(projectDir, "stacks-config"));
  if (!loaded.ok) throw new ConfigValidationError(loaded.errors);
  const files = loaded.state.sourceFiles;
  const all: Selected[] = loaded.state.stacks.map((s) => ({ apiStack: s.stack, file: files[s.stack] ?? "" }));
  let selected: Selected[];
  if (options.changedSince !== undefined) {
    const byFile = new Map(
      Object.entries(files).map(([stack, file]) => [path.relative(projectDir, file), stack]),
    );
    const changes = changesSince(projectDir, options.changedSince, target, (rel) => byFile.get(rel));
    selected = selectChanged(all, changes).selected;
  } else if (options.names.length > 0) {
    selected = selectByNames(all, options.names);
  } else {
    selected = all;
  }
  if (shard !== undefined) selected = inShard(selected, shard);
  const configs = new Map(loaded.state.stacks.map((s) => [s.stack, s]));
  const stacks = selected.flatMap((s) => {
    const config = configs.get(s.apiStack);
    const named = perFileStackName(target, s.apiStack);
    if (!named.ok) throw new CliError("usage", named.problem);
    return config === undefined
      ? []
      : [
          {
            apiStack: s.apiStack,
            pulumiStack: named.name,
            file: path.relative(projectDir, s.file ?? ""),
            config,
          },
        ];
  });
  return { stacks, desired: loaded.state };
}

/**
 * The input digests an `up` of each stack of the target would compute now (fleet/shortcut.ts):
 * the same files, settings file, `STACKWRIGHT_*` variables, tool and flags. The Pulumi CLI's
 * version is the one remembered from its last run, so that no process starts.
 */
async function upInputsOf(
  projectDir: string,
  target: string,
  env: Record<string, string>,
  userEnv: CommandContext["env"],
): Promise<(s: StackToObserve) => InputDigests> {
  const shortcutTarget = {
    name: target,
    projectDir,
    configFile: path.join(projectDir, `Pulumi.${target}.yaml`),
    env: { ...userEnv, ...env },
    pulumiVersion: await pulumiVersionOf(projectDir),
  };
  return (s) => upInputDigests(shortcutTarget, s.pulumiStack, path.join(projectDir, s.file));
}

/** Observes the selected API stacks of the target, with the command's environment and clock. */
export async function observeTarget(
  options: ObserveOptions,
  context: Pick<CommandContext, "env" | "clock">,
): Promise<Observed> {
  const projectDir = options.project;
  const target = options.target;
  // One budget: the pool of this run's clients (and, with drift --full, the engines') and the reads.
  const apiConcurrency = apiBudget(options.apiConcurrency, context.env);
  const budgetEnv = apiBudgetEnv(apiConcurrency);
  const userEnv = { ...context.env, ...budgetEnv };
  const project = projectNameOf(projectDir);
  const { stacks, desired } = await selectStacks(projectDir, target, options);
  await options.beforeReads?.({ projectDir, target, apiStacks: stacks.map((s) => s.apiStack), desired });
  const env = engineEnv({ projectDir, baseEnv: context.env });
  const store = openStateStore(env["PULUMI_BACKEND_URL"] ?? "", { ...context.env });
  const { client } = await checkedClient({
    command: options.command,
    stacks: [],
    config: await targetApiSettings({ projectDir, target, env: userEnv }),
    env: userEnv,
  });
  try {
    const observed = await observeFleetProving({
      target,
      project,
      store,
      client,
      stacks,
      apiConcurrency,
      now: context.clock(),
      ...(options.prove === true
        ? { proof: { client, inputs: await upInputsOf(projectDir, target, env, userEnv) } }
        : {}),
    });
    return { ...observed, store, project, projectDir, budgetEnv };
  } finally {
    await client.close();
  }
}
