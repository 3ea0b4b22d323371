/**
 * The lock flags of every command that updates a stack (`--lock-wait`, `--stale-lock-after`) and
 * the policy they make, which the lock guard (state/lock-guard.ts) applies.
 */
import { parseDuration } from "../../config";
import { UsageError, type FlagSpec } from "./args";

/** How a run treats other runs' locks. */
export interface LockPolicy {
  /** How long to wait for a live owner's lock to go; 0: fail at once. */
  readonly lockWaitMs: number;
  /** Locks of another host older than this are abandoned; undefined: never judged by age. */
  readonly staleAfterMs: number | undefined;
}

/** The lock flags of every command that updates a stack. */
export const lockFlags = {
  "lock-wait": {
    type: "string",
    help: "how long to wait for another run's lock on the stack, e.g. 10m (default: fail at once)",
  },
  "stale-lock-after": {
    type: "string",
    help: "remove another host's lock older than this, e.g. 2h (default: never; this host's locks are removed when their process is gone)",
  },
} satisfies FlagSpec;

function durationFlag(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = parseDuration(value);
  if (!parsed.ok) throw new UsageError(`--${name} ${parsed.message}`);
  return parsed.seconds * 1000;
}

/** The lock policy of the parsed flags. */
export function lockPolicyOf(flags: { "lock-wait"?: string; "stale-lock-after"?: string }): LockPolicy {
  return {
    lockWaitMs: durationFlag("lock-wait", flags["lock-wait"]) ?? 0,
    staleAfterMs: durationFlag("stale-lock-after", flags["stale-lock-after"]),
  };
}
