/**
 * Delivery of notification requests from the CLI process: a few at once, each attempt with a
 * timeout, retried with jittered exponential backoff on 408, 429, 5xx and a broken connection
 * (honouring Retry-After), and all of it within one total bound. Delivery never throws: each
 * request ends delivered or failed with a reason that names no URL, secret or body.
 */
import type { Dispatcher } from "undici";
import { newAgent, request } from "../undici";
import type { NotifyEventName, SinkKind } from "../api";
import { TIMESTAMP_HEADER, type SinkRequest } from "./formats";

/** The connection settings of a delivery's dispatcher (the shape of the API client's transport settings). */
export interface NotifyConnection {
  readonly connectTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  readonly maxConnections: number;
}

/** Makes a delivery's dispatcher from its connection settings. */
export type DispatcherFactory = (connection: NotifyConnection) => Dispatcher;

/** How deliveries connect: 5 s to connect, sockets kept 1 s, as many per host as requests at once. */
export const NOTIFY_CONNECTION: NotifyConnection = Object.freeze({
  connectTimeoutMs: 5_000,
  keepAliveTimeoutMs: 1_000,
  maxConnections: 4,
});

/**
 * The one place that makes the HTTP dispatcher of deliveries: with `make`, the one the caller
 * gives (the CLI passes src/client's, which goes through the environment's proxy as the API
 * client does); without, a direct undici Agent. Certificates: Node's store with
 * `NODE_EXTRA_CA_CERTS`, as for the API. The caller closes it.
 */
export function notifyDispatcher(make?: DispatcherFactory): Dispatcher {
  if (make !== undefined) return make(NOTIFY_CONNECTION);
  return newAgent({
    connect: { timeout: NOTIFY_CONNECTION.connectTimeoutMs },
    keepAliveTimeout: NOTIFY_CONNECTION.keepAliveTimeoutMs,
    pipelining: 1,
  });
}

/** The documented bounds (docs/notifications.md). */
export const DELIVERY_DEFAULTS = {
  /** Every delivery of a run ends within this, whatever the sinks do. */
  boundMs: 30_000,
  /** One request's bound (connect, headers and body). */
  attemptTimeoutMs: 10_000,
  maxAttempts: 4,
  concurrency: 4,
  /** Backoff: base × 2^(attempt−1), capped, times a random factor in [0.5, 1). */
  backoffBaseMs: 500,
  backoffCapMs: 8_000,
} as const;

/** Overrides of {@link DELIVERY_DEFAULTS}, and a seam for tests. */
export interface DeliveryOptions {
  readonly boundMs?: number;
  readonly attemptTimeoutMs?: number;
  readonly maxAttempts?: number;
  readonly concurrency?: number;
  readonly backoffBaseMs?: number;
  readonly backoffCapMs?: number;
  /** A dispatcher the caller owns (and closes); a seam for tests. */
  readonly dispatcher?: Dispatcher;
  /** Makes the dispatcher of this delivery, which closes it when done ({@link notifyDispatcher}). */
  readonly makeDispatcher?: DispatcherFactory;
  readonly random?: () => number;
}

/** One request to deliver: to which sink, for which event. */
export interface DeliveryJob {
  readonly sink: string;
  readonly kind: SinkKind;
  /** The resolved URL (from the sink's variable). Never logged or returned. */
  readonly url: string;
  readonly event: NotifyEventName;
  readonly eventId: string;
  readonly request: SinkRequest;
}

/** How one delivery ended. */
export interface DeliveryResult {
  readonly sink: string;
  readonly kind: SinkKind;
  readonly event: NotifyEventName;
  readonly eventId: string;
  readonly delivered: boolean;
  readonly attempts: number;
  /** Why it failed (`HTTP 500`, `no answer within 10 s`, `ECONNREFUSED`, ...); the status when delivered. */
  readonly detail: string;
}

/** `Retry-After` as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(
  value: string | string[] | undefined,
  now: number = Date.now(),
): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === "") return undefined;
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

type Attempt =
  | { ok: true; status: number }
  | { ok: false; retry: boolean; detail: string; retryAfterMs?: number };

const RETRY_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "EPIPE",
  "ETIMEDOUT",
  "EAI_AGAIN",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_CLOSED",
]);

/** A network error's code (never its message, which may quote the address). */
function codeOf(error: unknown): string {
  if (typeof error === "object" && error !== null) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string") return code;
    const cause = (error as { cause?: unknown }).cause;
    if (cause !== undefined && cause !== error) return codeOf(cause);
    const name = (error as { name?: unknown }).name;
    if (typeof name === "string") return name;
  }
  return "error";
}

/** No attempt starts with less time than this left before the delivery bound. */
const MIN_ATTEMPT_MS = 20;

