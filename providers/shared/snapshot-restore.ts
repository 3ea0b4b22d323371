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
    /** The snapshot to restore (e.g. a Snapshot's `snapshot_id`). */
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
  outputs: z.object({ transfer_id: z.string(), status: TransferStatus }),
  replaceKeys: [
    "stack",
    "environment",
    "snapshot_id",
    "mode",
    "skip_build",
    "backup_existing_data",
    "confirm",
    "trigger",
  ],
});
