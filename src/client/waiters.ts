/**
 * Waiters: poll an object until it reaches a terminal state, with a quick first poll, a growing
 * capped interval, an AbortSignal, an overall bound and a progress callback. The engine
 * ({@link waitUntil}) and the schedule ({@link pollDelay}) are independent of HTTP; the
 * `waitFor*` functions bind them to the API.
 */
import { setTimeout as sleepTimer } from "node:timers/promises";
import {
  FAILED_DEPLOYMENT_STATES,
  SUCCESSFUL_DEPLOYMENT_STATES,
  type Deployment,
  type DeploymentState,
  type FetchStatus,
  type GitFetch,
  type Snapshot,
  type SnapshotStatus,
  type Transfer,
  type TransferStatus,
} from "../api";
import type { PollPolicy } from "./defaults";
import { AbortedError, ApiError, WaitFailedError, WaitTimeoutError } from "./errors";
import { needAttributes } from "./needs";

/** Where a polled object stands. */
export type WaitPhase = "pending" | "succeeded" | "failed";

/** One progress report, given after every poll. */
export interface WaitProgress {
  /** What is being waited for, e.g. `deployment 42 on acme-web/uat`. */
  subject: string;
  /** The state just seen. */
  state: string;
  /** Polls made so far (1 after the first). */
  polls: number;
  /** Milliseconds since the wait began. */
  elapsedMs: number;
}

/** Options of every waiter; unset fields fall back to the client's `poll` settings. */
export interface WaitOptions extends Partial<PollPolicy> {
  /** Stops the wait with AbortedError. */
  signal?: AbortSignal | undefined;
  /** Called after every poll, e.g. to print a progress line during long waits. */
  onProgress?: ((progress: WaitProgress) => void) | undefined;
}

