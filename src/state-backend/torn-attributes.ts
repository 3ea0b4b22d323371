/**
 * The repair of what a killed `pulumi` process can leave torn in a file backend: the attributes
 * file of a blob every engine run of the stack reads (the layout record, the stack's checkpoint).
 * Without it, the stack's next run, preview or up, stops with `failed to load checkpoint: EOF`
 * until a person deletes the file. Locks are not among them: a lock's attributes are written
 * before the lock itself, so a torn one has no lock and goes with the orphans (cli/state/locks.ts).
 */
import { checkpointKeys, LAYOUT_KEY } from "./keys";
import type { StackPlace } from "./store";

/** Removes the torn attributes files of the blobs the stack's engine reads; returns their keys. */
export function removeTornAttributes(where: StackPlace): Promise<string[]> {
  return where.store.removeTornAttributes([
    LAYOUT_KEY,
    ...Object.values(checkpointKeys(where.project, where.stack)),
  ]);
}
