/**
 * Pure retry decisions. Nothing here performs I/O or reads the clock, so every rule is unit
 * tested directly; `http.ts` only carries out what {@link decideRetry} says.
 *
 * The rule that matters most: a call that creates something (deploy, snapshot, restore, fetch,
 * start, invalidate, lock, record method) is repeated only when the first attempt provably did
 * nothing, or when the caller gave a way to look for the object first. Otherwise a flaky network
 * would turn one deployment into two.
 */
import type { RetryPolicy } from "./defaults";
import { codeOf, propertyOf } from "./property";

/** What happened to one attempt, reduced to what the decision needs. */
export type AttemptOutcome =
  /** The server answered with this status. */
  | { kind: "status"; status: number; retryAfterMs?: number | undefined }
  /** The connection could not be made: the request never left this process. */
  | { kind: "connect-failed" }
  /** The connection broke after the request may have been written (reset, dropped, closed). */
  | { kind: "network" }
  /** No response within the request timeout; the server may still be working on it. */
  | { kind: "timeout" };

/** How repeatable the call is. */
export type CallSafety =
  /** GET, DELETE, and PUT: repeating has the same effect as doing it once. */
  | "idempotent"
  /** Anything that makes a new object or a transition. */
  | "create";

/** What to do after a failed attempt. */
export type RetryDecision =
  | { action: "fail" }
  /** A create may have happened and there is no safe way to repeat it: report that. */
  | { action: "unknown-outcome" }
  /** Wait `delayMs`, then (if `lookupFirst`) look for the object, then repeat when not found. */
  | { action: "retry"; delayMs: number; lookupFirst: boolean };

/** Statuses that describe the request itself; repeating it cannot change the answer. */
export const NEVER_RETRIED_STATUSES: ReadonlySet<number> = new Set([400, 401, 403, 404, 409, 422]);

/** Statuses worth another attempt for an idempotent call. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/**
 * True when the server provably did not act on the request: the connection was never made, or
 * it answered 429 (the rate limiter runs before the handler) or 503 (RFC 9110 §15.6.4: "unable
 * to handle the request").
 */
export function provablyNotProcessed(outcome: AttemptOutcome): boolean {
  if (outcome.kind === "connect-failed") return true;
  return outcome.kind === "status" && (outcome.status === 429 || outcome.status === 503);
}

/**
 * True when the server may or may not have acted: a broken connection after sending, a timeout,
 * or a gateway status (502/504 come from a proxy that may have forwarded the request).
 */
export function outcomeAmbiguous(outcome: AttemptOutcome): boolean {
  if (outcome.kind === "network" || outcome.kind === "timeout") return true;
  return outcome.kind === "status" && (outcome.status === 502 || outcome.status === 504);
}

/**
 * Backoff before attempt `attempt + 1`: exponential from `baseDelayMs`, capped at `maxDelayMs`,
 * with "equal jitter" (half fixed, half random) so that parallel clients spread out but never
 * retry instantly. `random` is injectable for tests.
 */
export function backoffDelay(
  attempt: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  const exponent = Math.max(0, attempt - 1);
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** exponent);
  return Math.round(cap / 2 + random() * (cap / 2));
}

/**
 * Parses `Retry-After` (delta seconds or an HTTP date) into milliseconds from `nowMs`.
 * Returns undefined for a missing or malformed value; a date in the past gives 0.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (text === "") return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/** Inputs of {@link decideRetry}. */
export interface RetryInput {
  outcome: AttemptOutcome;
  safety: CallSafety;
  /** The caller supplied a lookup that finds the object if an earlier attempt created it. */
  hasLookup: boolean;
  /** Attempts made so far, including the one that just failed (1 after the first). */
  attempt: number;
  /** Milliseconds since the first attempt started. */
  elapsedMs: number;
  policy: RetryPolicy;
  random?: () => number;
}

