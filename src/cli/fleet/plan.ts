/**
 * From the command line to the list of stacks a run covers: the API stacks of stacks-config/,
 * narrowed by names, `--changed-since` and `--shard`; a stack whose file was deleted is destroyed
 * only with `--destroy-deleted` (otherwise it is kept and said so).
 */
import * as path from "node:path";
import { ConfigValidationError, loadDesiredState } from "../../config";
import { UsageError } from "../kit/exit-codes";
import { changesSince } from "./changes";
import type { StackJob } from "./run-stack";
import { inShard, parseShard, selectByNames, selectChanged, type Selected } from "./selection";
import { stackNameOf, type Target } from "./target";

export interface PlanInput {
  readonly names: readonly string[];
  readonly changedSince?: string;
  readonly shard?: string;
  readonly destroyDeleted: boolean;
  /** destroy: names need no file (a deleted file's stack is destroyed by name). */
  readonly destroying: boolean;
}

export interface Plan {
  readonly jobs: StackJob[];
  /** Stacks whose file was deleted and that this run leaves alone. */
  readonly kept: string[];
  /** How the selection was made, for the first line of output. */
  readonly description: string;
}

export async function planRun(target: Target, input: PlanInput): Promise<Plan> {
  if (input.names.length > 0 && input.changedSince !== undefined) {
    throw new UsageError("give API stack names or --changed-since, not both");
  }
  const shard = input.shard === undefined ? undefined : parseShard(input.shard);
  const loaded = await loadDesiredState(path.join(target.projectDir, "stacks-config"));
  if (!loaded.ok) throw new ConfigValidationError(loaded.errors);
  const files = loaded.state.sourceFiles;
  const all: Selected[] = loaded.state.stacks.map((s) => ({ apiStack: s.stack, file: files[s.stack] ?? "" }));

  let selected: Selected[];
  let deleted: Selected[] = [];
  let description: string;
  if (input.destroying) {
    if (input.names.length === 0) {
      throw new UsageError(
        "stackwright destroy needs the API stacks to destroy, by name (it never destroys all by default)",
      );
    }
    selected = input.names.map((apiStack) => ({ apiStack }));
    deleted = [];
    description = `${input.names.length} named`;
  } else if (input.changedSince !== undefined) {
    const byFile = new Map(
      Object.entries(files).map(([stack, file]) => [path.relative(target.projectDir, file), stack]),
    );
    const changes = changesSince(target.projectDir, input.changedSince, target.name, (rel) =>
      byFile.get(rel),
    );
    ({ selected, deleted } = selectChanged(all, changes));
    description =
      changes.shared.length > 0
        ? `all ${all.length} (shared files changed since ${input.changedSince}: ${changes.shared.join(", ")})`
        : `${selected.length} of ${all.length} changed since ${input.changedSince}`;
  } else if (input.names.length > 0) {
    selected = selectByNames(all, input.names);
    description = `${selected.length} named`;
  } else {
    selected = all;
    description = `all ${all.length}`;
  }
  if (shard !== undefined) {
    selected = inShard(selected, shard);
    deleted = inShard(deleted, shard);
    description += `, shard ${shard.index}/${shard.count}`;
  }
  const job = (s: Selected, destroy: boolean): StackJob => {
    const file = destroy ? undefined : files[s.apiStack];
    return {
      apiStack: s.apiStack,
      stackName: stackNameOf(target, s.apiStack),
      destroy,
      ...(file === undefined ? {} : { file }),
    };
  };
  // Only stacks that exist in the backend have anything to destroy.
  const doomed = deleted.filter((s) => target.stacks.has(stackNameOf(target, s.apiStack)));
  const jobs = [
    ...selected.map((s) => job(s, input.destroying)),
    ...(input.destroyDeleted ? doomed.map((s) => job(s, true)) : []),
  ];
  const kept = input.destroyDeleted ? [] : doomed.map((s) => stackNameOf(target, s.apiStack));
  return { jobs, kept, description };
}
