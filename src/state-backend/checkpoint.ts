/**
 * The one reader of a stack's checkpoint, as Pulumi's DIY backend writes it: `<stack>.json`, or
 * `<stack>.json.gz` when the backend compresses. A zstd checkpoint is not parsed here (Node has no
 * zstd before 23.8); it still counts as a stack that exists ({@link hasCheckpoint}).
 */
import { createHash } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { z } from "zod";
import { checkpointKeys } from "./keys";
import type { StateReader } from "./store";

/** The checkpoint as the backend holds it: its digest and how many operations it left pending. */
export interface CheckpointIdentity {
  readonly digest: string;
  readonly pendingOperations: number;
}

/** A resource of a checkpoint, as far as its readers need it. */
const CheckpointResource = z.looseObject({
  urn: z.string(),
  type: z.string(),
  inputs: z.record(z.string(), z.unknown()).optional(),
  outputs: z.record(z.string(), z.unknown()).optional(),
});
export type CheckpointResource = z.infer<typeof CheckpointResource>;

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
  readonly resources: readonly CheckpointResource[];
  /** When the engine last wrote the stack's state (ISO 8601), if it says. */
  readonly writtenAt: string | undefined;
  /** False for a stack that was made but never updated. */
  readonly updated: boolean;
  /**
   * The latest deployment as the engine wrote it (`checkpoint.latest`, every member kept), for
   * the CLI's repairs that read what this reader does not (pending creates); null when none.
   */
  readonly latest: Record<string, unknown> | null;
}

/** The stack's checkpoint, or undefined when it has none or it cannot be read as a checkpoint. */
export async function readCheckpoint(
  store: StateReader,
  project: string,
  stack: string,
): Promise<Checkpoint | undefined> {
  const keys = checkpointKeys(project, stack);
  for (const [key, gz] of [
    [keys.plain, false],
    [keys.gzip, true],
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
        latest: latest ?? null,
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

/** True when the backend has a checkpoint for the stack, plain, gzip or zstd: the stack exists. */
export async function hasCheckpoint(store: StateReader, project: string, stack: string): Promise<boolean> {
  const keys = checkpointKeys(project, stack);
  for (const key of [keys.plain, keys.gzip, keys.zstd]) {
    if ((await store.readBytes(key)) !== undefined) return true;
  }
  return false;
}
