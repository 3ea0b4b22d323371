import { z } from "zod";
import { readView } from "./read-view";
import { DateTimeText, EnvironmentRef, Id, TextBoolean, listDocument, singleDocument } from "./common";

/** Snapshot modes: everything, the database only, or the assets only. */
export const SNAPSHOT_MODES = ["all", "db", "assets"] as const;
export const SnapshotMode = z.enum(SNAPSHOT_MODES);
export type SnapshotMode = z.infer<typeof SnapshotMode>;

/** True when a snapshot taken with `have` contains what a restore with `want` needs. */
export function snapshotModeCovers(have: SnapshotMode, want: SnapshotMode): boolean {
  return have === "all" || have === want;
}

/** `snapshot_status` values: `pending` while the creating transfer runs. */
export const SNAPSHOT_STATUSES = ["pending", "complete", "failed"] as const;
export const SnapshotStatus = z.enum(SNAPSHOT_STATUSES);
export type SnapshotStatus = z.infer<typeof SnapshotStatus>;
export const FINISHED_SNAPSHOT_STATUSES = ["complete", "failed"] as const satisfies readonly SnapshotStatus[];

const snapshotListAttributes = {
  created: DateTimeText,
  mode: SnapshotMode,
  can_download: TextBoolean,
  can_delete: TextBoolean,
  /** Numeric text; empty while pending. */
  size: z.string(),
  snapshot_status: SnapshotStatus,
};

const snapshotRelationships = z.object({
  source: z.object({ data: z.array(EnvironmentRef) }),
  owner: z.object({ data: z.array(EnvironmentRef) }),
});

/** A snapshot as listed by endpoint 14 (list form), as documented. */
export const DocumentedSnapshotListItem = z.object({
  type: z.literal("snapshots"),
  id: Id,
  attributes: z.object(snapshotListAttributes),
  relationships: snapshotRelationships,
  links: z.object({ download_link: z.string() }),
});
export type SnapshotListItemInput = z.input<typeof DocumentedSnapshotListItem>;
/** A listed snapshot as a client reads it. */
export const SnapshotListItem = readView(DocumentedSnapshotListItem);
export type SnapshotListItem = z.infer<typeof SnapshotListItem>;

/** A snapshot as viewed by endpoint 16 (full form), as documented. */
export const DocumentedSnapshot = z.object({
  type: z.literal("snapshots"),
  id: Id,
  attributes: z.object({
    ...snapshotListAttributes,
    is_backup: z.boolean(),
    is_manual_upload: z.boolean(),
    notes: z.string().nullable(),
  }),
  relationships: snapshotRelationships,
  links: z.object({ download_link: z.string() }),
});
export type SnapshotInput = z.input<typeof DocumentedSnapshot>;
/** A snapshot as a client reads it. */
export const Snapshot = readView(DocumentedSnapshot);
export type Snapshot = z.infer<typeof Snapshot>;

/** Endpoint 14. */
export const SnapshotListDocument = listDocument(DocumentedSnapshotListItem);
export type SnapshotListDocument = z.infer<typeof SnapshotListDocument>;
export const SnapshotReadListDocument = readView(SnapshotListDocument);

/** Endpoint 16. */
export const SnapshotDocument = singleDocument(DocumentedSnapshot);
export type SnapshotDocument = z.infer<typeof SnapshotDocument>;
export const SnapshotReadDocument = readView(SnapshotDocument);

/** Body of endpoint 15 (create a snapshot). */
export const CreateSnapshotRequest = z.strictObject({
  environment: z.string().min(1),
  mode: SnapshotMode,
  include_resampled: z.boolean().optional(),
  notes: z.string().optional(),
});
export type CreateSnapshotRequest = z.infer<typeof CreateSnapshotRequest>;

/** Body of endpoint 17 (restore a snapshot into an environment). */
export const RestoreSnapshotRequest = z.strictObject({
  environment: z.string().min(1),
  mode: SnapshotMode,
  skip_build: z.boolean().optional(),
  backup_existing_data: z.boolean().optional(),
});
export type RestoreSnapshotRequest = z.infer<typeof RestoreSnapshotRequest>;
