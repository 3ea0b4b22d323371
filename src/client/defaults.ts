/**
 * Every timeout, retry and poll setting of the client in one object, so that a reader sees all
 * bounds at once and `createClient` options override them field by field.
 */

/** Retry policy: attempt limit, jittered capped backoff and an overall time budget. */
export interface RetryPolicy {
  /** Total attempts including the first (1 disables retries). */
  maxAttempts: number;
  /** First backoff step; doubles per attempt before jitter. */
  baseDelayMs: number;
  /** Cap of one backoff step. */
  maxDelayMs: number;
  /** A `Retry-After` longer than this is not waited for: the error surfaces instead. */
  maxRetryAfterMs: number;
  /** No retry starts once this much time has passed since the first attempt. */
  maxElapsedMs: number;
}

/** Poll schedule of the waiters: a quick first poll, then a growing, capped interval. */
export interface PollPolicy {
  /** Delay before the first poll; short because fast operations often finish at once. */
  firstPollMs: number;
  /** Interval after the first poll. */
  intervalMs: number;
  /** Growth factor per poll. */
  multiplier: number;
  /** Cap of one interval. */
  maxIntervalMs: number;
  /** Overall bound of one wait. */
  timeoutMs: number;
}

/** Shape of {@link clientDefaults}. */
export interface ClientDefaults {
  /** Time to establish a TCP/TLS connection. */
  connectTimeoutMs: number;
  /** Time from sending the request until the response headers arrive. */
  headersTimeoutMs: number;
  /** Longest pause while receiving the body (the idle bound). */
  bodyTimeoutMs: number;
  /**
   * Longest time one response body may take from its headers to its last byte, however steadily
   * it trickles (the overall bound beside the idle one, as curl's `--max-time`). Not repeated.
   */
  bodyDeadlineMs: number;
  /** Idle keep-alive sockets are closed after this. */
  keepAliveTimeoutMs: number;
  /** Connections per origin (bounded so a burst of parallel resources cannot open hundreds). */
  maxConnections: number;
  /** Largest response body the client buffers; larger ones fail instead of exhausting memory. */
  maxResponseBytes: number;
  /** Most pages followed through `links.next` on one list call. */
  maxPages: number;
  /**
   * Bytes one list call may read across all its pages: `maxPages` full pages would be held in
   * memory at once, parsed, so the pages stop here long before that.
   */
  maxListBytes: number;
  /** Most single-snapshot reads one marker search makes (the list form lacks `notes`). */
  maxMarkerProbes: number;
  retry: RetryPolicy;
  poll: PollPolicy;
}

/** The defaults. Frozen: copy and override through `createClient` options. */
export const clientDefaults = Object.freeze({
  connectTimeoutMs: 10_000,
  headersTimeoutMs: 30_000,
  bodyTimeoutMs: 30_000,
  bodyDeadlineMs: 120_000,
  keepAliveTimeoutMs: 4_000,
  maxConnections: 8,
  maxResponseBytes: 8 * 1024 * 1024,
  maxPages: 50,
  maxListBytes: 8 * 1024 * 1024,
  maxMarkerProbes: 25,
  retry: Object.freeze({
    maxAttempts: 4,
    baseDelayMs: 250,
    maxDelayMs: 8_000,
    maxRetryAfterMs: 60_000,
    maxElapsedMs: 90_000,
  }),
  poll: Object.freeze({
    firstPollMs: 200,
    intervalMs: 1_000,
    multiplier: 1.5,
    maxIntervalMs: 15_000,
    timeoutMs: 30 * 60_000,
  }),
} satisfies ClientDefaults);
