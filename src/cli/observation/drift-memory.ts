/**
 * What `stackwright drift` remembers of its last report, per stack, in the state backend next to
 * the confirmations (src/observe's driftMemoryKey): read before a check, written after it, so
 * that the next report says new, still or resolved. A stack with nothing left to report has no
 * record (removed once its drift is resolved); a stack that could not be checked keeps its record.
 */
import { DriftMemory } from "../../observe";
import { driftMemoryKey, type StateStore } from "../../state-backend";

/** The record of `pulumiStack`, or undefined when there is none or it cannot be read. */
export async function readDriftMemory(
  store: StateStore,
  project: string,
  pulumiStack: string,
): Promise<DriftMemory | undefined> {
  const text = await store.read(driftMemoryKey(project, pulumiStack));
  if (text === undefined) return undefined;
  try {
    const parsed = DriftMemory.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined; // unreadable: as if nothing had been reported
  }
}

/**
 * Keeps `next` as the record of `pulumiStack`: written when it holds drift, removed when it holds
 * none and a record was there (`before`), untouched otherwise (no write for a clean stack).
 */
export async function keepDriftMemory(
  store: StateStore,
  project: string,
  pulumiStack: string,
  before: DriftMemory | undefined,
  next: DriftMemory,
): Promise<void> {
  const key = driftMemoryKey(project, pulumiStack);
  if (next.reported.length > 0) await store.write(key, `${JSON.stringify(next, null, 2)}\n`);
  else if (before !== undefined) await store.remove(key);
}
