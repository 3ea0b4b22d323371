/**
 * Runs one engine operation that takes the stack's lock (up, refresh, destroy) so that a lock is
 * never a dead end: a lock left by an owner that is provably gone is removed first (and said so);
 * a lock held by a live owner is waited for up to `--lock-wait` (default: not at all), then
 * reported as "stack X is being updated by HOST pid N since T" instead of Pulumi's text.
 */
import {
  formatAge,
  describeHolder,
  localJudge,
  lockDirectory,
  readLocks,
  removeOrphanAttributes,
  removeStaleLocks,
  type LockJudge,
} from "./locks";
import { CliError, isSdkError } from "../kit/exit-codes";
import { commandLine } from "../../project/invocation";
import type { LockPolicy } from "../kit/lock-flags";
import type { LockTarget } from "../../project/lock-target";

export type { LockPolicy };

export type { LockTarget } from "../../project/lock-target";

/** The stack stayed locked by a live owner for longer than the run would wait. */
export class StackLockedError extends CliError {
  constructor(message: string) {
    super("locked", message);
    this.name = "StackLockedError";
  }
}

export interface GuardHooks {
  /** Where notes go (a removed stale lock, a wait): the command's stderr. */
  readonly log: (line: string) => void;
  /** The judge of this machine; tests give their own. */
  readonly judge?: () => LockJudge;
  /** Waits `ms`; tests may shorten it. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** The time; tests may move it. */
  readonly now?: () => number;
  /** Told of each stale lock removed: whose it was, and why it was judged stale (notifications). */
  readonly onRecovered?: (holder: string, reason: string) => void;
  /** A stop (engine/interrupt.ts): the wait for another run's lock ends with its reason. */
  readonly signal?: AbortSignal;
}

const POLL_MS = 1_000;

/** Removes the stack's provably abandoned locks, printing each with its reason. */
export async function recoverStaleLocks(
  target: LockTarget,
  policy: LockPolicy,
  hooks: GuardHooks,
): Promise<number> {
  const log = hooks.log;
  const judge = (hooks.judge ?? (() => localJudge(policy.staleAfterMs)))();
  const { removed } = await removeStaleLocks(target.store, target.project, target.stack, judge);
  for (const { lock, reason } of removed) {
    hooks.onRecovered?.(describeHolder(target.stack, lock), reason);
    log(
      `stackwright: removed a stale lock: ${describeHolder(target.stack, lock)}, but ${reason} (${lock.key})`,
    );
  }
  const orphans = await removeOrphanAttributes(target.store, target.project, target.stack);
  if (orphans > 0) {
    log(
      `stackwright: removed ${orphans} attributes file(s) of lock(s) already gone from ${lockDirectory(target.project, target.stack)}`,
    );
  }
  return removed.length;
}

/**
 * Runs `operation`, which fails with the Automation API's ConcurrentUpdateError while another run
 * holds the lock. Stale locks are recovered before the first attempt and after every refusal.
 */
export async function withStackLock<T>(
  target: LockTarget,
  policy: LockPolicy,
  operation: () => Promise<T>,
  hooks: GuardHooks,
): Promise<T> {
  const sleep = hooks.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const now = hooks.now ?? Date.now;
  const log = hooks.log;
  const started = now();
  const deadline = started + policy.lockWaitMs;
  await recoverStaleLocks(target, policy, hooks);
  let said = false;
  for (;;) {
    try {
      return await operation();
    } catch (err) {
      // Asked without loading the SDK: a run that ends before its engine never loads it.
      if (!isSdkError(err, "ConcurrentUpdateError")) throw err;
    }
    if ((await recoverStaleLocks(target, policy, hooks)) > 0) continue;
    // Wait (bounded by the deadline) until the live owner lets go, then try again.
    for (;;) {
      const locks = await readLocks(target.store, target.project, target.stack);
      const left = deadline - now();
      const first = locks[0];
      if (first === undefined && left > 0) break;
      if (left <= 0) {
        const waited =
          policy.lockWaitMs === 0
            ? "--lock-wait is not set, so the run did not wait"
            : `waited ${formatAge(now() - started)} (--lock-wait ${formatAge(policy.lockWaitMs)})`;
        const holder =
          first === undefined
            ? `stack ${target.stack} was locked by another update, which has just ended`
            : describeHolder(target.stack, first);
        throw new StackLockedError(
          `${holder}; ${waited}. Run again when that update ends (or with a longer --lock-wait); ` +
            `if that process is gone, '${commandLine(`unlock ${target.stack}`)}' removes its lock.`,
        );
      }
      if (!said && first !== undefined) {
        log(
          `stackwright: ${describeHolder(target.stack, first)}; waiting up to ${formatAge(left)} (--lock-wait)`,
        );
        said = true;
      }
      // Jittered so that two waiting runs do not retry in step.
      await untilAborted(sleep(Math.min(left, POLL_MS * (0.8 + Math.random() * 0.4))), hooks.signal);
    }
  }
}

/** `wait`, or the signal's reason as soon as it is aborted. */
function untilAborted(wait: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return wait;
  signal.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
    void wait.then(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    });
  });
}
