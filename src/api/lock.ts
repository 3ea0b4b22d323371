import { z } from "zod";
import { readView } from "./read-view";
import { Id, singleDocument } from "./common";

/** An environment lock, type `environmentlock`; `id` is `<project_id>:<environment_id>`. */
export const DocumentedEnvironmentLock = z.object({
  type: z.literal("environmentlock"),
  id: Id,
  attributes: z.object({
    locked: z.boolean(),
    lock_message: z.string(),
  }),
});
export type EnvironmentLockInput = z.input<typeof DocumentedEnvironmentLock>;
/** A lock as a client reads it. */
export const EnvironmentLock = readView(DocumentedEnvironmentLock);
export type EnvironmentLock = z.infer<typeof EnvironmentLock>;

/** Endpoint 20. */
export const EnvironmentLockDocument = singleDocument(DocumentedEnvironmentLock);
export type EnvironmentLockDocument = z.infer<typeof EnvironmentLockDocument>;
export const EnvironmentLockReadDocument = readView(EnvironmentLockDocument);

/** Body of endpoint 20: `{lock_message?}`. */
export const LockRequest = z.strictObject({ lock_message: z.string().optional() });
export type LockRequest = z.infer<typeof LockRequest>;
