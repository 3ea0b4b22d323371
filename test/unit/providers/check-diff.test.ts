import { describe, expect, it } from "vitest";
import {
  check as checkDeployment,
  diff as diffDeployment,
  hasDrift,
} from "../../../providers/behaviour/deployment";
import {
  check as checkEnvironmentLock,
  diff as diffEnvironmentLock,
} from "../../../providers/behaviour/environment-lock";
import { check as checkSnapshot, diff as diffSnapshot } from "../../../providers/behaviour/snapshot";
import {
  check as checkSnapshotRestore,
  diff as diffSnapshotRestore,
} from "../../../providers/behaviour/snapshot-restore";
import { check as checkGitFetch, diff as diffGitFetch } from "../../../providers/behaviour/git-fetch";
import {
  check as checkRecordAction,
  diff as diffRecordAction,
} from "../../../providers/behaviour/record-action";
import { UNKNOWN } from "../../../providers/behaviour/common";

const PROVIDER = "exports.handler = () => ({})";
const base = {
  __provider: PROVIDER,
  stack: "acme-web",
  environment: "uat",
  ref_type: "branch",
  ref: "main",
  marker_seed: "p/s/Deployment/web",
};

describe("Deployment check", () => {
  it("accepts valid inputs and derives a stable marker from the identity and replace keys", async () => {
    const a = await checkDeployment({}, base);
    const b = await checkDeployment({}, { ...base, title: "another title" });
    const c = await checkDeployment({}, { ...base, trigger: "2" });
    expect(a.failures).toEqual([]);
    expect(a.inputs["marker"]).toMatch(/^sw-[0-9a-f]{20}$/);
    expect(b.inputs["marker"]).toBe(a.inputs["marker"]);
    expect(c.inputs["marker"]).not.toBe(a.inputs["marker"]);
    expect(a.inputs["__provider"]).toBe(PROVIDER);
  });

  it("names the property of every failure", async () => {
    const r = await checkDeployment({}, { ...base, ref_type: "nope", approval: "maybe", colour: "red" });
    const properties = r.failures.map((f) => f.property).sort();
    expect(properties).toEqual(["approval", "colour", "ref_type"]);
    expect(r.failures.find((f) => f.property === "colour")?.reason).toContain("[colour]");
  });

  it("requires an empty ref for promote_from_uat and a ref for branch", async () => {
    const promote = await checkDeployment({}, { ...base, ref_type: "promote_from_uat" });
    expect(promote.failures).toEqual([{ property: "ref", reason: expect.stringContaining("must be empty") }]);
    const { ref: _ref, ...noRef } = base;
    const branch = await checkDeployment({}, noRef);
    expect(branch.failures).toEqual([{ property: "ref", reason: expect.stringContaining("is required") }]);
  });

  it("refuses names that would alter an API path", async () => {
    const r = await checkDeployment({}, { ...base, environment: "../prod" });
    expect(r.failures.map((f) => f.property)).toEqual(["environment"]);
  });

  it("does not judge inputs that are unknown during a preview", async () => {
    const r = await checkDeployment({}, { ...base, ref: UNKNOWN, title: UNKNOWN });
    expect(r.failures).toEqual([]);
  });
});

describe("Deployment diff", () => {
  const recorded = { ...base, marker: "sw-x", state: "Completed", sha: "a".repeat(40), deployment_id: "7" };

  it("reports no change for identical inputs", async () => {
    expect(await diffDeployment("7", recorded, base)).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
  });

  it("replaces on stack, environment, ref_type, ref, trigger and adopt", async () => {
    for (const [key, value] of [
      ["stack", "other"],
      ["environment", "prod"],
      ["ref_type", "tag"],
      ["ref", "v2"],
      ["trigger", "again"],
      ["adopt", "9"],
    ] as const) {
      const d = await diffDeployment("7", recorded, { ...base, [key]: value });
      expect(d.replaces).toEqual([key]);
    }
  });

  it("keeps a claimed deployment when adopt is dropped later, and claims another id when it changes", async () => {
    const claimed = { ...recorded, adopt: "7" };
    expect((await diffDeployment("7", claimed, base)).changes).toBe(false);
    expect((await diffDeployment("7", claimed, { ...base, adopt: "8" })).replaces).toEqual(["adopt"]);
  });

  it("never redeploys for title or summary changes", async () => {
    const d = await diffDeployment("7", recorded, { ...base, title: "new", summary: "new" });
    expect(d).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
  });

  it("treats an omitted optional input like an empty one", async () => {
    expect((await diffDeployment("7", { ...recorded, trigger: "" }, base)).changes).toBe(false);
  });

  it("plans a fresh deployment when the recorded one failed", async () => {
    const d = await diffDeployment("7", { ...recorded, state: "Failed" }, base);
    expect(d.replaces).toEqual(["state"]);
  });

  it("does not ask again after a person rejected the request, until the trigger changes", async () => {
    const rejected = { ...recorded, state: "Rejected", approval: "request" };
    expect((await diffDeployment("7", rejected, { ...base, approval: "request" })).changes).toBe(false);
    expect(
      (await diffDeployment("7", rejected, { ...base, approval: "request", trigger: "ask again" })).replaces,
    ).toEqual(["trigger"]);
  });

  it("plans an update to start an approved request and to finish a timed-out wait", async () => {
    const approved = await diffDeployment(
      "7",
      { ...recorded, state: "Approved" },
      { ...base, approval: "request" },
    );
    expect(approved).toMatchObject({ changes: true, replaces: [] });
    const running = await diffDeployment("7", { ...recorded, state: "Deploying" }, base);
    expect(running).toMatchObject({ changes: true, replaces: [] });
    const submitted = await diffDeployment(
      "7",
      { ...recorded, state: "Submitted", approval: "request" },
      { ...base, approval: "request" },
    );
    expect(submitted.changes).toBe(false);
  });

  it("sees drift from observed_sha: a redeploy with self_heal, nothing planned without", async () => {
    const drifted = { ...base, observed_sha: "b".repeat(40) };
    expect(hasDrift(recorded, drifted)).toBe(true);
    expect((await diffDeployment("7", recorded, drifted)).changes).toBe(false);
    const healed = await diffDeployment("7", recorded, { ...drifted, self_heal: true });
    expect(healed).toMatchObject({ changes: true, replaces: ["observed_sha"] });
    expect(hasDrift(recorded, { ...base, observed_sha: "a".repeat(40) })).toBe(false);
    expect(hasDrift(recorded, { ...base, observed_sha: UNKNOWN })).toBe(false);
  });
});

