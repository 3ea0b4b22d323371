import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import {
  describeHolder,
  formatAge,
  judgeLock,
  lockDirectory,
  parseLock,
  pidIsAlive,
  removeOrphanAttributes,
  removeStaleLocks,
  type LockJudge,
  type StackLock,
} from "../../../../src/cli/state/locks";
import { openStateStore } from "../../../../src/state-backend/store";

const HOST = "runner-1";
const T0 = new Date("2026-11-23T10:00:00Z");

function lock(over: Partial<{ pid: number; hostname: string; since: Date }> = {}): StackLock {
  return { key: "k.json", readable: true, pid: 42, username: "ci", hostname: HOST, since: T0, ...over };
}

function judge(over: Partial<LockJudge> & { alive?: number[] } = {}): LockJudge {
  const alive = new Set(over.alive ?? []);
  return {
    hostname: HOST,
    isAlive: (pid) => alive.has(pid),
    now: new Date(T0.getTime() + 60 * 60_000),
    staleAfterMs: undefined,
    ...over,
  };
}

describe("judging a stack lock", () => {
  it("keeps a lock of this host whose pid still runs", () => {
    expect(judgeLock(lock(), judge({ alive: [42] }))).toEqual({
      stale: false,
      reason: "pid 42 is still running on this host",
    });
  });

  it("removes a lock of this host whose pid is gone", () => {
    expect(judgeLock(lock(), judge())).toEqual({
      stale: true,
      reason: "pid 42 no longer runs on runner-1 (this host)",
    });
  });

  it("keeps another host's lock unless --stale-lock-after is set and exceeded", () => {
    const other = lock({ hostname: "runner-2" });
    expect(judgeLock(other, judge()).stale).toBe(false);
    expect(judgeLock(other, judge({ staleAfterMs: 2 * 60 * 60_000 })).stale).toBe(false);
    expect(judgeLock(other, judge({ staleAfterMs: 30 * 60_000 }))).toEqual({
      stale: true,
      reason: "it was taken on runner-2 1h ago, longer than --stale-lock-after (30m)",
    });
  });

  it("never removes a lock whose owner runs on this host, whatever its age or the threshold", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4_000_000 }),
        fc.integer({ min: 0, max: 10 * 86_400_000 }),
        fc.option(fc.integer({ min: 0, max: 86_400_000 }), { nil: undefined }),
        (pid, ageMs, staleAfterMs) => {
          const since = new Date(T0.getTime() - ageMs);
          const verdict = judgeLock(lock({ pid, since }), judge({ alive: [pid], staleAfterMs, now: T0 }));
          return !verdict.stale;
        },
      ),
    );
  });

  it("keeps a lock file that is not Pulumi's format", () => {
    const bad = parseLock("x.json", "{not json");
    expect(bad).toEqual({ key: "x.json", readable: false });
    expect(judgeLock(bad, judge()).stale).toBe(false);
    expect(parseLock("y.json", JSON.stringify({ pid: "1" })).readable).toBe(false);
  });

  it("reads Pulumi's lock content and names the holder in one sentence", () => {
    const text = JSON.stringify({
      pid: 7,
      username: "ci",
      hostname: "runner-3",
      timestamp: "2026-11-23T09:59:58.123456789+01:00",
    });
    const parsed = parseLock("a.json", text);
    expect(describeHolder("acme-web", parsed)).toBe(
      "stack acme-web is being updated by runner-3 pid 7 since 2026-11-23T08:59:58.123Z",
    );
  });

  it("writes ages in days, hours, minutes and seconds", () => {
    expect(formatAge(0)).toBe("0s");
    expect(formatAge(90_061_000)).toBe("1d1h1m1s");
    expect(formatAge(3_600_000)).toBe("1h");
  });

  it("knows this process is alive and a pid of 0 or below is not", () => {
    expect(pidIsAlive(process.pid)).toBe(true);
    expect(pidIsAlive(0)).toBe(false);
    expect(pidIsAlive(-5)).toBe(false);
  });
});

describe("removing stale locks from a file backend", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  it("removes the dead owner's lock, keeps the live one's, and says why", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "sw-locks-"));
    dirs.push(root);
    const dir = path.join(root, ...lockDirectory("stackwright", "dev").split("/"));
    fs.mkdirSync(dir, { recursive: true });
    const write = (name: string, pid: number) =>
      fs.writeFileSync(
        path.join(dir, name),
        JSON.stringify({ pid, username: "ci", hostname: HOST, timestamp: T0.toISOString() }),
      );
    write("dead.json", 100);
    write("live.json", 200);
    const store = openStateStore(`file://${root}`);
    const result = await removeStaleLocks(store, "stackwright", "dev", judge({ alive: [200] }));
    expect(result.removed.map((r) => [r.lock.key.split("/").pop(), r.reason])).toEqual([
      ["dead.json", "pid 100 no longer runs on runner-1 (this host)"],
    ]);
    expect(result.kept.map((k) => k.lock.key.split("/").pop())).toEqual(["live.json"]);
    expect(fs.readdirSync(dir)).toEqual(["live.json"]);
  });

  it("removes a stale lock's attributes file with it, and attributes files whose lock is gone", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "sw-locks-"));
    dirs.push(root);
    const dir = path.join(root, ...lockDirectory("stackwright", "dev").split("/"));
    fs.mkdirSync(dir, { recursive: true });
    const content = (pid: number) =>
      JSON.stringify({ pid, username: "ci", hostname: HOST, timestamp: T0.toISOString() });
    // As Pulumi's file backend writes a lock: the file and its attributes beside it.
    for (const [name, pid] of [
      ["dead", 100],
      ["live", 200],
    ] as const) {
      fs.writeFileSync(path.join(dir, `${name}.json`), content(pid));
      fs.writeFileSync(path.join(dir, `${name}.json.attrs`), '{"user.cache_control":""}');
    }
    // Left by an earlier release, which removed the lock file alone.
    fs.writeFileSync(path.join(dir, "gone.json.attrs"), "{}");
    const store = openStateStore(`file://${root}`);
    await removeStaleLocks(store, "stackwright", "dev", judge({ alive: [200] }));
    expect(fs.readdirSync(dir).sort()).toEqual(["gone.json.attrs", "live.json", "live.json.attrs"]);
    expect(await removeOrphanAttributes(store, "stackwright", "dev")).toBe(1);
    expect(fs.readdirSync(dir).sort()).toEqual(["live.json", "live.json.attrs"]);
  });

  it("finds no lock in a backend that has none yet", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "sw-locks-"));
    dirs.push(root);
    const store = openStateStore(`file://${root}`);
    expect(await removeStaleLocks(store, "stackwright", "dev", judge())).toEqual({ removed: [], kept: [] });
  });
});
