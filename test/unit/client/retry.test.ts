import { describe, expect, it } from "vitest";
import { clientDefaults, type RetryPolicy } from "../../../src/client/defaults";
import {
  backoffDelay,
  classifyNetworkError,
  decideRetry,
  parseRetryAfter,
  type AttemptOutcome,
  type RetryInput,
} from "../../../src/client/retry";

const policy: RetryPolicy = {
  maxAttempts: 4,
  baseDelayMs: 100,
  maxDelayMs: 1_000,
  maxRetryAfterMs: 5_000,
  maxElapsedMs: 10_000,
};
const status = (s: number, retryAfterMs?: number): AttemptOutcome => ({
  kind: "status",
  status: s,
  retryAfterMs,
});

function decide(over: Partial<RetryInput> & { outcome: AttemptOutcome }) {
  return decideRetry({
    safety: "idempotent",
    hasLookup: false,
    attempt: 1,
    elapsedMs: 0,
    policy,
    random: () => 0.5,
    ...over,
  });
}

describe("decideRetry", () => {
  it.each([400, 401, 403, 404, 409, 422, 500])("never retries a %i, whatever the call", (s) => {
    expect(decide({ outcome: status(s) })).toEqual({ action: "fail" });
    expect(decide({ outcome: status(s), safety: "create", hasLookup: true })).toEqual({ action: "fail" });
  });

  it.each([429, 502, 503, 504])("retries an idempotent call after a %i", (s) => {
    expect(decide({ outcome: status(s) })).toMatchObject({ action: "retry", lookupFirst: false });
  });

  it.each<AttemptOutcome>([{ kind: "network" }, { kind: "timeout" }, { kind: "connect-failed" }])(
    "retries an idempotent call after a $kind failure",
    (outcome) => {
      expect(decide({ outcome })).toMatchObject({ action: "retry" });
    },
  );

  it("repeats a create at once when the connection was refused, without a lookup", () => {
    expect(decide({ outcome: { kind: "connect-failed" }, safety: "create" })).toMatchObject({
      action: "retry",
      lookupFirst: false,
    });
    expect(decide({ outcome: { kind: "connect-failed" }, safety: "create", hasLookup: true })).toMatchObject({
      lookupFirst: false,
    });
  });

  it("repeats a create after 429 or 503 because the server did not process it", () => {
    expect(decide({ outcome: status(429), safety: "create" })).toMatchObject({
      action: "retry",
      lookupFirst: false,
    });
    expect(decide({ outcome: status(503), safety: "create" })).toMatchObject({
      action: "retry",
      lookupFirst: false,
    });
  });

  it("still looks first after a 503 on a create when a lookup exists", () => {
    expect(decide({ outcome: status(503), safety: "create", hasLookup: true })).toMatchObject({
      lookupFirst: true,
    });
  });

  it.each<AttemptOutcome>([{ kind: "network" }, { kind: "timeout" }, status(502), status(504)])(
    "reports an unknown outcome for an ambiguous create ($kind) without a lookup",
    (outcome) => {
      expect(decide({ outcome, safety: "create" })).toEqual({ action: "unknown-outcome" });
    },
  );

  it.each<AttemptOutcome>([{ kind: "network" }, { kind: "timeout" }, status(502), status(504)])(
    "looks for the object before repeating an ambiguous create ($kind) that has a lookup",
    (outcome) => {
      expect(decide({ outcome, safety: "create", hasLookup: true })).toMatchObject({
        action: "retry",
        lookupFirst: true,
      });
    },
  );

  it("stops at the attempt limit, and an ambiguous create then reports an unknown outcome", () => {
    expect(decide({ outcome: status(503), attempt: 4 })).toEqual({ action: "fail" });
    expect(decide({ outcome: status(504), attempt: 4, safety: "create", hasLookup: true })).toEqual({
      action: "unknown-outcome",
    });
  });

  it("honours Retry-After instead of the backoff", () => {
    expect(decide({ outcome: status(429, 2_000) })).toEqual({
      action: "retry",
      delayMs: 2_000,
      lookupFirst: false,
    });
  });

  it("gives up when Retry-After is longer than maxRetryAfterMs", () => {
    expect(decide({ outcome: status(429, 6_000) })).toEqual({ action: "fail" });
  });

  it("gives up when the wait would overrun the time budget", () => {
    expect(decide({ outcome: status(503), elapsedMs: 9_990 })).toEqual({ action: "fail" });
    expect(decide({ outcome: status(429, 3_000), elapsedMs: 8_000 })).toEqual({ action: "fail" });
  });

  it("uses a small default policy", () => {
    expect(clientDefaults.retry.maxAttempts).toBeGreaterThan(1);
  });
});

describe("backoffDelay", () => {
  it("doubles per attempt with equal jitter", () => {
    expect(backoffDelay(1, policy, () => 0)).toBe(50);
    expect(backoffDelay(1, policy, () => 1)).toBe(100);
    expect(backoffDelay(2, policy, () => 0)).toBe(100);
    expect(backoffDelay(3, policy, () => 1)).toBe(400);
  });

  it("never exceeds maxDelayMs", () => {
    for (let attempt = 1; attempt < 30; attempt++) {
      expect(backoffDelay(attempt, policy, () => 1)).toBeLessThanOrEqual(policy.maxDelayMs);
    }
  });
});

describe("parseRetryAfter", () => {
  it("reads delta seconds", () => {
    expect(parseRetryAfter("3", 0)).toBe(3_000);
    expect(parseRetryAfter(" 0 ", 0)).toBe(0);
  });

  it("reads an HTTP date relative to now", () => {
    const now = Date.parse("2026-11-22T06:00:00Z");
    expect(parseRetryAfter("Sun, 22 Nov 2026 06:00:05 GMT", now)).toBe(5_000);
    expect(parseRetryAfter("Sun, 22 Nov 2026 05:00:00 GMT", now)).toBe(0);
  });

  it("ignores missing or malformed values", () => {
    expect(parseRetryAfter(undefined, 0)).toBeUndefined();
    expect(parseRetryAfter("soon", 0)).toBeUndefined();
    expect(parseRetryAfter("", 0)).toBeUndefined();
  });
});

describe("classifyNetworkError", () => {
  const coded = (code: string, cause?: unknown) => Object.assign(new Error(code), { code, cause });
  it("treats refused and unresolvable connections as never sent", () => {
    expect(classifyNetworkError(coded("ECONNREFUSED"))).toBe("connect-failed");
    expect(classifyNetworkError(coded("UND_ERR_CONNECT_TIMEOUT"))).toBe("connect-failed");
    expect(classifyNetworkError(new Error("wrap", { cause: coded("ENOTFOUND") }))).toBe("connect-failed");
  });
  it("treats a socket closed mid-request as ambiguous", () => {
    expect(classifyNetworkError(coded("UND_ERR_SOCKET"))).toBe("network");
    expect(classifyNetworkError(coded("ECONNRESET"))).toBe("network");
  });
  it("recognises timeouts and aborts", () => {
    expect(classifyNetworkError(coded("UND_ERR_HEADERS_TIMEOUT"))).toBe("timeout");
    expect(classifyNetworkError(coded("UND_ERR_ABORTED"))).toBe("aborted");
    expect(classifyNetworkError(Object.assign(new Error("x"), { name: "AbortError" }))).toBe("aborted");
  });
  it("does not guess about errors it does not know", () => {
    expect(classifyNetworkError(new Error("boom"))).toBe("other");
    expect(classifyNetworkError("text")).toBe("other");
  });
});
