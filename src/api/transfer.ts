import { z } from "zod";
import { readView } from "./read-view";
import { EnvironmentRef, Id, SelfLinks, SnapshotRef, singleDocument } from "./common";
import { SnapshotMode } from "./snapshot";

/** Transfer statuses: `n/a` when queued, then Started/Running, then Finished or Failed. */
export const TRANSFER_STATUSES = ["n/a", "Started", "Running", "Finished", "Failed"] as const;
export const TransferStatus = z.enum(TRANSFER_STATUSES);
export type TransferStatus = z.infer<typeof TransferStatus>;
export const FINISHED_TRANSFER_STATUSES = ["Finished", "Failed"] as const satisfies readonly TransferStatus[];
/** True when a transfer status is terminal. */
export function isTransferFinished(status: TransferStatus): boolean {
  const finished: readonly TransferStatus[] = FINISHED_TRANSFER_STATUSES;
  return finished.includes(status);
}

export const TRANSFER_DIRECTIONS = ["create", "restore"] as const;
export const TransferDirection = z.enum(TRANSFER_DIRECTIONS);
export type TransferDirection = z.infer<typeof TransferDirection>;

/** A running or finished snapshot operation, type `transfers` (numeric id on the wire), as documented. */
export const DocumentedTransfer = z.object({
  type: z.literal("transfers"),
  id: Id,
  attributes: z.object({
    status: TransferStatus,
    direction: TransferDirection,
    mode: SnapshotMode,
    /** Present for `create` transfers. */
    include_resampled: z.boolean().optional(),
    /** Present for `restore` transfers. */
    skip_build: z.boolean().optional(),
  }),
  relationships: z.object({
    /** Null for a create transfer still running. */
    snapshot: z.object({ data: SnapshotRef.nullable() }),
    environment: z.object({ data: EnvironmentRef }),
  }),
  links: SelfLinks,
});
export type TransferInput = z.input<typeof DocumentedTransfer>;
/** A transfer as a client reads it. */
export const Transfer = readView(DocumentedTransfer);
export type Transfer = z.infer<typeof Transfer>;

/** Endpoints 15, 17, 19. */
export const TransferDocument = singleDocument(DocumentedTransfer);
export type TransferDocument = z.infer<typeof TransferDocument>;
export const TransferReadDocument = readView(TransferDocument);

/** Statuses of a transfer's log (the platform's words, unlike the transfer's own `status`). */
export const TRANSFER_LOG_STATUSES = ["Queued", "Running", "Complete", "Failed"] as const;
export const TransferLogStatus = z.enum(TRANSFER_LOG_STATUSES);
export type TransferLogStatus = z.infer<typeof TransferLogStatus>;
/** Log statuses after which the log no longer grows. */
export const FINISHED_TRANSFER_LOG_STATUSES = [
  "Complete",
  "Failed",
] as const satisfies readonly TransferLogStatus[];

/** `GET /svc/project/{project}/snapshots/transfer/{id}/log`: the status and the log text so far. */
export const DocumentedTransferLog = z.object({ status: TransferLogStatus, content: z.string() });
/** The transfer log as a client reads it. */
export const TransferLog = readView(DocumentedTransferLog);
export type TransferLog = z.infer<typeof TransferLog>;
