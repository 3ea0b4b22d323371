/**
 * Stackwright's own records in the state backend, and what it reads of Pulumi's history and
 * locks: the confirmation of a no-change run, the mark of an unfinished `up`, whether a lock is
 * held, the last run the history records. Reading only: the CLI writes them (src/cli/state).
 */
import { z } from "zod";
import { DataRead } from "../api";
import { confirmationKey, historyDirectory, isLockKey, lockDirectory, unfinishedKey } from "./keys";
import type { StateReader } from "./store";
import { parseJson } from "./json";

const Hex64 = z.string().regex(/^[0-9a-f]{64}$/);

/** The inputs of a run, each part as a digest (so the record says which part changed). */
export const InputDigests = z.strictObject({
  /** The API stack's file bytes and its parsed configuration. */
  file: Hex64,
  /** The target's settings file and the environment variables the program reads (values hashed). */
  settings: Hex64,
  /**
   * The API URL, e-mail and token the environment gives (values hashed). `up` compares them like
   * the rest; `drift` does not, since it makes every recorded read again as its own user.
   */
  credentials: Hex64,
  /** Package version and lock, the built program (dist/), Pulumi SDK and CLI versions. */
  tool: Hex64,
  /** The Pulumi stack, the operation and the flags that change what it does. */
  flags: Hex64,
});
export type InputDigests = z.infer<typeof InputDigests>;

/** What the last no-change engine run of a stack proved (docs/state.md, "Confirmed without the engine"). */
export const Confirmation = z.strictObject({
  version: z.literal(1),
  stack: z.string().min(1),
  inputs: InputDigests,
  /** sha256 of the checkpoint's bytes right after the run (every later engine run changes them). */
  checkpoint: Hex64,
  reads: z.array(DataRead),
  /** When the proving run ended (for people; never compared). */
  provedAt: z.string(),
});
export type Confirmation = z.infer<typeof Confirmation>;

/** The record, or undefined when there is none or it is not one this version reads. */
export async function readConfirmation(
  store: StateReader,
  project: string,
  stack: string,
): Promise<Confirmation | undefined> {
  const text = await store.read(confirmationKey(project, stack));
  if (text === undefined) return undefined;
  const parsed = Confirmation.safeParse(parseJson(text));
  return parsed.success && parsed.data.stack === stack ? parsed.data : undefined;
}

/** True when the last `up` of the stack did not finish (killed) or did not succeed. */
export async function lastUpUnfinished(store: StateReader, project: string, stack: string): Promise<boolean> {
  return (await store.read(unfinishedKey(project, stack))) !== undefined;
}

/** True when some run holds (or left) the stack's Pulumi lock. */
export async function stackIsLocked(store: StateReader, project: string, stack: string): Promise<boolean> {
  return (await store.list(lockDirectory(project, stack))).some((o) => isLockKey(o.key));
}

/** One update of the stack's history, as Pulumi's DIY backend records it. */
const HistoryEntry = z.looseObject({
  kind: z.string(),
  result: z.string().optional(),
  startTime: z.number().optional(),
  endTime: z.number().optional(),
});

/** The stack's last `up` (or other run) as its history records it. */
export interface LastUpdate {
  /** ISO 8601 instant the update ended (or started, while it runs). */
  readonly at: string;
  /** `succeeded`, `failed` or `in-progress`, as Pulumi records it. */
  readonly result: string;
}

/** How many of the newest history entries are read to find the last `up` (refreshes come between). */
const HISTORY_LOOKBACK = 5;

/** The stack's newest `update` in its history, or undefined when it has none. */
export function readLastUpdate(
  store: StateReader,
  project: string,
  stack: string,
): Promise<LastUpdate | undefined> {
  return readLastRun(store, project, stack, ["update"]);
}

/**
 * The stack's newest run of one of `kinds` (`update`, `refresh`, `destroy`, ...) in its history,
 * among its newest {@link HISTORY_LOOKBACK} entries; undefined when there is none.
 */
export async function readLastRun(
  store: StateReader,
  project: string,
  stack: string,
  kinds: readonly string[],
): Promise<LastUpdate | undefined> {
  const entries = (await store.list(historyDirectory(project, stack)))
    .map((o) => ({ key: o.key, at: /-(\d+)\.history\.json$/.exec(o.key)?.[1] }))
    .filter((o): o is { key: string; at: string } => o.at !== undefined)
    .sort((a, b) => (BigInt(b.at) > BigInt(a.at) ? 1 : BigInt(b.at) < BigInt(a.at) ? -1 : 0))
    .slice(0, HISTORY_LOOKBACK);
  for (const entry of entries) {
    const text = await store.read(entry.key);
    const parsed = HistoryEntry.safeParse(text === undefined ? undefined : parseJson(text));
    if (!parsed.success || !kinds.includes(parsed.data.kind)) continue;
    const seconds = parsed.data.endTime ?? parsed.data.startTime;
    if (seconds === undefined) continue;
    return { at: new Date(seconds * 1000).toISOString(), result: parsed.data.result ?? "unknown" };
  }
  return undefined;
}
