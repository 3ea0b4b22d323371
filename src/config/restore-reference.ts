import { isNumericIdText } from "../api/ids";
import type { RestoreConfig, SnapshotConfig, StackConfig } from "./schema";

/** What a restore's `snapshot` refers to: a snapshot declared in the same file, or a platform id. */
export type RestoreSnapshotReference =
  | {
      readonly kind: "declared";
      /** The environment whose `snapshots` declares it (take it before restoring). */
      readonly environment: string;
      /** The logical name. */
      readonly name: string;
      readonly snapshot: SnapshotConfig;
    }
  | { readonly kind: "id"; readonly id: string };

/**
 * Resolves a restore's `snapshot` within its stack. A validated config always resolves; the
 * program uses a `declared` result to order the snapshot before the restore (and feed its id).
 * Throws only when given a stack that did not pass validation.
 */
export function resolveRestoreSnapshot(stack: StackConfig, restore: RestoreConfig): RestoreSnapshotReference {
  if (isNumericIdText(restore.snapshot)) return { kind: "id", id: restore.snapshot };
  for (const [environment, settings] of Object.entries(stack.environments)) {
    const snapshot = settings.snapshots[restore.snapshot];
    if (snapshot !== undefined) return { kind: "declared", environment, name: restore.snapshot, snapshot };
  }
  throw new Error(
    `restore refers to snapshot '${restore.snapshot}', which stack '${stack.stack}' does not declare (validate the config first)`,
  );
}
