/**
 * Follows the platform's log of something a provider waits for (a deployment, a snapshot or a
 * restore transfer): new lines go to the update's output as the wait goes on, each line once and
 * at a bounded rate, and the last lines are kept for the error when the wait fails.
 *
 * The log is read at most once per `minIntervalMs` while the wait polls, and once more at the end.
 * A log that cannot be read never fails the wait: the follower says so once and carries on.
 */

import { ApiError, ErrorCode, type StackwrightClient } from "../../src/client";
import { terminalLines } from "../../src/safe-text";
import { progress } from "./common";

/** Where the lines come from: every line so far (all of them once the object has finished). */
export type LogSource = (signal: AbortSignal) => Promise<readonly string[]>;

/** Bound of one read of a log (the read is extra: it must never hold a failure back for long). */
const READ_BOUND_MS = 10_000;

export interface LogFollowerOptions {
  /** Prefix of each printed line, e.g. `deployment 42 on acme-web/uat`. */
  label: string;
  /** Prints one line (the provider's progress output). */
  emit: (line: string) => void;
  /** Least time between two reads while the wait goes on (default 2 s). */
  minIntervalMs?: number;
  /** Most lines printed per read; older new lines are counted, not printed (default 40). */
  maxLinesPerRead?: number;
  /** Lines kept for a failure message (default 20). */
  tailLines?: number;
  now?: () => number;
}

/** How many lines a failure message carries. */
export const FAILURE_TAIL_LINES = 20;

export class LogFollower {
  readonly #read: LogSource;
  readonly #options: Required<LogFollowerOptions>;
  #seen = 0;
  #tail: string[] = [];
  #lastRead = Number.NEGATIVE_INFINITY;
  #inFlight: Promise<void> | undefined;
  #unreadable = false;

  constructor(read: LogSource, options: LogFollowerOptions) {
    this.#read = read;
    this.#options = {
      minIntervalMs: 2000,
      maxLinesPerRead: 40,
      tailLines: FAILURE_TAIL_LINES,
      now: () => performance.now(),
      ...options,
    };
  }

  /** Called after each poll of the wait: reads the log unless a read is running or was recent. */
  poll(): void {
    if (this.#inFlight !== undefined) return;
    if (this.#options.now() - this.#lastRead < this.#options.minIntervalMs) return;
    this.#inFlight = this.#readOnce().finally(() => {
      this.#inFlight = undefined;
    });
  }

  /** Reads once more after the wait ended (the log is complete then), printing what is new. */
  async finish(): Promise<void> {
    await this.#inFlight;
    await this.#readOnce();
  }

  /** The last lines read (at most `tailLines`), oldest first. */
  tail(): readonly string[] {
    return this.#tail;
  }

  /** `message` followed by the last lines of the log, when there are any. */
  withTail(message: string): string {
    if (this.#tail.length === 0) return message;
    return `${message}\nLast ${this.#tail.length} lines of its log:\n${this.#tail.map((l) => `  ${l}`).join("\n")}`;
  }

  async #readOnce(): Promise<void> {
    this.#lastRead = this.#options.now();
    let lines: readonly string[];
    try {
      lines = await this.#read(AbortSignal.timeout(READ_BOUND_MS));
    } catch (error) {
      if (!this.#unreadable) {
        this.#unreadable = true;
        const reason = error instanceof Error ? error.message : String(error);
        this.#options.emit(`${this.#options.label}: its log could not be read (${reason})`);
      }
      return;
    }
    // A log is only ever appended to; a shorter one (a platform that trims it) starts over.
    if (lines.length < this.#seen) this.#seen = 0;
    // The platform's (and the build's) lines: printed as progress and carried in error messages,
    // each shown, never interpreted, by a terminal.
    const fresh = terminalLines(lines.slice(this.#seen));
    this.#seen = lines.length;
    if (fresh.length === 0) return;
    this.#tail = [...this.#tail, ...fresh].slice(-this.#options.tailLines);
    const shown = fresh.slice(-this.#options.maxLinesPerRead);
    if (shown.length < fresh.length) {
      this.#options.emit(`${this.#options.label} | (${fresh.length - shown.length} log lines not shown)`);
    }
    for (const line of shown) this.#options.emit(`${this.#options.label} | ${line}`);
  }
}

/**
 * The complete lines of a transfer log's text: a last line without its newline is still being
 * written, so it is left for the next read unless the log is finished.
 */
export function transferLogLines(content: string, finished: boolean): string[] {
  const lines = content.split("\n");
  if (!finished || lines[lines.length - 1] === "") lines.pop();
  return lines.filter((line) => line.trim() !== "");
}

/** A log the platform does not have (no such endpoint, or none yet) reads as empty, silently. */
function emptyWhenMissing(error: unknown): readonly string[] {
  if (ApiError.isInstance(error) && error.code === ErrorCode.NotFound) return [];
  throw error;
}

/** Follows a deployment's log (`GET .../deploys/log/{id}`), printing as progress lines. */
export function followDeployment(
  client: StackwrightClient,
  stack: string,
  environment: string,
  id: string,
): LogFollower {
  return new LogFollower(
    (signal) =>
      client.deployments.log(stack, environment, id, { signal }).then((log) => log.lines, emptyWhenMissing),
    { label: `deployment ${id} on ${stack}/${environment}`, emit: progress },
  );
}

/** Follows a snapshot or restore transfer's log (`GET .../snapshots/transfer/{id}/log`). */
export function followTransfer(
  client: StackwrightClient,
  stack: string,
  id: string,
  label: string,
): LogFollower {
  return new LogFollower(
    (signal) =>
      client.transfers
        .log(stack, id, { signal })
        .then(
          (log) => transferLogLines(log.content ?? "", log.status === "Complete" || log.status === "Failed"),
          emptyWhenMissing,
        ),
    { label, emit: progress },
  );
}
