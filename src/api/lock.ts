import { z } from "zod";
import { Id, singleDocument } from "./common";

/** An environment lock, type `environmentlock`; `id` is `<project_id>:<environment_id>`. */
export const EnvironmentLock = z.object({
  type: z.literal("environmentlock"),
  id: Id,
  attributes: z.object({
    locked: z.boolean(),
    lock_message: z.string(),
  }),
});
export type EnvironmentLock = z.infer<typeof EnvironmentLock>;
export type EnvironmentLockInput = z.input<typeof EnvironmentLock>;

/** Endpoint 20. */
export const EnvironmentLockDocument = singleDocument(EnvironmentLock);
export type EnvironmentLockDocument = z.infer<typeof EnvironmentLockDocument>;

/** Body of endpoint 20: `{lock_message?}`. */
export const LockRequest = z.strictObject({ lock_message: z.string().optional() });
export type LockRequest = z.infer<typeof LockRequest>;
