/**
 * The confirmation record of a per-file stack: what its last no-change engine run proved, kept in
 * the stack's own backend next to its checkpoint (`.pulumi/stackwright/confirmations/<project>/
 * <stack>.json`, a place Pulumi never reads). It holds digests only: of the run's inputs, of the
 * checkpoint as that run left it, and of every data-source answer the program read. No setting,
 * token or answer is stored in clear. See docs/state.md, "Confirmed without the engine".
 */
import { createHash } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { z } from "zod";
import { DataRead } from "../../api";
import { isLockKey, lockDirectory } from "./locks";
import { checkpointKey } from "./new-stack";
import type { StateStore } from "./store";

const Hex64 = z.string().regex(/^[0-9a-f]{64}$/);

/** The inputs of a run, each part as a digest (so the record says which part changed). */
export const InputDigests = z.strictObject({
  /** The API stack's file bytes and its parsed configuration. */
  file: Hex64,
  /** The target's settings file and the environment variables the program reads (values hashed). */
  settings: Hex64,
  /** Package version and lock, the built program (dist/), Pulumi SDK and CLI versions. */
  tool: Hex64,
  /** The Pulumi stack, the operation and the flags that change what it does. */
  flags: Hex64,
});
export type InputDigests = z.infer<typeof InputDigests>;

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

/** Where the record of `stack` lives in the backend. */
export function confirmationKey(project: string, stack: string): string {
  return `.pulumi/stackwright/confirmations/${project}/${stack}.json`;
}

/** The checkpoint as the backend holds it: its digest and how many operations it left pending. */
export interface CheckpointIdentity {
  readonly digest: string;
  readonly pendingOperations: number;
}

const Checkpoint = z.object({
  checkpoint: z.object({
    latest: z.object({ pending_operations: z.array(z.unknown()).optional() }).nullish(),
  }),
});

/**
 * The stack's checkpoint identity, or undefined when it has none or it cannot be read as a
 * checkpoint (then nothing about it can be proven). Pulumi writes `<stack>.json`, or
 * `<stack>.json.gz` when the backend compresses.
 */
export async function checkpointIdentity(
  store: StateStore,
  project: string,
  stack: string,
): Promise<CheckpointIdentity | undefined> {
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
      const parsed = Checkpoint.safeParse(JSON.parse(text));
      if (!parsed.success) return undefined;
      return { digest, pendingOperations: parsed.data.checkpoint.latest?.pending_operations?.length ?? 0 };
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** True when some run holds (or left) the stack's Pulumi lock (a lock file, not its attributes). */
export async function stackIsLocked(store: StateStore, project: string, stack: string): Promise<boolean> {
  return (await store.list(lockDirectory(project, stack))).some((o) => isLockKey(o.key));
}

/** The record, or undefined when there is none or it is not one this version reads. */
export async function readConfirmation(
  store: StateStore,
  project: string,
  stack: string,
): Promise<Confirmation | undefined> {
  const text = await store.read(confirmationKey(project, stack));
  if (text === undefined) return undefined;
  try {
    const parsed = Confirmation.safeParse(JSON.parse(text));
    return parsed.success && parsed.data.stack === stack ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

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

/**
 * Where an `up` of `stack` marks itself unfinished: written before its engine starts, removed
 * once it succeeded and left the state steady. Found by the next run, it says the last run was
 * killed or failed, so that run proves the steady state before it ends (run-stack.ts).
 */
export function unfinishedKey(project: string, stack: string): string {
  return `.pulumi/stackwright/unfinished/${project}/${stack}.json`;
}

/** True when the last `up` of the stack did not finish (killed) or did not succeed. */
export async function lastUpUnfinished(store: StateStore, project: string, stack: string): Promise<boolean> {
  return (await store.read(unfinishedKey(project, stack))) !== undefined;
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