/**
 * Decides whether to repeat a failed attempt, and how.
 *
 * - 400/401/403/404/409/422 and 500 are final.
 * - Idempotent calls retry 429/502/503/504, broken connections and timeouts.
 * - Creates repeat only when the attempt provably did nothing (connection refused, 429, 503).
 *   After an ambiguous failure they repeat only with a lookup, which runs first; without one
 *   the answer is "unknown-outcome" so the caller can decide, never a blind repeat. A 503 with a
 *   lookup still looks first: a proxy may answer 503 after the origin acted.
 * - Residual risk, stated plainly: after a timeout the server may still be working on the first
 *   attempt when the lookup runs, so "not found" is strong but not absolute evidence. The lookup
 *   runs after the backoff delay, and the marker still lets a later run (or `findByMarker`) spot
 *   and adopt the newest object if a duplicate ever slipped through.
 * - A `Retry-After` longer than `maxRetryAfterMs`, or a wait that would overrun
 *   `maxElapsedMs`, ends the retries: the caller learns now rather than after the budget.
 */
export function decideRetry(input: RetryInput): RetryDecision {
  const { outcome, safety, hasLookup, attempt, elapsedMs, policy } = input;
  if (outcome.kind === "status" && !RETRYABLE_STATUSES.has(outcome.status)) return { action: "fail" };

  const notProcessed = provablyNotProcessed(outcome);
  const ambiguous = outcomeAmbiguous(outcome);
  // When retrying stops, a create whose outcome is ambiguous must say so, not look like a plain error.
  const stop: RetryDecision =
    safety === "create" && ambiguous ? { action: "unknown-outcome" } : { action: "fail" };

  let lookupFirst = false;
  if (safety === "create") {
    if (ambiguous && !hasLookup) return stop;
    lookupFirst = hasLookup && !(outcome.kind === "connect-failed") && !isStatus(outcome, 429);
  } else if (!notProcessed && !ambiguous) {
    return stop;
  }

  if (attempt >= policy.maxAttempts) return stop;

  const hinted = outcome.kind === "status" ? outcome.retryAfterMs : undefined;
  if (hinted !== undefined && hinted > policy.maxRetryAfterMs) return stop;
  const delayMs = hinted ?? backoffDelay(attempt, policy, input.random);
  if (elapsedMs + delayMs > policy.maxElapsedMs) return stop;
  return { action: "retry", delayMs, lookupFirst };
}

function isStatus(outcome: AttemptOutcome, status: number): boolean {
  return outcome.kind === "status" && outcome.status === status;
}

/** Classification of a thrown network error, see {@link classifyNetworkError}. */
export type NetworkFailure = "connect-failed" | "network" | "timeout" | "aborted" | "other";

const CONNECT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);
const NETWORK_CODES = new Set(["UND_ERR_SOCKET", "ECONNRESET", "EPIPE", "UND_ERR_CLOSED", "ECONNABORTED"]);
const TIMEOUT_CODES = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);

/**
 * Maps an error thrown by the transport to a failure kind by its `code` (and the code of its
 * cause, where undici wraps a system error). Unknown errors are "other" and never retried.
 */
export function classifyNetworkError(error: unknown): NetworkFailure {
  const codes = collectCodes(error);
  if (codes.some((c) => c === "UND_ERR_ABORTED" || c === "ABORT_ERR")) return "aborted";
  if (codes.some((c) => CONNECT_CODES.has(c))) return "connect-failed";
  if (codes.some((c) => TIMEOUT_CODES.has(c))) return "timeout";
  if (codes.some((c) => NETWORK_CODES.has(c))) return "network";
  return "other";
}

function collectCodes(error: unknown): string[] {
  const out: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === "object" && current !== null; depth++) {
    const code = codeOf(current);
    if (code !== undefined) out.push(code);
    if (propertyOf(current, "name") === "AbortError") out.push("ABORT_ERR");
    current = propertyOf(current, "cause");
  }
  return out;
}
