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
import { checkpointKey } from "../observe";
import type { LockTarget } from "../cli/state/lock-guard";

export { checkpointKey };

/** The checkpoint of a stack that was never updated, as the DIY backend writes it. */
export function emptyCheckpoint(project: string, stack: string): string {
  return JSON.stringify({
    version: 3,
    checkpoint: { stack: `organization/${project}/${stack}`, latest: null },
  });
}

/**
 * Makes the stack when the backend has no checkpoint for it (plain, gzip or zstd): true when this
 * call made it, false when it existed.
 */
export async function createStackIfAbsent(where: LockTarget): Promise<boolean> {
  const base = checkpointKey(where.project, where.stack);
  for (const key of [base, `${base}.gz`, `${base}.zst`]) {
    if ((await where.store.readBytes(key)) !== undefined) return false;
  }
  return where.store.create(base, emptyCheckpoint(where.project, where.stack));
}
