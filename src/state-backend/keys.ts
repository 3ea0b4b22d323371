/**
 * Where things live in a state backend: Pulumi's DIY backend (project mode) keeps each stack's
 * checkpoint, locks and history under `.pulumi/`, and Stackwright keeps its own records beside
 * them under `.pulumi/stackwright/`. Every key of the backend is built here, and nowhere else.
 */

/**
 * Pulumi's record of the backend's layout (`version: 1`: the project mode these keys follow). Every
 * `pulumi` process reads it when it opens the backend, and writes it when it finds none.
 */
export const LAYOUT_KEY = ".pulumi/meta.yaml";

/** The layout record Pulumi writes for a backend in project mode. */
export const PROJECT_LAYOUT = "version: 1\n";

/** Where the backend keeps the stacks' checkpoints (one folder per project, in project mode). */
export const STACKS_DIRECTORY = ".pulumi/stacks/";

/**
 * What follows a stack's name in the key of its checkpoint: plain, gzip (a backend that
 * compresses), zstd (which no reader of ours parses, but which still means the stack exists).
 */
const CHECKPOINT_SUFFIXES = { plain: ".json", gzip: ".json.gz", zstd: ".json.zst" } as const;

/**
 * True for the checkpoint of a stack in Pulumi's legacy layout (`.pulumi/stacks/<stack>.json`, no
 * project): a backend holding one and no layout record is in that layout.
 */
export function isLegacyCheckpointKey(key: string): boolean {
  const name = key.startsWith(STACKS_DIRECTORY) ? key.slice(STACKS_DIRECTORY.length) : undefined;
  return (
    name !== undefined &&
    !name.includes("/") &&
    Object.values(CHECKPOINT_SUFFIXES).some((suffix) => name.length > suffix.length && name.endsWith(suffix))
  );
}

/** Where the backend keeps the stack's checkpoint, without compression suffix. */
export function checkpointKey(project: string, stack: string): string {
  return checkpointKeys(project, stack).plain;
}

/** Every key the stack's checkpoint may have, in the order Pulumi reads them: plain, gzip, zstd. */
export function checkpointKeys(
  project: string,
  stack: string,
): {
  readonly plain: string;
  readonly gzip: string;
  readonly zstd: string;
} {
  const base = `${STACKS_DIRECTORY}${project}/${stack}`;
  return {
    plain: `${base}${CHECKPOINT_SUFFIXES.plain}`,
    gzip: `${base}${CHECKPOINT_SUFFIXES.gzip}`,
    zstd: `${base}${CHECKPOINT_SUFFIXES.zstd}`,
  };
}

/** Where Pulumi keeps the locks of a project-scoped stack. */
export function lockDirectory(project: string, stack: string): string {
  return `.pulumi/locks/organization/${project}/${stack}`;
}

/** True for the key of a lock file (`<id>.json`), not of its attributes (`<id>.json.attrs`). */
export function isLockKey(key: string): boolean {
  return key.endsWith(".json");
}

/** The directory of the stack's update history (one `<stack>-<ns>.history.json` per update). */
export function historyDirectory(project: string, stack: string): string {
  return `.pulumi/history/${project}/${stack}`;
}

/** Where the confirmation record of `stack` lives. */
export function confirmationKey(project: string, stack: string): string {
  return `.pulumi/stackwright/confirmations/${project}/${stack}.json`;
}

/**
 * Where an `up` of `stack` marks itself unfinished: written before its engine starts, removed
 * once it succeeded and left the state steady. Found by the next run, it says the last run was
 * killed or failed (src/cli/fleet/run-stack.ts writes and removes it).
 */
export function unfinishedKey(project: string, stack: string): string {
  return `.pulumi/stackwright/unfinished/${project}/${stack}.json`;
}

/** Where `stackwright drift` keeps what it last reported for `stack`, next to the confirmations. */
export function driftMemoryKey(project: string, stack: string): string {
  return `.pulumi/stackwright/drift/${project}/${stack}.json`;
}

/** Where the never-repeated creates in flight of `stack` are recorded (src/cli/state/in-flight.ts). */
export function inFlightKey(project: string, stack: string): string {
  return `.pulumi/stackwright/in-flight/${project}/${stack}.json`;
}