describe("check and diff of the other types", () => {
  it("EnvironmentLock: replaces on the environment, updates the message in place", async () => {
    expect(
      (await checkEnvironmentLock({}, { stack: "acme-web", environment: "prod", message: "m" })).failures,
    ).toEqual([]);
    expect((await checkEnvironmentLock({}, { stack: "acme-web" })).failures.map((f) => f.property)).toEqual([
      "environment",
    ]);
    const olds = { stack: "acme-web", environment: "prod", message: "a", locked: true };
    expect(
      await diffEnvironmentLock("x", olds, { stack: "acme-web", environment: "prod", message: "b" }),
    ).toMatchObject({ changes: true, replaces: [] });
    expect(
      (await diffEnvironmentLock("x", olds, { stack: "acme-web", environment: "uat", message: "a" }))
        .replaces,
    ).toEqual(["environment"]);
  });

  it("Snapshot: validates the mode and replaces on every input but the notes and the wait bound", async () => {
    const s = { stack: "acme-web", environment: "uat", mode: "db", marker_seed: "p/s/Snapshot/n" };
    expect((await checkSnapshot({}, s)).inputs["marker"]).toMatch(/^sw-/);
    expect((await checkSnapshot({}, { ...s, mode: "everything" })).failures.map((f) => f.property)).toEqual([
      "mode",
    ]);
    expect((await diffSnapshot("1", s, { ...s, mode: "all" })).replaces).toEqual(["mode"]);
    expect(await diffSnapshot("1", s, { ...s, notes: "x" })).toMatchObject({ changes: true, replaces: [] });
    expect(await diffSnapshot("1", s, { ...s, timeout_seconds: 5 })).toMatchObject({
      changes: true,
      replaces: [],
    });
  });

  it("SnapshotRestore: confirm must equal the target environment", async () => {
    const r = { stack: "acme-web", environment: "prod", snapshot_id: "12", mode: "db", confirm: "uat" };
    const failures = (await checkSnapshotRestore({}, r)).failures;
    expect(failures).toEqual([{ property: "confirm", reason: expect.stringContaining("'prod'") }]);
    expect((await checkSnapshotRestore({}, { ...r, confirm: "prod" })).failures).toEqual([]);
    expect((await diffSnapshotRestore("1", r, { ...r, trigger: "again" })).replaces).toEqual(["trigger"]);
  });

  it("GitFetch: replaces on stack and trigger", async () => {
    expect((await checkGitFetch({}, { stack: "a/b" })).failures.map((f) => f.property)).toEqual(["stack"]);
    expect(
      (await diffGitFetch("1", { stack: "acme-web" }, { stack: "acme-web", trigger: "t" })).replaces,
    ).toEqual(["trigger"]);
    expect((await diffGitFetch("1", { stack: "acme-web" }, { stack: "acme-web" })).changes).toBe(false);
  });

  it("RecordAction: identifiers only, every input replaces", async () => {
    const a = { class_name: "Page", record_id: 12, method: "publish" };
    expect((await checkRecordAction({}, a)).failures).toEqual([]);
    expect(
      (await checkRecordAction({}, { ...a, method: "pub/lish" })).failures.map((f) => f.property),
    ).toEqual(["method"]);
    expect((await diffRecordAction("1", a, { ...a, method: "unpublish" })).replaces).toEqual(["method"]);
    expect((await diffRecordAction("1", a, a)).changes).toBe(false);
  });
});
