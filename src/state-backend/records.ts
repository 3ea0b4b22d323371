/**
 * The state backend as the observe layer reads it, and the layout both it and the CLI use: where
 * Pulumi's DIY backend keeps a stack's checkpoint, lock and history, and where Stackwright keeps
 * its own records beside them (the confirmation of a no-change run, the drift memory). Reading
 * only: the CLI writes (src/cli/state), through a store that also satisfies {@link StateReader}.
 */
import { createHash } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { z } from "zod";
import { DataRead } from "../api";

/** The part of a state store this layer uses: list and read objects by key. */
export interface StateReader {
  /** The backend, for messages (no credentials). */
  readonly description: string;
  list(prefix: string): Promise<readonly { readonly key: string }[]>;
  read(key: string): Promise<string | undefined>;
  readBytes(key: string): Promise<Uint8Array | undefined>;
}

/** Where the backend keeps the stack's checkpoint (project mode), without compression suffix. */
export function checkpointKey(project: string, stack: string): string {
  return `.pulumi/stacks/${project}/${stack}.json`;
}

/** Where Pulumi keeps the locks of a project-scoped stack (DIY backend, project mode). */
export function lockDirectory(project: string, stack: string): string {
  return `.pulumi/locks/organization/${project}/${stack}`;
}

/** The directory of the stack's update history (one `<stack>-<ns>.history.json` per update). */
export function historyDirectory(project: string, stack: string): string {
  return `.pulumi/history/${project}/${stack}`;
}

/** Where the confirmation record of `stack` lives in the backend. */
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

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

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

/** True for the key of a lock file (`<id>.json`), not of its attributes (`<id>.json.attrs`). */
export function isLockKey(key: string): boolean {
  return key.endsWith(".json");
}

/** The checkpoint as the backend holds it: its digest and how many operations it left pending. */
export interface CheckpointIdentity {
  readonly digest: string;
  readonly pendingOperations: number;
}

/** A resource of a checkpoint, as far as this layer reads it. */
const CheckpointResource = z.looseObject({
  urn: z.string(),
  type: z.string(),
  outputs: z.record(z.string(), z.unknown()).optional(),
});
const CheckpointDocument = z.looseObject({
  checkpoint: z.looseObject({
    latest: z
      .looseObject({
        manifest: z.looseObject({ time: z.string().optional() }).optional(),
        resources: z.array(CheckpointResource).nullish(),
        pending_operations: z.array(z.unknown()).nullish(),
      })
      .nullish(),
  }),
});

/** A checkpoint read whole: its identity and its latest deployment, or undefined when it has none. */
export interface Checkpoint extends CheckpointIdentity {
  readonly resources: readonly z.infer<typeof CheckpointResource>[];
  /** When the engine last wrote the stack's state (ISO 8601), if it says. */
  readonly writtenAt: string | undefined;
  /** False for a stack that was made but never updated. */
  readonly updated: boolean;
}

/**
 * The stack's checkpoint, or undefined when it has none or it cannot be read as a checkpoint.
 * Pulumi writes `<stack>.json`, or `<stack>.json.gz` when the backend compresses.
 */
export async function readCheckpoint(
  store: StateReader,
  project: string,
  stack: string,
): Promise<Checkpoint | undefined> {
  const base = checkpointKey(project, stack);
  for (const [key, gz] of [
    [base, false],
    [`${base}.gz`, true],
  ] as const) {
    const bytes = await store.readBytes(key);
    if (bytes === undefined) continue;
    const digest = createHash("sha256").update(bytes).digest("hex");
    try {
      const text = (gz ? gunzipSync(bytes) : Buffer.from(bytes)).toString("utf8");
      const parsed = CheckpointDocument.safeParse(JSON.parse(text));
      if (!parsed.success) return undefined;
      const latest = parsed.data.checkpoint.latest;
      return {
        digest,
        pendingOperations: latest?.pending_operations?.length ?? 0,
        resources: latest?.resources ?? [],
        writtenAt: latest?.manifest?.time,
        updated: latest !== null && latest !== undefined,
      };
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The stack's checkpoint identity (see {@link readCheckpoint}). */
export async function checkpointIdentity(
  store: StateReader,
  project: string,
  stack: string,
): Promise<CheckpointIdentity | undefined> {
  const checkpoint = await readCheckpoint(store, project, stack);
  return checkpoint === undefined
    ? undefined
    : { digest: checkpoint.digest, pendingOperations: checkpoint.pendingOperations };
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
