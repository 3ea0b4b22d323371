/**
 * A new per-file stack, made in the backend without a `pulumi stack init` process.
 *
 * A stack of Pulumi's DIY backend is its checkpoint file: `pulumi stack init` takes the stack's
 * lock, checks that no checkpoint exists, and writes one with no deployment in it. That process
 * costs as much CPU as a third of an engine run, once per new stack, which a fleet's first `up`
 * pays a hundred times. Writing the same empty checkpoint here is one object write; it is made
 * with the store's create-if-absent (a hard link on disk, a conditional PUT on S3), so a stack
 * that another runner made in the meantime, and may already be updating, is never overwritten.
 * The engine fills the checkpoint on its first run, exactly as after `pulumi stack init`.
 */
import { hasCheckpoint } from "./checkpoint";
import { checkpointKey, isLegacyCheckpointKey, LAYOUT_KEY, PROJECT_LAYOUT, STACKS_DIRECTORY } from "./keys";
import type { StackPlace, StateStore } from "./store";

/** The checkpoint of a stack that was never updated, as the DIY backend writes it. */
export function emptyCheckpoint(project: string, stack: string): string {
  return JSON.stringify({
    version: 3,
    checkpoint: { stack: `organization/${project}/${stack}`, latest: null },
  });
}

/**
 * Makes the stack when the backend has no checkpoint for it (plain, gzip or zstd): true when this
 * call made it, false when it existed. A backend with no layout record gets one first.
 */
export async function createStackIfAbsent(where: StackPlace): Promise<boolean> {
  await recordLayoutIfAbsent(where.store);
  if (await hasCheckpoint(where.store, where.project, where.stack)) return false;
  return where.store.create(
    checkpointKey(where.project, where.stack),
    emptyCheckpoint(where.project, where.stack),
  );
}

/**
 * Writes the backend's layout record when it has none, as Pulumi decides it (project mode, unless
 * the backend holds stacks of the legacy layout, which Pulumi leaves without one), but whole and
 * before any engine runs. Pulumi's file backend writes a blob's attributes file (`.attrs`) in place
 * after the blob: engines that open a new backend at once, as a fleet's first `up` starts them,
 * could read the record while another was still writing its attributes, and stop with `read
 * ".pulumi/meta.yaml": EOF`. Written here (with no attributes file, which the file backend reads as
 * none), the record is only ever read by the engines.
 */
async function recordLayoutIfAbsent(store: StateStore): Promise<void> {
  if ((await store.read(LAYOUT_KEY)) !== undefined) return;
  const stacks = await store.list(STACKS_DIRECTORY);
  if (stacks.some((object) => isLegacyCheckpointKey(object.key))) return;
  await store.create(LAYOUT_KEY, PROJECT_LAYOUT);
}
