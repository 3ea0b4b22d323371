/** Per-call options every method accepts. */
export interface CallOptions {
  /** Aborts the call (including backoff sleeps); the call then throws AbortedError. */
  signal?: AbortSignal | undefined;
}
