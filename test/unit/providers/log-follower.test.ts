import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LogFollower, transferLogLines } from "../../../providers/behaviour/log-follower";

/** A log that grows when told to, a clock the test moves, and what the follower printed. */
function world(options: { minIntervalMs?: number; maxLinesPerRead?: number } = {}) {
  let lines: string[] = [];
  let now = 0;
  let reads = 0;
  let fail: Error | undefined;
  const printed: string[] = [];
  const follower = new LogFollower(
    () => {
      reads++;
      return fail === undefined ? Promise.resolve([...lines]) : Promise.reject(fail);
    },
    { label: "deployment 7 on acme-web/uat", emit: (l) => printed.push(l), now: () => now, ...options },
  );
  return {
    follower,
    printed,
    append: (...more: string[]) => (lines = [...lines, ...more]),
    advance: (ms: number) => (now += ms),
    reads: () => reads,
    failWith: (error: Error | undefined) => (fail = error),
  };
}

/** Lets a read started by `poll` finish. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe("following a platform log during a wait", () => {
  it("prints each new line once, under the label of what is waited for", async () => {
    const w = world();
    w.append("queued", "fetching");
    w.follower.poll();
    await settled();
    w.append("building 2b7e151");
    w.advance(2000);
    w.follower.poll();
    await settled();
    await w.follower.finish();
    expect(w.printed).toEqual([
      "deployment 7 on acme-web/uat | queued",
      "deployment 7 on acme-web/uat | fetching",
      "deployment 7 on acme-web/uat | building 2b7e151",
    ]);
  });

  it("reads at most once per interval however often the wait polls", async () => {
    const w = world({ minIntervalMs: 2000 });
    for (let i = 0; i < 10; i++) {
      w.follower.poll();
      await settled();
      w.advance(300);
    }
    // Polls at 0, 300, ..., 2700 ms: reads at 0 and 2100.
    expect(w.reads()).toBe(2);
  });

  it("never runs two reads at once", () => {
    const w = world({ minIntervalMs: 0 });
    w.follower.poll();
    w.follower.poll();
    w.follower.poll();
    expect(w.reads()).toBe(1);
  });

  it("prints at most the newest lines of one read and counts the others", async () => {
    const w = world({ maxLinesPerRead: 2 });
    w.append("a", "b", "c", "d", "e");
    await w.follower.finish();
    expect(w.printed).toEqual([
      "deployment 7 on acme-web/uat | (3 log lines not shown)",
      "deployment 7 on acme-web/uat | d",
      "deployment 7 on acme-web/uat | e",
    ]);
  });

  it("keeps the last 20 lines for a failure message", async () => {
    const w = world();
    w.append(...Array.from({ length: 30 }, (_, i) => `line ${i + 1}`));
    await w.follower.finish();
    expect(w.follower.tail()).toHaveLength(20);
    expect(w.follower.tail()[0]).toBe("line 11");
    const message = w.follower.withTail("Deployment 7 ended Failed.");
    expect(message.split("\n")).toEqual([
      "Deployment 7 ended Failed.",
      "Last 20 lines of its log:",
      ...Array.from({ length: 20 }, (_, i) => `  line ${i + 11}`),
    ]);
  });

  it("leaves a message alone when the log had no lines", async () => {
    const w = world();
    await w.follower.finish();
    expect(w.follower.withTail("ended Failed.")).toBe("ended Failed.");
  });

  it("says once that a log cannot be read, and never fails the wait for it", async () => {
    const w = world({ minIntervalMs: 0 });
    w.failWith(new Error("404 Not Found"));
    w.follower.poll();
    await settled();
    await w.follower.finish();
    expect(w.printed).toEqual(["deployment 7 on acme-web/uat: its log could not be read (404 Not Found)"]);
    w.failWith(undefined);
    w.append("deploying");
    await w.follower.finish();
    expect(w.printed.at(-1)).toBe("deployment 7 on acme-web/uat | deploying");
  });

  it("prints every line of any growing log exactly once, in order", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.array(fc.string({ maxLength: 8 }), { maxLength: 5 }), fc.nat(3000)), {
          maxLength: 12,
        }),
        async (steps) => {
          const w = world({ maxLinesPerRead: 1000 });
          const all: string[] = [];
          for (const [more, wait] of steps) {
            w.append(...more);
            all.push(...more);
            w.advance(wait);
            w.follower.poll();
            await settled();
          }
          await w.follower.finish();
          expect(w.printed).toEqual(all.map((l) => `deployment 7 on acme-web/uat | ${l}`));
        },
      ),
    );
  });
});

describe("the lines of a transfer log's text", () => {
  it("leaves a line still being written for the next read", () => {
    expect(transferLogLines("Queued\nRunning: 40%", false)).toEqual(["Queued"]);
    expect(transferLogLines("Queued\nRunning: 40%\n", false)).toEqual(["Queued", "Running: 40%"]);
  });

  it("takes every line of a finished log, with or without a last newline", () => {
    expect(transferLogLines("Queued\nFailed: disk full", true)).toEqual(["Queued", "Failed: disk full"]);
    expect(transferLogLines("Queued\nComplete\n", true)).toEqual(["Queued", "Complete"]);
  });
});
