/** The contract of `SnapshotRestore`: a snapshot restored into an environment, waited for. */
import { z } from "zod";
import { SnapshotMode, TransferStatus } from "../../src/api";
import { NumericId, PathName, TimeoutSeconds, defineContract } from "./contract";

export const snapshotRestoreContract = defineContract({
  type: "SnapshotRestore",
  kind: "snapshotRestore",
  inputs: z.strictObject({
    stack: PathName,
    /** The target environment. */
    environment: PathName,
    /**
     * The snapshot as the stack's file names it: a declared snapshot's logical name, or a numeric
     * snapshot id. It is the restore's own setting; `snapshot_id` is what it stands for now.
     * Optional only for state written before it existed (then `snapshot_id` stands for it).
     */
    snapshot: z.string().min(1).optional(),
    /**
     * The snapshot id to restore (e.g. a Snapshot's `snapshot_id`). A declared snapshot taken
     * anew changes it without running the restore again: the new id is recorded, with no request.
     */
    snapshot_id: NumericId,
    mode: SnapshotMode,
    skip_build: z.boolean().optional(),
    backup_existing_data: z.boolean().optional(),
    /** Must equal `environment`: a restore overwrites the environment's data. */
    confirm: z.string(),
    /** Change to restore again. */
    trigger: z.string().optional(),
    /** Bound of the wait in seconds (the one input that does not make a new restore). */
    timeout_seconds: TimeoutSeconds.optional(),
  }),
  outputs: z.object({
    transfer_id: z.string(),
    status: TransferStatus,
    /** The snapshot id the restore ran with; kept when `snapshot_id` later moves on. */
    restored_snapshot_id: z.string(),
  }),
  replaceKeys: [
    "stack",
    "environment",
    "snapshot",
    "mode",
    "skip_build",
    "backup_existing_data",
    "confirm",
    "trigger",
  ],
});
