import { describe, expect, it } from "vitest";
import { AbortedError, WaitFailedError, WaitTimeoutError } from "../../../src/client/errors";
import type { PollPolicy } from "../../../src/client/defaults";
import {
  deploymentPhase,
  fetchPhase,
  pollDelay,
  snapshotPhase,
  transferPhase,
  waitUntil,
  type WaitClock,
  type WaitPhase,
  type WaitProgress,
} from "../../../src/client/waiters";

const policy: PollPolicy = {
  firstPollMs: 100,
  intervalMs: 1_000,
  multiplier: 2,
  maxIntervalMs: 5_000,
  timeoutMs: 60_000,
};

/** A clock whose sleeps advance fake time at once, recording each delay. */
function fakeClock(): WaitClock & { slept: number[] } {
  let now = 0;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: async (ms, signal) => {
      if (signal.aborted) throw new Error("aborted");
      slept.push(ms);
      now += ms;
    },
  };
}

function target(states: string[], phaseOf: (s: string) => WaitPhase) {
  let i = 0;
  return {
    subject: "thing 1",
    poll: async () => states[Math.min(i++, states.length - 1)] ?? "none",
    state: (s: string) => s,
    phase: phaseOf,
    link: () => "https://x/svc/thing/1",
    polls: () => i,
  };
}

const phaseOf = (s: string): WaitPhase =>
  s === "done" ? "succeeded" : s === "broken" ? "failed" : "pending";

describe("pollDelay", () => {
  it("polls quickly first, then grows the interval up to the cap", () => {
    expect([0, 1, 2, 3, 4, 5].map((n) => pollDelay(n, policy))).toEqual([
      100, 1_000, 2_000, 4_000, 5_000, 5_000,
    ]);
  });
});

describe("phase decisions", () => {
  it("treats Completed as success and every other finished deployment state as failure", () => {
    expect(deploymentPhase("Completed")).toBe("succeeded");
    for (const s of ["Failed", "Invalid", "Rejected", "Deleted"] as const)
      expect(deploymentPhase(s)).toBe("failed");
    for (const s of ["New", "Submitted", "Approved", "Queued", "Deploying", "Aborting"] as const) {
      expect(deploymentPhase(s)).toBe("pending");
    }
  });
  it("knows when transfers, fetches and snapshots are finished", () => {
    expect([
      transferPhase("n/a"),
      transferPhase("Running"),
      transferPhase("Finished"),
      transferPhase("Failed"),
    ]).toEqual(["pending", "pending", "succeeded", "failed"]);
    expect([fetchPhase("n/a"), fetchPhase("Complete"), fetchPhase("Failed")]).toEqual([
      "pending",
      "succeeded",
      "failed",
    ]);
    expect([snapshotPhase("pending"), snapshotPhase("complete"), snapshotPhase("failed")]).toEqual([
      "pending",
      "succeeded",
      "failed",
    ]);
  });
});

describe("waitUntil", () => {
  it("returns the object once it succeeds, reporting progress after every poll", async () => {
    const clock = fakeClock();
    const t = target(["queued", "running", "done"], phaseOf);
    const seen: WaitProgress[] = [];
    await expect(waitUntil(t, policy, { onProgress: (p) => seen.push(p) }, clock)).resolves.toBe("done");
    expect(clock.slept).toEqual([100, 1_000, 2_000]);
    expect(seen.map((p) => [p.state, p.polls])).toEqual([
      ["queued", 1],
      ["running", 2],
      ["done", 3],
    ]);
  });

  it("throws WaitFailedError with the state and link on a failure state", async () => {
    const error = await waitUntil(target(["running", "broken"], phaseOf), policy, {}, fakeClock()).catch(
      (e: unknown) => e,
    );
    expect(WaitFailedError.isInstance(error)).toBe(true);
    expect((error as WaitFailedError).state).toBe("broken");
    expect((error as WaitFailedError).message).toBe("thing 1 ended in state broken (https://x/svc/thing/1)");
  });

  it("gives up at the bound, stating it in ms and the last state seen", async () => {
    const t = target(["running"], phaseOf);
    const error = await waitUntil(t, { ...policy, timeoutMs: 10_000 }, {}, fakeClock()).catch(
      (e: unknown) => e,
    );
    expect(WaitTimeoutError.isInstance(error)).toBe(true);
    expect((error as WaitTimeoutError).timeoutMs).toBe(10_000);
    expect((error as WaitTimeoutError).lastState).toBe("running");
    expect((error as Error).message).toContain("after 10000 ms");
    expect((error as Error).message).toContain("last state seen: running");
  });

  it("never sleeps past the bound", async () => {
    const clock = fakeClock();
    await waitUntil(target(["running"], phaseOf), { ...policy, timeoutMs: 2_500 }, {}, clock).catch(
      () => undefined,
    );
    expect(clock.slept.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(2_500);
  });

  it("stops with AbortedError when the caller aborts", async () => {
    const controller = new AbortController();
    const t = target(["running"], phaseOf);
    const polls: number[] = [];
    const error = await waitUntil(
      t,
      policy,
      {
        signal: controller.signal,
        onProgress: (p) => {
          polls.push(p.polls);
          if (p.polls === 2) controller.abort();
        },
      },
      fakeClock(),
    ).catch((e: unknown) => e);
    expect(AbortedError.isInstance(error)).toBe(true);
    expect(polls).toEqual([1, 2]);
    expect(t.polls()).toBe(2);
  });

  it("lets a poll's own error through unchanged", async () => {
    const boom = new Error("server broke");
    const t = { ...target(["x"], phaseOf), poll: async () => Promise.reject(boom) };
    await expect(waitUntil(t, policy, {}, fakeClock())).rejects.toBe(boom);
  });
});
