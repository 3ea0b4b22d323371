/**
 * The platform runs one transfer (snapshot or restore) per environment at a time and refuses a
 * second one with 409, naming the transfer in flight. A refusal started nothing, so starting
 * again is safe even for a restore: this waits for the named transfer to end (bounded), then
 * starts again. Any other 409 (a lock, say) fails at once, as before.
 */
import { ApiError, ErrorCode, type StackwrightClient } from "../../src/client";
import { progress } from "./common";

/** The platform's default wait for a transfer when the resource sets no `timeout_seconds`. */
const DEFAULT_BUSY_WAIT_MS = 30 * 60_000;

/** The transfer a 409 names as running on the environment, if that is why it refused. */
export function busyTransferOf(error: unknown): string | undefined {
  if (!ApiError.isInstance(error) || error.code !== ErrorCode.Conflict) return undefined;
  const text = [error.message, ...error.titles].join("\n");
  if (!/transfer is in progress/i.test(text)) return undefined;
  return /\btransfer (\d+)\b/.exec(text)?.[1];
}

export interface BusyWait {
  /** Only its end matters here, so any waiter of that shape will do (the client's in production). */
  readonly client: {
    waitForTransfer(...args: Parameters<StackwrightClient["waitForTransfer"]>): Promise<unknown>;
  };
  readonly stack: string;
  /** `stack/environment`, for the progress line and the error. */
  readonly where: string;
  /** How long to wait for the environment in all, in ms (the resource's wait bound). */
  readonly boundMs: number | undefined;
  readonly now?: () => number;
}

/** Runs `start` (the POST of a transfer), waiting while another transfer holds the environment. */
export async function startWhenFree<T>(wait: BusyWait, start: () => Promise<T>): Promise<T> {
  const now = wait.now ?? Date.now;
  const bound = wait.boundMs ?? DEFAULT_BUSY_WAIT_MS;
  const deadline = now() + bound;
  const stillBusy = (busy: string, cause: unknown) =>
    new Error(
      `${wait.where} stayed busy: transfer ${busy} did not finish within ${bound / 1000} s (timeout_seconds), ` +
        "so nothing was started; the next run starts it once that transfer has ended",
      { cause },
    );
  for (;;) {
    try {
      return await start();
    } catch (error) {
      const busy = busyTransferOf(error);
      if (busy === undefined) throw error;
      const remaining = deadline - now();
      if (remaining <= 0) throw stillBusy(busy, error);
      progress(`${wait.where} is busy with transfer ${busy}: waiting for it before starting`);
      try {
        await wait.client.waitForTransfer(wait.stack, busy, { timeoutMs: remaining });
      } catch (waited) {
        // Its end is all that matters: a failed transfer frees the environment too.
        if (ApiError.isInstance(waited) && waited.code === ErrorCode.WaitFailed) continue;
        if (ApiError.isInstance(waited) && waited.code === ErrorCode.WaitTimeout)
          throw stillBusy(busy, waited);
        throw waited;
      }
    }
  }
}
