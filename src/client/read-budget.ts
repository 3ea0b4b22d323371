/**
 * The bytes a command may read through list calls, across every client of its process. One list
 * is bounded by `maxListBytes`, but a command runs many lists (a fleet's environments, in
 * parallel), so their sum is bounded too: the parsed pages of all of them are what fills memory.
 * Single reads are not counted (each is capped by `maxResponseBytes` and not accumulated by the
 * client), so a long wait that polls one deployment never runs out.
 */
import { ResponseTooLargeError } from "./errors";

/** Bytes of list pages one process may read (a command's share of memory for answers). */
export const PROCESS_LIST_BYTES = 64 * 1024 * 1024;

/** A byte budget shared by the clients that are given it; see the module comment. */
export class ReadBudget {
  readonly limitBytes: number;
  #used = 0;

  constructor(limitBytes: number) {
    this.limitBytes = limitBytes;
  }

  /** Bytes counted so far. */
  get usedBytes(): number {
    return this.#used;
  }

  /**
   * Counts one page of the list `method path` (page `pages` of it); a ResponseTooLargeError
   * naming the endpoint, the pages read and what to do once the budget is spent.
   */
  take(bytes: number, method: string, path: string, pages: number): void {
    this.#used += bytes;
    if (this.#used <= this.limitBytes) return;
    throw new ResponseTooLargeError(
      `${method} ${path}: stopped after ${pages} page${pages === 1 ? "" : "s"}: this process has read ` +
        `${mib(this.#used)} of list pages, over its budget of ${mib(this.limitBytes)} (process read budget); ` +
        `select fewer stacks per run (names, --shard) or find out why the platform's lists are this large`,
      { method, path, limitBytes: this.limitBytes, pages },
    );
  }
}

let processBudget: ReadBudget | undefined;

/** The budget of this process, for the clients of one command (the CLI gives it to each of them). */
export function processReadBudget(): ReadBudget {
  return (processBudget ??= new ReadBudget(PROCESS_LIST_BYTES));
}

/** `bytes` in MiB with one decimal, for messages. */
export function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
