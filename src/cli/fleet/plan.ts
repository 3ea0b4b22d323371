/**
 * From the command line to the list of stacks a run covers: the API stacks of stacks-config/,
 * narrowed by names, `--changed-since` and `--shard`; a stack whose file was deleted is destroyed
 * only with `--destroy-deleted` (otherwise it is kept and said so).
 */
import * as path from "node:path";
import {
  ConfigValidationError,
  loadDesiredState,
  scanDeclaredStacks,
  validateSources,
  type DeclaredSource,
  type DesiredState,
} from "../../config";
import { UsageError } from "../kit/exit-codes";
import { changesSince } from "../../project/changes";
import type { StackJob } from "./run-stack";
import {
  inShard,
  type Shard,
  selectByNames,
  selectChanged,
  type ChangeSet,
  type Selected,
} from "../../project/selection";
import { stackNameOf, type Target } from "./open-target";

export interface PlanInput {
  readonly names: readonly string[];
  readonly changedSince?: string;
  readonly shard?: Shard;
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
  /** The desired state of the files the plan loaded: at least those of the selected stacks. */
  readonly state?: DesiredState;
}

/** What the plan needs of the target: where it is, its name and its backend's stacks. */
export type PlanTarget = Pick<Target, "projectDir" | "name" | "stacks">;

/** The files a run loaded: every stack's, or (one file changed) only the selected ones'. */
interface Loaded {
  readonly all: Selected[];
  /** The file of each API stack, by name (all of them, loaded or not). */
  readonly files: Readonly<Record<string, string>>;
  readonly state: DesiredState;
}

/** Every file of stacks-config/, parsed and validated: an error anywhere stops the run. */
async function loadAll(configDir: string): Promise<Loaded> {
  const loaded = await loadDesiredState(configDir);
  if (!loaded.ok) throw new ConfigValidationError(loaded.errors);
  const files = loaded.state.sourceFiles;
  const all = loaded.state.stacks.map((s) => ({ apiStack: s.stack, file: files[s.stack] ?? "" }));
  return { all, files, state: loaded.state };
}

/**
 * The files of the `wanted` API stacks only, parsed and validated, beside what the scan read of
 * every file (the API stack each declares). Undefined when the parse disagrees with the scan.
 */
function loadWanted(scanned: readonly DeclaredSource[], wanted: ReadonlySet<string>): Loaded | undefined {
  const validated = validateSources(scanned.filter((s) => wanted.has(s.stack)));
  if (!validated.ok) throw new ConfigValidationError(validated.errors);
  // What the scan took from each file's `stack:` line is what its parse says, or all is loaded.
  const declared = new Set(scanned.map((s) => s.stack));
  const parsed = validated.state.stacks.map((s) => s.stack).sort();
  if (
    parsed.join("\n") !==
    [...wanted]
      .filter((w) => declared.has(w))
      .sort()
      .join("\n")
  )
    return undefined;
  const files = Object.fromEntries(scanned.map((s) => [s.stack, s.file]));
  const all = scanned
    .map((s) => ({ apiStack: s.stack, file: s.file }))
    .sort((a, b) => (a.apiStack < b.apiStack ? -1 : a.apiStack > b.apiStack ? 1 : 0));
  return { all, files, state: validated.state };
}

/**
 * A run of some files (`--changed-since` when no shared file changed, or API stacks by name):
 * only their files are parsed and validated; the others are read for the API stack they declare
 * (to list them, to tell an unknown name, and so that a stack declared now by another file is
 * not taken for deleted). Errors in the files the run does not select are `validate`'s to report.
 * Undefined when the files cannot be told apart that cheaply (a file without exactly one
 * top-level `stack:` line, a stack declared twice, a shared file changed): then every file is
 * loaded, as for a run of all.
 */
function loadSelected(
  target: PlanTarget,
  configDir: string,
  input: PlanInput,
): { loaded: Loaded; changes?: ChangeSet } | undefined {
  if (input.destroying || (input.changedSince === undefined && input.names.length === 0)) return undefined;
  const scanned = scanDeclaredStacks(configDir);
  if (scanned === undefined) return undefined;
  if (input.changedSince === undefined) {
    const loaded = loadWanted(scanned, new Set(input.names));
    return loaded === undefined ? undefined : { loaded };
  }
  const byFile = new Map(scanned.map((s) => [path.relative(target.projectDir, s.file), s.stack]));
  const changes = changesSince(target.projectDir, input.changedSince, target.name, (rel) => byFile.get(rel));
  if (changes.shared.length > 0) return undefined;
  const loaded = loadWanted(scanned, new Set(changes.changed));
  return loaded === undefined ? undefined : { loaded, changes };
}

export async function planRun(target: PlanTarget, input: PlanInput): Promise<Plan> {
  if (input.names.length > 0 && input.changedSince !== undefined) {
    throw new UsageError("give API stack names or --changed-since, not both");
  }
  const shard = input.shard;
  const configDir = path.join(target.projectDir, "stacks-config");
  const some = loadSelected(target, configDir, input);
  const { all, files, state } = some?.loaded ?? (await loadAll(configDir));

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
    const changes =
      some?.changes ??
      changesSince(target.projectDir, input.changedSince, target.name, (rel) => byFile.get(rel));
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
  const exists = await Promise.all(deleted.map((s) => target.stacks.has(stackNameOf(target, s.apiStack))));
  const doomed = deleted.filter((_, i) => exists[i] === true);
  const jobs = [
    ...selected.map((s) => job(s, input.destroying)),
    ...(input.destroyDeleted ? doomed.map((s) => job(s, true)) : []),
  ];
  const kept = input.destroyDeleted ? [] : doomed.map((s) => stackNameOf(target, s.apiStack));
  return { jobs, kept, description, state };
}
