/** The contract of `Snapshot`: a snapshot of an environment, taken once and waited for. */
import { z } from "zod";
import { SnapshotMode, SnapshotStatus } from "../../src/api";
import { MARKER_INPUTS, PathName, TimeoutSeconds, defineContract } from "./contract";

export const snapshotContract = defineContract({
  type: "Snapshot",
  kind: "snapshot",
  inputs: z.strictObject({
    stack: PathName,
    /** The environment the snapshot is taken from. */
    environment: PathName,
    mode: SnapshotMode,
    include_resampled: z.boolean().optional(),
    /**
     * Free text; the provider appends its marker line. The API cannot edit a snapshot's notes, so
     * a change applies to the next snapshot taken: recorded in place, with no request.
     */
    notes: z.string().optional(),
    /** Bound of the wait in seconds (the one input that does not take a new snapshot). */
    timeout_seconds: TimeoutSeconds.optional(),
    ...MARKER_INPUTS,
  }),
  outputs: z.object({
    /** The platform's snapshot id (use it in SnapshotRestore). */
    snapshot_id: z.string(),
    snapshot_status: SnapshotStatus,
    size: z.string(),
    created: z.string(),
    download_link: z.string(),
    marker: z.string(),
  }),
  // Not `notes`: a new text applies to the next snapshot taken (see `notes` above), so a typo fix
  // in a note never takes a snapshot (nor deletes one).
  replaceKeys: ["stack", "environment", "mode", "include_resampled"],
});