/** Clock used by the engine; injectable so unit tests never sleep for real. */
export interface WaitClock {
  now(): number;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

const realClock: WaitClock = {
  now: () => performance.now(),
  sleep: (ms, signal) => sleepTimer(ms, undefined, { signal }),
};

/**
 * Delay before poll number `poll` (0-based): `firstPollMs` for the first, then `intervalMs`
 * growing by `multiplier` per poll up to `maxIntervalMs`.
 */
export function pollDelay(poll: number, policy: PollPolicy): number {
  if (poll <= 0) return policy.firstPollMs;
  return Math.min(policy.maxIntervalMs, policy.intervalMs * policy.multiplier ** (poll - 1));
}

const SUCCEEDED: readonly DeploymentState[] = SUCCESSFUL_DEPLOYMENT_STATES;
const FAILED: readonly DeploymentState[] = FAILED_DEPLOYMENT_STATES;

/** Decisions: which phase each state means. Pure; exported for tests and providers. */
export function deploymentPhase(state: DeploymentState): WaitPhase {
  if (SUCCEEDED.includes(state)) return "succeeded";
  if (FAILED.includes(state)) return "failed";
  return "pending";
}

/** Phase of a transfer status (Finished succeeds, Failed fails). */
export function transferPhase(status: TransferStatus): WaitPhase {
  return status === "Finished" ? "succeeded" : status === "Failed" ? "failed" : "pending";
}

/** Phase of a fetch status (Complete succeeds, Failed fails). */
export function fetchPhase(status: FetchStatus): WaitPhase {
  return status === "Complete" ? "succeeded" : status === "Failed" ? "failed" : "pending";
}

/** Phase of a snapshot status (complete succeeds, failed fails). */
export function snapshotPhase(status: SnapshotStatus): WaitPhase {
  return status === "complete" ? "succeeded" : status === "failed" ? "failed" : "pending";
}

/** What {@link waitUntil} needs to know about the object. */
export interface WaitTarget<T> {
  subject: string;
  /** Reads the object once; receives a signal that fires on abort or on the overall bound. */
  poll(signal: AbortSignal): Promise<T>;
  state(value: T): string;
  phase(value: T): WaitPhase;
  /** Link for failure messages. */
  link?(value: T): string | undefined;
}

/**
 * Polls until the target succeeds (returns it), fails (WaitFailedError), the bound passes
 * (WaitTimeoutError stating the bound in ms and the last state) or the signal fires
 * (AbortedError). A poll in flight when the bound passes is cancelled, so the bound holds even
 * when the server stops answering.
 */
export async function waitUntil<T>(
  target: WaitTarget<T>,
  policy: PollPolicy,
  options: Pick<WaitOptions, "signal" | "onProgress"> = {},
  clock: WaitClock = realClock,
): Promise<T> {
  const started = clock.now();
  const bound = new AbortController();
  const timer = setTimeout(() => bound.abort(), policy.timeoutMs);
  timer.unref();
  const signal =
    options.signal === undefined ? bound.signal : AbortSignal.any([bound.signal, options.signal]);
  let lastState: string | undefined;
  const timedOut = () =>
    new WaitTimeoutError(
      `Gave up waiting for ${target.subject} after ${policy.timeoutMs} ms (timeoutMs); ` +
        `last state seen: ${lastState ?? "none (no poll completed)"}`,
      { timeoutMs: policy.timeoutMs, lastState },
    );
  const stopped = (): ApiError =>
    options.signal?.aborted === true
      ? new AbortedError(
          `Stopped waiting for ${target.subject}: aborted (last state: ${lastState ?? "none"})`,
        )
      : timedOut();
  try {
    for (let poll = 0; ; poll++) {
      const remaining = policy.timeoutMs - (clock.now() - started);
      if (remaining <= 0) throw timedOut();
      try {
        await clock.sleep(Math.min(pollDelay(poll, policy), remaining), signal);
      } catch {
        throw stopped();
      }
      if (signal.aborted) throw stopped();
      let value: T;
      try {
        value = await target.poll(signal);
      } catch (error) {
        if (signal.aborted) throw stopped();
        throw error;
      }
      lastState = target.state(value);
      options.onProgress?.({
        subject: target.subject,
        state: lastState,
        polls: poll + 1,
        elapsedMs: Math.round(clock.now() - started),
      });
      const phase = target.phase(value);
      if (phase === "succeeded") return value;
      if (phase === "failed") {
        const link = target.link?.(value);
        throw new WaitFailedError(
          `${target.subject} ended in state ${lastState}${link === undefined ? "" : ` (${link})`}`,
          { state: lastState, link },
        );
      }
      if (clock.now() - started >= policy.timeoutMs) throw timedOut();
    }
  } finally {
    clearTimeout(timer);
  }
}

/** Merges per-call overrides into the client's poll policy. */
export function resolvePoll(base: PollPolicy, options: WaitOptions): PollPolicy {
  return {
    firstPollMs: options.firstPollMs ?? base.firstPollMs,
    intervalMs: options.intervalMs ?? base.intervalMs,
    multiplier: options.multiplier ?? base.multiplier,
    maxIntervalMs: options.maxIntervalMs ?? base.maxIntervalMs,
    timeoutMs: options.timeoutMs ?? base.timeoutMs,
  };
}

/** Readers the API-bound waiters need (satisfied by the client's resource modules). */
export interface WaitReaders {
  getDeployment(stack: string, environment: string, id: string, signal: AbortSignal): Promise<Deployment>;
  getTransfer(stack: string, id: string, signal: AbortSignal): Promise<Transfer>;
  getFetch(stack: string, id: string, signal: AbortSignal): Promise<GitFetch>;
  getSnapshot(stack: string, id: string, signal: AbortSignal): Promise<Snapshot>;
  poll: PollPolicy;
}

/** Waits until a deployment is Completed; Failed, Invalid, Rejected or Deleted throw WaitFailedError. */
export function waitForDeployment(
  readers: WaitReaders,
  stack: string,
  environment: string,
  id: string | number,
  options: WaitOptions = {},
): Promise<Deployment> {
  const key = String(id);
  return waitUntil(
    {
      subject: `deployment ${key} on ${stack}/${environment}`,
      poll: async (signal) =>
        needAttributes(
          await readers.getDeployment(stack, environment, key, signal),
          ["state"],
          `cannot tell whether deployment ${key} on ${stack}/${environment} has finished`,
        ),
      state: (d) => d.attributes.state,
      phase: (d) => deploymentPhase(d.attributes.state),
      link: (d) => d.links?.self ?? undefined,
    },
    resolvePoll(readers.poll, options),
    options,
  );
}

/** Waits until a snapshot transfer is Finished; Failed throws WaitFailedError. */
export function waitForTransfer(
  readers: WaitReaders,
  stack: string,
  transferId: string | number,
  options: WaitOptions = {},
): Promise<Transfer> {
  const key = String(transferId);
  return waitUntil(
    {
      subject: `transfer ${key} of ${stack}`,
      poll: async (signal) =>
        needAttributes(
          await readers.getTransfer(stack, key, signal),
          ["status"],
          `cannot tell whether transfer ${key} of ${stack} has finished`,
        ),
      state: (t) => t.attributes.status,
      phase: (t) => transferPhase(t.attributes.status),
      link: (t) => t.links?.self ?? undefined,
    },
    resolvePoll(readers.poll, options),
    options,
  );
}

/** Waits until a git fetch is Complete; Failed throws WaitFailedError. */
export function waitForFetch(
  readers: WaitReaders,
  stack: string,
  fetchId: string | number,
  options: WaitOptions = {},
): Promise<GitFetch> {
  const key = String(fetchId);
  return waitUntil(
    {
      subject: `git fetch ${key} of ${stack}`,
      poll: async (signal) =>
        needAttributes(
          await readers.getFetch(stack, key, signal),
          ["status"],
          `cannot tell whether git fetch ${key} of ${stack} has finished`,
        ),
      state: (f) => f.attributes.status,
      phase: (f) => fetchPhase(f.attributes.status),
      link: (f) => f.links?.self ?? undefined,
    },
    resolvePoll(readers.poll, options),
    options,
  );
}

/** Waits until a snapshot is complete (used after adopting a snapshot by its marker). */
export function waitForSnapshot(
  readers: WaitReaders,
  stack: string,
  snapshotId: string | number,
  options: WaitOptions = {},
): Promise<Snapshot> {
  const key = String(snapshotId);
  return waitUntil(
    {
      subject: `snapshot ${key} of ${stack}`,
      poll: async (signal) =>
        needAttributes(
          await readers.getSnapshot(stack, key, signal),
          ["snapshot_status"],
          `cannot tell whether snapshot ${key} of ${stack} is complete`,
        ),
      state: (s) => s.attributes.snapshot_status,
      phase: (s) => snapshotPhase(s.attributes.snapshot_status),
    },
    resolvePoll(readers.poll, options),
    options,
  );
}
