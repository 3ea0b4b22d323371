import { describe, expect, it } from "vitest";
import { loadSeed } from "../../../src/emulator";
import { Engine } from "../../../src/emulator/engine";
import { Scheduler } from "../../../src/emulator/scheduler";
import { Store } from "../../../src/emulator/store";
import { archiveByte, archiveBlock, archiveStream, readRange } from "../../../src/emulator/archive";
import { TEST_SEED_PATH } from "../../helpers/emulator";

const seed = loadSeed(TEST_SEED_PATH);

/** An engine whose workers never run by themselves: each test steps them by hand. */
function manualEngine() {
  const store = new Store(seed);
  const scheduler = new Scheduler("instant");
  scheduler.close();
  const engine = new Engine(store, scheduler);
  const ops = store.user("ops@example.com");
  if (ops === undefined) throw new Error("test seed has no ops user");
  return { store, engine, ops };
}

describe("worker steps, one at a time", () => {
  it("a fetch says n/a, then Queued, Running and Complete, the platform's words", () => {
    const { store, engine, ops } = manualEngine();
    const f = engine.fetches.create(ops, "acme-web");
    const seen = [f.status];
    for (let i = 0; i < 5; i++) {
      engine.fetches.advance(f.id);
      seen.push(store.fetches.get(f.id)?.status ?? "n/a");
    }
    expect(seen).toEqual(["n/a", "Queued", "Running", "Complete", "Complete", "Complete"]);
  });

  it("a fetch scripted to fail ends Failed after Running", () => {
    const { store, engine, ops } = manualEngine();
    engine.fetches.scriptNextFailure("acme-web");
    const f = engine.fetches.create(ops, "acme-web");
    for (let i = 0; i < 3; i++) engine.fetches.advance(f.id);
    expect(store.fetches.get(f.id)?.status).toBe("Failed");
  });

  it("a deployment's log grows with each state: queued, fetching, building the sha, deploying, finished", () => {
    const { store, engine, ops } = manualEngine();
    const d = engine.deployments.create(ops, "acme-web", "uat", {
      ref_type: "branch",
      ref: "main",
      bypass_and_start: true,
    });
    const sha = d.sha ?? "";
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    const logs = [d.log];
    for (let i = 0; i < 4; i++) {
      engine.deployments.advance(d.id);
      logs.push(store.deployments.get(d.id)?.log ?? []);
    }
    const last = logs.at(-1) ?? [];
    expect(last).toEqual([
      `Deployment ${d.id} created by ops@example.com: branch main (${sha.slice(0, 7)})`,
      "Queued on acme-web/uat",
      "Fetching branch main from https://git.example.com/acme/web.git",
      `Building ${sha}`,
      `Deploying ${sha.slice(0, 7)} to acme-web/uat`,
      `Deployment finished: acme-web/uat runs ${sha.slice(0, 7)}`,
    ]);
    // Every poll sees the lines so far, never a line that goes away.
    logs.forEach((log, i) => expect(log).toEqual(last.slice(0, 2 + i)));
    expect(store.deployments.get(d.id)?.state).toBe("Completed");
  });

  it("a deployment scripted to fail ends Failed with the reason as its last log line", () => {
    const { store, engine, ops } = manualEngine();
    engine.deployments.scriptNextOutcome("acme-web", "uat", "fail", "composer install: exit code 2");
    const d = engine.deployments.create(ops, "acme-web", "uat", {
      ref_type: "redeploy",
      bypass_and_start: true,
    });
    for (let i = 0; i < 4; i++) engine.deployments.advance(d.id);
    const done = store.deployments.get(d.id);
    expect(done?.state).toBe("Failed");
    expect(done?.log.at(-1)).toBe("Deployment failed: composer install: exit code 2");
  });

  it("a transfer scripted to fail ends Failed with its reason, and its snapshot failed", () => {
    const { store, engine, ops } = manualEngine();
    engine.snapshots.scriptNextFailure("acme-web", "uat", "disk full");
    const t = engine.snapshots.create(ops, "acme-web", { environment: "uat", mode: "db" });
    for (let i = 0; i < 3; i++) engine.snapshots.advance(t.id);
    const done = store.transfers.get(t.id);
    expect(done?.status).toBe("Failed");
    expect(done?.log).toEqual([
      "Queued: snapshot of the database of acme-web/uat",
      "Running: exporting the database",
      "Packing the snapshot archive",
      "Failed: disk full",
    ]);
    expect(store.snapshots.get(t.pending_snapshot ?? -1)?.status).toBe("failed");
  });
});

describe("snapshot archives", () => {
  it("are the same bytes on every read, and differ from block to block", () => {
    const block = archiveBlock(7);
    expect(archiveBlock(7).equals(block)).toBe(true);
    expect(archiveBlock(8).equals(block)).toBe(false);
    expect(archiveByte(block, 65_536)).not.toBe(archiveByte(block, 0));
  });

  it("stream exactly the bytes of the range asked for", async () => {
    const block = archiveBlock(3);
    const chunks: Buffer[] = [];
    for await (const chunk of archiveStream(3, 65_530, 131_080)) chunks.push(Buffer.from(chunk));
    const bytes = Buffer.concat(chunks);
    expect(bytes.length).toBe(131_080 - 65_530 + 1);
    for (const i of [0, 5, 6, 65_541, bytes.length - 1])
      expect(bytes[i]).toBe(archiveByte(block, 65_530 + i));
  });

  it("read a Range header as RFC 9110 does", () => {
    expect(readRange(undefined, 100)).toEqual({ kind: "whole" });
    expect(readRange("bytes=10-", 100)).toEqual({ kind: "part", start: 10, end: 99 });
    expect(readRange("bytes=10-19", 100)).toEqual({ kind: "part", start: 10, end: 19 });
    expect(readRange("bytes=90-200", 100)).toEqual({ kind: "part", start: 90, end: 99 });
    expect(readRange("bytes=-30", 100)).toEqual({ kind: "part", start: 70, end: 99 });
    expect(readRange("bytes=100-", 100)).toEqual({ kind: "unsatisfiable" });
    expect(readRange("bytes=-0", 100)).toEqual({ kind: "unsatisfiable" });
    expect(readRange("bytes=0-1,5-6", 100)).toEqual({ kind: "whole" });
    expect(readRange("items=0-1", 100)).toEqual({ kind: "whole" });
    expect(readRange("bytes=20-10", 100)).toEqual({ kind: "whole" });
  });
});
