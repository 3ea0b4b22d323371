/**
 * The lock flags of every command that updates a stack (`--lock-wait`, `--stale-lock-after`) and
 * the policy they make, which the lock guard (state/lock-guard.ts) applies.
 */
import { flag } from "./args";

/** How a run treats other runs' locks. */
export interface LockPolicy {
  /** How long to wait for a live owner's lock to go; 0: fail at once. */
  readonly lockWaitMs: number;
  /** Locks of another host older than this are abandoned; undefined: never judged by age. */
  readonly staleAfterMs: number | undefined;
}

/** The lock flags of every command that updates a stack (durations, read into milliseconds). */
export const lockFlags = {
  "lock-wait": flag.duration(
    "how long to wait for another run's lock on the stack, e.g. 10m (default: fail at once)",
  ),
  "stale-lock-after": flag.duration(
    "remove another host's lock older than this, e.g. 2h (default: never; this host's locks are removed when their process is gone)",
  ),
};

/** The lock policy of the parsed flags. */
export function lockPolicyOf(flags: {
  readonly "lock-wait"?: number | undefined;
  readonly "stale-lock-after"?: number | undefined;
}): LockPolicy {
  return { lockWaitMs: flags["lock-wait"] ?? 0, staleAfterMs: flags["stale-lock-after"] };
}
