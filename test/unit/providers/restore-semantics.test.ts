/**
 * What makes a restore run again and what a snapshot's notes do, decided by the providers' `diff`
 * and `update` alone (no API call): a restore runs again only for a change of its own settings,
 * never because its snapshot was taken anew; new notes apply to the next snapshot taken.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { diff as diffSnapshot, update as updateSnapshot } from "../../../providers/behaviour/snapshot";
import { diff as diffRestore, update as updateRestore } from "../../../providers/behaviour/snapshot-restore";
import { diff as diffLock } from "../../../providers/behaviour/environment-lock";
import { UNKNOWN } from "../../../providers/behaviour/common";
import { holdsOf } from "../../../src/program/environment-component";
import { EnvironmentSchema } from "../../../src/config";

const restored = {
  stack: "acme-web",
  environment: "uat",
  snapshot: "nightly-db",
  snapshot_id: "17",
  mode: "db",
  skip_build: false,
  confirm: "uat",
  transfer_id: "31",
  status: "Finished",
  restored_snapshot_id: "17",
};
const inputs = {
  stack: "acme-web",
  environment: "uat",
  snapshot: "nightly-db",
  snapshot_id: "17",
  mode: "db",
  skip_build: false,
  confirm: "uat",
};

let printed: string[];
beforeEach(() => {
  printed = [];
  vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    printed.push(String(chunk));
    return true;
  });
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe("a restore", () => {
  it("is not run again when its declared snapshot is taken anew, and the preview says so", async () => {
    const planned = await diffRestore("31", restored, { ...inputs, snapshot_id: UNKNOWN });
    expect(planned).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    expect(printed.join("")).toContain(
      "restore 31 into acme-web/uat does not run again: snapshot nightly-db is taken anew, the restore keeps snapshot 17",
    );
    expect((await diffRestore("31", restored, { ...inputs, snapshot_id: "18" })).replaces).toEqual([]);
  });

  it("records the new snapshot id with no request and keeps the id it restored from", async () => {
    const { outs } = await updateRestore("31", restored, { ...inputs, snapshot_id: "18" });
    expect(outs).toMatchObject({ snapshot_id: "18", restored_snapshot_id: "17", transfer_id: "31" });
    const again = await updateRestore("31", outs, { ...inputs, snapshot_id: "19" });
    expect(again.outs).toMatchObject({ snapshot_id: "19", restored_snapshot_id: "17" });
  });

  it("runs again when one of its own settings changes", async () => {
    for (const [key, value] of [
      ["trigger", "again"],
      ["mode", "all"],
      ["skip_build", true],
      ["backup_existing_data", false],
      ["snapshot", "weekly-db"],
    ] as const) {
      const planned = await diffRestore("31", restored, { ...inputs, [key]: value });
      expect(planned.replaces, key).toEqual([key]);
    }
  });

  it("runs again when its numeric snapshot id changes", async () => {
    const byId = { ...restored, snapshot: "4711", snapshot_id: "4711", restored_snapshot_id: "4711" };
    const planned = await diffRestore("31", byId, { ...inputs, snapshot: "4712", snapshot_id: "4712" });
    expect(planned.replaces).toEqual(["snapshot"]);
  });

  it("recorded by an earlier release (no snapshot name) is not run again for a new snapshot id", async () => {
    const { snapshot: _name, restored_snapshot_id: _id, ...legacy } = restored;
    const planned = await diffRestore("31", legacy, { ...inputs, snapshot_id: "18" });
    expect(planned.replaces).toEqual([]);
    expect((await updateRestore("31", legacy, { ...inputs, snapshot_id: "18" })).outs).toMatchObject({
      snapshot: "nightly-db",
      snapshot_id: "18",
      restored_snapshot_id: "17",
    });
    // A numeric id in the file is the restore's own setting: a different one is a new restore.
    const byId = await diffRestore("31", legacy, { ...inputs, snapshot: "4711", snapshot_id: "4711" });
    expect(byId.replaces).toEqual(["snapshot"]);
  });

  it("given only an id (no snapshot name) still runs again for a new id", async () => {
    const { snapshot: _a, ...olds } = restored;
    const { snapshot: _b, ...news } = inputs;
    expect((await diffRestore("31", olds, { ...news, snapshot_id: "18" })).replaces).toEqual(["snapshot_id"]);
  });

  it("with nothing changed plans nothing and prints nothing", async () => {
    expect((await diffRestore("31", restored, inputs)).changes).toBe(false);
    expect(printed).toEqual([]);
  });
});

describe("a snapshot's notes", () => {
  const taken = {
    stack: "acme-web",
    environment: "uat",
    mode: "db",
    notes: "before release",
    marker_seed: "p/s/Snapshot/n",
    marker: "sw-1",
    snapshot_id: "17",
  };

  it("changed apply to the next snapshot taken: no new snapshot, and the preview says so", async () => {
    const planned = await diffSnapshot("17", taken, {
      ...taken,
      notes: "before the release",
      marker: "sw-2",
    });
    expect(planned).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    expect(printed.join("")).toContain(
      "snapshot 17 of acme-web/uat: the new notes apply to the next snapshot taken; this one keeps its notes",
    );
  });

  it("are recorded in place with the marker the platform's snapshot carries", async () => {
    const { outs } = await updateSnapshot("17", taken, {
      ...taken,
      notes: "before the release",
      marker: "sw-2",
    });
    expect(outs).toMatchObject({ notes: "before the release", marker: "sw-1", snapshot_id: "17" });
    const removed = await updateSnapshot("17", taken, { ...taken, notes: undefined });
    expect(removed.outs["notes"]).toBeUndefined();
  });

  it("changed while the environment stays locked are not refused: nothing reaches the platform", async () => {
    const holds = (notes: string) =>
      holdsOf(EnvironmentSchema.parse({ snapshots: { "nightly-db": { mode: "db", notes } } }));
    const lock = { stack: "acme-web", environment: "uat", message: "freeze", locked: true };
    const planned = await diffLock("x", { ...lock, holds: holds("a") }, { ...lock, holds: holds("b") });
    expect(planned.changes).toBe(false);
    // A new mode still takes a new snapshot, which the lock refuses.
    const moded = holdsOf(EnvironmentSchema.parse({ snapshots: { "nightly-db": { mode: "all" } } }));
    await expect(diffLock("x", { ...lock, holds: holds("a") }, { ...lock, holds: moded })).rejects.toThrow(
      /would refuse snapshot nightly-db\./,
    );
  });

  it("hashed into the lock's holds by an earlier release are not taken for a new snapshot", async () => {
    const lock = { stack: "acme-web", environment: "uat", message: "freeze", locked: true };
    const now = holdsOf(EnvironmentSchema.parse({ snapshots: { "nightly-db": { mode: "db", notes: "a" } } }));
    const planned = await diffLock(
      "x",
      { ...lock, holds: ["snapshot nightly-db@0a1b2c3d"] },
      { ...lock, holds: now },
    );
    expect(planned).toMatchObject({ changes: true, replaces: [] });
  });
});
