/** The contract of `EnvironmentLock`: an environment's lock as Stackwright manages it. */
import { z } from "zod";
import { PathName, defineContract } from "./contract";

export const environmentLockContract = defineContract({
  type: "EnvironmentLock",
  kind: "environmentLock",
  inputs: z.strictObject({
    /** Replaces when changed. */
    stack: PathName,
    /** Replaces when changed. */
    environment: PathName,
    /** Why the environment is locked; a change re-locks in place. */
    message: z.string().optional(),
    /**
     * Whether the environment should be locked (default true). `false` unlocks it in place, as an
     * update that can be ordered before the environment's deployment; an environment this resource
     * never locked is not touched.
     */
    locked: z.boolean().optional(),
    /**
     * The environment's snapshots and restores, each named with the inputs that make a new one. A
     * name that appears while the lock stays fails the preview, naming the lock: the platform would
     * refuse that work.
     */
    holds: z.array(z.string()).optional(),
  }),
  outputs: z.object({ locked: z.boolean(), lock_message: z.string() }),
  replaceKeys: ["stack", "environment"],
});
