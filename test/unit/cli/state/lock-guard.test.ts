import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ConcurrentUpdateError } from "@pulumi/pulumi/automation";
import { afterEach, describe, expect, it } from "vitest";
import { engineErrorFilter } from "../../../../src/cli/engine/stderr-filter";
import { StackLockedError, withStackLock, type LockTarget } from "../../../../src/cli/state/lock-guard";
import { lockDirectory, type LockJudge } from "../../../../src/cli/state/locks";
import { openStateStore, s3Settings } from "../../../../src/state-backend/store";

const roots: string[] = [];
afterEach(() => {
  for (const d of roots.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A file backend holding one lock of `runner-1` pid `pid`; the judge sees `alive` pids. */
function world(pid: number, alive: number[]) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "sw-guard-"));
  roots.push(root);
  const dir = path.join(root, ...lockDirectory("stackwright", "web").split("/"));
  fs.mkdirSync(dir, { recursive: true });
  const lockFile = path.join(dir, "held.json");
  fs.writeFileSync(
    lockFile,
    JSON.stringify({ pid, username: "ci", hostname: "runner-1", timestamp: "2026-11-23T10:00:00Z" }),
  );
  const target: LockTarget = {
    store: openStateStore(`file://${root}`),
    project: "stackwright",
    stack: "web",
  };
  const live = new Set(alive);
  const judge = (): LockJudge => ({
    hostname: "runner-1",
    isAlive: (p) => live.has(p),
    now: new Date("2026-11-23T10:05:00Z"),
    staleAfterMs: undefined,
  });
  let clock = 0;
  const log: string[] = [];
  const hooks = {
    judge,
    log: (l: string) => log.push(l),
    now: () => clock,
    sleep: async (ms: number) => {
      clock += ms;
    },
  };
  /** An operation that fails like the engine while the lock file exists. */
  const operation = async () => {
    if (fs.existsSync(lockFile))
      throw new ConcurrentUpdateError("the stack is currently locked by 1 lock(s)");
    return "updated";
  };
  return { target, hooks, log, lockFile, operation, advance: (ms: number) => (clock += ms) };
}

describe("running an update under another run's lock", () => {
  it("fails at once with who holds the stack when --lock-wait is not set", async () => {
    const w = world(42, [42]);
    await expect(
      withStackLock(w.target, { lockWaitMs: 0, staleAfterMs: undefined }, w.operation, w.hooks),
    ).rejects.toThrow(
      new StackLockedError(
        "stack web is being updated by runner-1 pid 42 since 2026-11-23T10:00:00.000Z; --lock-wait is not set, " +
          "so the run did not wait. Run again when that update ends (or with a longer --lock-wait); " +
          "if that process is gone, 'npm run stackwright -- unlock web' removes its lock.",
      ),
    );
    expect(fs.existsSync(w.lockFile)).toBe(true);
  });

  it("waits until the holder lets go, then runs", async () => {
    const w = world(42, [42]);
    let polls = 0;
    const hooks = {
      ...w.hooks,
      sleep: async (ms: number) => {
        w.advance(ms);
        if (++polls === 3) fs.rmSync(w.lockFile);
      },
    };
    const result = await withStackLock(
      w.target,
      { lockWaitMs: 60_000, staleAfterMs: undefined },
      w.operation,
      hooks,
    );
    expect(result).toBe("updated");
    expect(w.log).toEqual([
      "stackwright: stack web is being updated by runner-1 pid 42 since 2026-11-23T10:00:00.000Z; waiting up to 1m (--lock-wait)",
    ]);
  });

  it("gives up after --lock-wait and says how long it waited", async () => {
    const w = world(42, [42]);
    await expect(
      withStackLock(w.target, { lockWaitMs: 30_000, staleAfterMs: undefined }, w.operation, w.hooks),
    ).rejects.toThrow(/waited 30s \(--lock-wait 30s\)/);
    expect(fs.existsSync(w.lockFile)).toBe(true);
  });

  it("removes the lock of a dead process of this host, says so, and runs", async () => {
    const w = world(42, []);
    expect(
      await withStackLock(w.target, { lockWaitMs: 0, staleAfterMs: undefined }, w.operation, w.hooks),
    ).toBe("updated");
    expect(w.log).toEqual([
      expect.stringMatching(
        /^stackwright: removed a stale lock: stack web is being updated by runner-1 pid 42 since 2026-11-23T10:00:00.000Z, but pid 42 no longer runs on runner-1 \(this host\) \(.*held\.json\)$/,
      ),
    ]);
  });

  it("passes any other failure through untouched", async () => {
    const w = world(42, []);
    const boom = new Error("engine failed");
    await expect(
      withStackLock(
        w.target,
        { lockWaitMs: 0, staleAfterMs: undefined },
        () => Promise.reject(boom),
        w.hooks,
      ),
    ).rejects.toBe(boom);
  });
});

describe("the engine's error stream", () => {
  it("drops Pulumi's lock text and the SDK's checksum warnings, and keeps the rest", () => {
    const out: string[] = [];
    const filter = engineErrorFilter((t) => out.push(t));
    filter.write(
      "SDK 2026/11/23 10:00:00 WARN Response has no supported checksum. Not validating response payload.\nerror: the stack is currently ",
    );
    filter.write(
      "locked by 1 lock(s). Either wait for the other process(es) to end or delete the lock file with `pulumi cancel`.\n" +
        "  s3://bucket/.pulumi/locks/organization/stackwright/web/x.json: created by ci@runner-1 (pid 42) at 2026-11-23T10:00:00Z\n" +
        "error: something else\nno newline",
    );
    filter.flush();
    expect(out.join("")).toBe("error: something else\nno newline");
  });
});

describe("S3 backend URLs", () => {
  it("reads the bucket, prefix, endpoint, path style, region and profile as Pulumi does", () => {
    expect(
      s3Settings(
        "s3://state/fleet/prod?endpoint=http://127.0.0.1:9000&use_path_style=true&region=eu-west-1&profile=ci",
      ),
    ).toEqual({
      bucket: "state",
      prefix: "fleet/prod/",
      endpoint: "http://127.0.0.1:9000",
      forcePathStyle: true,
      region: "eu-west-1",
      profile: "ci",
    });
    expect(s3Settings("s3://state?endpoint=minio:9000&disableSSL=true&s3ForcePathStyle=true")).toEqual({
      bucket: "state",
      prefix: "",
      endpoint: "http://minio:9000",
      forcePathStyle: true,
    });
  });

  it("rejects a backend it cannot read locks from, without echoing credentials", () => {
    expect(() => openStateStore("azblob://user:secret@container")).toThrow(
      "PULUMI_BACKEND_URL 'azblob://container' is not a backend Stackwright can read locks from",
    );
  });
});
