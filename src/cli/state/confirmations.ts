/**
 * The confirmation record of a per-file stack: what its last no-change engine run proved, kept in
 * the stack's own backend next to its checkpoint (`.pulumi/stackwright/confirmations/<project>/
 * <stack>.json`, a place Pulumi never reads). It holds digests only: of the run's inputs, of the
 * checkpoint as that run left it, and of every data-source answer the program read. No setting,
 * token or answer is stored in clear. See docs/state.md, "Confirmed without the engine".
 */
import { confirmationKey, unfinishedKey, type Confirmation, type StateStore } from "../../state-backend";

// The record's schema, its place and its readers belong to the state backend module
// (src/state-backend/records.ts), which observe reads without the engine; this file writes and removes it.
export {
  Confirmation,
  InputDigests,
  checkpointIdentity,
  confirmationKey,
  lastUpUnfinished,
  readConfirmation,
  stackIsLocked,
  unfinishedKey,
  type CheckpointIdentity,
} from "../../state-backend";

export async function writeConfirmation(
  store: StateStore,
  project: string,
  record: Confirmation,
): Promise<void> {
  await store.write(confirmationKey(project, record.stack), `${JSON.stringify(record, null, 2)}\n`);
}

/** Removes the record; before any engine run of the stack, so a killed run leaves none behind. */
export async function removeConfirmation(store: StateStore, project: string, stack: string): Promise<void> {
  await store.remove(confirmationKey(project, stack));
}

/** Marks an `up` of the stack as started; its success removes the mark ({@link markUpFinished}). */
export async function markUpStarted(store: StateStore, project: string, stack: string): Promise<void> {
  await store.write(
    unfinishedKey(project, stack),
    `${JSON.stringify({ stack, pid: process.pid, startedAt: new Date().toISOString() })}\n`,
  );
}

export async function markUpFinished(store: StateStore, project: string, stack: string): Promise<void> {
  await store.remove(unfinishedKey(project, stack));
}