async function attempt(
  job: DeliveryJob,
  dispatcher: Dispatcher,
  timeoutMs: number,
  total: AbortSignal,
): Promise<Attempt> {
  const own = AbortSignal.timeout(timeoutMs);
  try {
    const response = await request(job.url, {
      method: "POST",
      dispatcher,
      body: job.request.body,
      headers: { ...job.request.headers, [TIMESTAMP_HEADER]: String(Math.floor(Date.now() / 1000)) },
      // The signal alone ends the attempt: undici's own headers and body timers are coarse (they
      // fired up to 50 ms early in our tests), and an attempt ended early lets the next one start
      // before the delivery bound that should have stopped it.
      signal: AbortSignal.any([own, total]),
    });
    // Read (and drop) the answer so the connection is reusable; its content is not ours to log.
    await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
    const status = response.statusCode;
    if (status >= 200 && status < 300) return { ok: true, status };
    const retry = status === 408 || status === 429 || status >= 500;
    const after = retryAfterMs(response.headers["retry-after"]);
    return {
      ok: false,
      retry,
      detail: `HTTP ${status}`,
      ...(after === undefined ? {} : { retryAfterMs: after }),
    };
  } catch (error) {
    if (total.aborted) return { ok: false, retry: false, detail: "stopped at the delivery bound" };
    if (own.aborted) return { ok: false, retry: true, detail: `no answer within ${seconds(timeoutMs)}` };
    const code = codeOf(error);
    return { ok: false, retry: RETRY_CODES.has(code), detail: code };
  }
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/** Waits `ms`, or less when `signal` aborts first. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/**
 * Delivers every job, `concurrency` at once, and returns one result per job in the same order.
 * Returns within the bound (plus the moment it takes to abort the requests in flight).
 */
export async function deliverAll(
  jobs: readonly DeliveryJob[],
  options: DeliveryOptions = {},
): Promise<DeliveryResult[]> {
  if (jobs.length === 0) return [];
  const o = { ...DELIVERY_DEFAULTS, ...options };
  const random = options.random ?? Math.random;
  const dispatcher = options.dispatcher ?? notifyDispatcher(options.makeDispatcher);
  // Monotonic time, as the timers that end the attempts use (the wall clock may step).
  const started = performance.now();
  const deadline = started + o.boundMs;
  const total = new AbortController();
  const timer = setTimeout(() => total.abort(), o.boundMs);
  const results: DeliveryResult[] = new Array<DeliveryResult>(jobs.length);
  const deliverOne = async (job: DeliveryJob): Promise<DeliveryResult> => {
    const result = (delivered: boolean, attempts: number, detail: string): DeliveryResult => ({
      sink: job.sink,
      kind: job.kind,
      event: job.event,
      eventId: job.eventId,
      delivered,
      attempts,
      detail,
    });
    let last = "not sent";
    for (let n = 1; n <= o.maxAttempts; n += 1) {
      const left = Math.floor(deadline - performance.now());
      // An attempt needs some time to be worth starting; and an attempt that timed out at the
      // bound may end a moment before the bound's own timer fires.
      if (left < MIN_ATTEMPT_MS || total.signal.aborted) {
        return result(false, n - 1, `${last}; stopped at the delivery bound (${seconds(o.boundMs)})`);
      }
      const outcome = await attempt(job, dispatcher, Math.min(o.attemptTimeoutMs, left), total.signal);
      if (outcome.ok) return result(true, n, `HTTP ${outcome.status}`);
      if (total.signal.aborted) {
        return result(false, n, `no answer; stopped at the delivery bound (${seconds(o.boundMs)})`);
      }
      last = outcome.detail;
      if (!outcome.retry || n === o.maxAttempts) {
        return result(false, n, n === 1 ? last : `${last} after ${n} attempts`);
      }
      const backoff = Math.min(o.backoffCapMs, o.backoffBaseMs * 2 ** (n - 1)) * (0.5 + random() / 2);
      const wait = Math.max(backoff, outcome.retryAfterMs ?? 0);
      if (performance.now() + wait >= deadline) {
        return result(
          false,
          n,
          `${last}; the next attempt (in ${seconds(wait)}) would pass the delivery bound (${seconds(o.boundMs)})`,
        );
      }
      await pause(wait, total.signal);
    }
    return result(false, o.maxAttempts, last);
  };
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const index = next;
      next += 1;
      const job = jobs[index];
      if (job !== undefined) results[index] = await deliverOne(job);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(o.concurrency, jobs.length) }, worker));
  } finally {
    clearTimeout(timer);
    if (options.dispatcher === undefined) await dispatcher.destroy().catch(() => undefined);
  }
  return results;
}
