import { describe, expect, it } from "vitest";
import { parsePreviewJson } from "../../../../src/cli/engine/preview-json";
import { plannedChanges, renderSummary } from "../../../../src/cli/report/summary";

const T = (name: string) => `pulumi-nodejs:dynamic/stackwright:${name}`;
const urn = (type: string, name: string) =>
  `urn:pulumi:dev::stackwright::stackwright:index:Stack$${type}::${name}`;

function step(
  op: string,
  type: string,
  name: string,
  inputs: Record<string, unknown>,
  old?: Record<string, unknown>,
) {
  return {
    op,
    urn: urn(T(type), name),
    newState: op === "delete" ? undefined : { urn: urn(T(type), name), type: T(type), inputs },
    oldState:
      old === undefined ? undefined : { urn: urn(T(type), name), type: T(type), inputs, outputs: old },
  };
}

const preview = {
  steps: [
    { op: "same", urn: "urn:pulumi:dev::stackwright::pulumi:pulumi:Stack::stackwright-dev" },
    step(
      "replace",
      "Deployment",
      "acme-web/uat",
      { stack: "acme-web", environment: "uat", ref_type: "branch", ref: "main" },
      {
        sha: "0123456789abcdef0123456789abcdef01234567",
      },
    ),
    step("create", "EnvironmentLock", "acme-web/prod/lock", {
      stack: "acme-web",
      environment: "prod",
      message: "Change freeze",
    }),
    step("delete", "EnvironmentLock", "shop/uat/lock", { stack: "shop", environment: "uat" }, {}),
    step("create", "Snapshot", "acme-web/uat/nightly-db", {
      stack: "acme-web",
      environment: "uat",
      mode: "db",
    }),
    step("create", "SnapshotRestore", "acme-web/uat/from-nightly", {
      stack: "acme-web",
      environment: "uat",
      snapshot: "nightly-db",
      mode: "db",
    }),
    step("same", "Deployment", "acme-web/prod", { stack: "acme-web", environment: "prod" }, {}),
    step(
      "update",
      "Deployment",
      "shop/prod",
      { stack: "shop", environment: "prod", ref_type: "tag", ref: "v2" },
      {},
    ),
    step("create", "RecordAction", "shop/Page/12/publish", {
      class_name: "Page",
      record_id: "12",
      method: "publish",
    }),
  ],
  diagnostics: [
    { message: "acme-web/prod: live sha abc1234 differs from desired def5678", severity: "warning" },
    { message: "debug noise", severity: "info" },
  ],
  changeSummary: { same: 2, replace: 1, create: 3, delete: 1, update: 1 },
};

describe("the pull-request summary", () => {
  it("describes a redeploy with the live sha it replaces and the ref it deploys", () => {
    const { changes } = plannedChanges(parsePreviewJson(JSON.stringify(preview), "preview.json"));
    expect(changes).toContainEqual({
      stack: "acme-web",
      environment: "uat",
      op: "replace",
      kind: "redeploy",
      text: "from `0123456` to branch `main`",
    });
  });

  it("names locks, unlocks, snapshots and restores per stack and environment", () => {
    const { changes } = plannedChanges(parsePreviewJson(JSON.stringify(preview), "preview.json"));
    const kinds = changes.map((c) => `${c.stack}/${c.environment}:${c.kind}`);
    expect(kinds).toEqual([
      "acme-web/uat:redeploy",
      "acme-web/prod:lock",
      "shop/uat:unlock",
      "acme-web/uat:snapshot",
      "acme-web/uat:restore",
      "shop/prod:metadata",
      "shop/—:record",
    ]);
  });

  it("counts unchanged resources but not the Pulumi stack itself", () => {
    const { unchanged } = plannedChanges(parsePreviewJson(JSON.stringify(preview), "preview.json"));
    expect(unchanged).toBe(1);
  });

  it("renders counts, one table per stack, and the warnings", () => {
    const md = renderSummary(parsePreviewJson(JSON.stringify(preview), "preview.json"));
    expect(md).toContain(
      "**1 redeploy · 1 lock · 1 unlock · 1 snapshot · 1 restore · 1 in place · 1 record action** (1 unchanged)",
    );
    expect(md).toContain("### acme-web");
    expect(md).toContain("| uat | snapshot | `nightly-db` (db) |");
    expect(md).toContain("| uat | restore | `from-nightly` from snapshot `nightly-db` (db) |");
    expect(md).toContain("| — | record action | `Page#12.publish` |");
    expect(md).toContain('| prod | lock | "Change freeze" |');
    expect(md).toContain("### shop");
    expect(md).toContain("- **warning**: acme-web/prod: live sha abc1234 differs from desired def5678");
    expect(md).not.toContain("debug noise");
  });

  it("says so when nothing changes", () => {
    const md = renderSummary(parsePreviewJson(JSON.stringify({ steps: [] }), "preview.json"));
    expect(md).toContain("**No changes** (0 unchanged)");
  });

  it("refuses a file that is not JSON, naming the file", () => {
    expect(() => parsePreviewJson("Previewing update (dev)", "out.txt")).toThrow(/^out\.txt: not JSON/);
  });

  it("refuses JSON that is not a preview, naming the path at fault", () => {
    expect(() => parsePreviewJson(JSON.stringify({ steps: [{ op: 3 }] }), "p.json")).toThrow(
      /p\.json: not the output of `pulumi preview --json`: at steps\.0\.op/,
    );
  });
});

describe("the pull-request summary of locks kept per environment", () => {
  const lock = (op: string, locked: boolean, oldLocked?: boolean) => ({
    op,
    urn: urn(T("EnvironmentLock"), "acme-web/uat"),
    newState: {
      urn: urn(T("EnvironmentLock"), "acme-web/uat"),
      type: T("EnvironmentLock"),
      inputs: { stack: "acme-web", environment: "uat", message: "freeze", locked },
    },
    ...(oldLocked === undefined
      ? {}
      : {
          oldState: {
            urn: urn(T("EnvironmentLock"), "acme-web/uat"),
            type: T("EnvironmentLock"),
            outputs: { locked: oldLocked },
          },
        }),
  });
  const kinds = (steps: unknown[]) =>
    plannedChanges(parsePreviewJson(JSON.stringify({ steps }), "p.json")).changes.map((c) => c.kind);

  it("does not list the lock resource of an environment that stays unlocked, and counts it unchanged", () => {
    const planned = plannedChanges(
      parsePreviewJson(JSON.stringify({ steps: [lock("create", false)] }), "p.json"),
    );
    expect(planned).toEqual({ changes: [], unchanged: 1 });
  });

  it("does not list a lock that only records the environment's snapshots and restores", () => {
    const u = urn(T("EnvironmentLock"), "acme-web/prod");
    const inputs = { stack: "acme-web", environment: "prod", message: "freeze", locked: true };
    const record = {
      op: "update",
      urn: u,
      oldState: { urn: u, type: T("EnvironmentLock"), inputs, outputs: { locked: true } },
      newState: { urn: u, type: T("EnvironmentLock"), inputs: { ...inputs, holds: ["snapshot a@00000000"] } },
    };
    expect(plannedChanges(parsePreviewJson(JSON.stringify({ steps: [record] }), "p.json"))).toEqual({
      changes: [],
      unchanged: 1,
    });
  });

  it("lists an unlock when the desired state drops the lock, and a lock when it adds one back", () => {
    expect(kinds([lock("update", false, true)])).toEqual(["unlock"]);
    expect(kinds([lock("update", true, false)])).toEqual(["lock"]);
    expect(kinds([lock("update", true, true)])).toEqual(["relock"]);
  });
});

describe("the pull-request summary of in-place deployment updates and unknown values", () => {
  const update = (diffReasons: string[]) => ({
    ...step("update", "Deployment", "acme-web/prod", { stack: "acme-web", environment: "prod" }, {}),
    diffReasons,
  });

  it("says a recorded lock deploys nothing", () => {
    const { changes } = plannedChanges(
      parsePreviewJson(JSON.stringify({ steps: [update(["environment_lock"])] }), "p.json"),
    );
    expect(changes[0]?.text).toBe("records the environment's lock; nothing deploys");
  });

  it("names the inputs an in-place update changes", () => {
    const { changes } = plannedChanges(
      parsePreviewJson(JSON.stringify({ steps: [update(["title", "__provider"])] }), "p.json"),
    );
    expect(changes[0]?.text).toBe("in place (title); nothing redeploys");
  });

  it("does not print the engine's placeholder for a snapshot id known only after the update", () => {
    const restore = step("create", "SnapshotRestore", "acme-web/uat/from-nightly", {
      stack: "acme-web",
      environment: "uat",
      snapshot_id: "04da6b54-80e4-46f7-96ec-b56ff0331ba9",
      mode: "db",
    });
    const { changes } = plannedChanges(parsePreviewJson(JSON.stringify({ steps: [restore] }), "p.json"));
    expect(changes[0]?.text).toBe("`from-nightly` from a snapshot taken in this run (db)");
  });
});

describe("the pull-request summary of a dynamic provider's update", () => {
  it("reads the changed inputs off the old and new inputs when the engine names none", () => {
    const t = T("Deployment");
    const u = urn(t, "acme-web/prod");
    const update = {
      op: "update",
      urn: u,
      oldState: {
        urn: u,
        type: t,
        inputs: { stack: "acme-web", title: "Old", __provider: "a" },
        outputs: {},
      },
      newState: { urn: u, type: t, inputs: { stack: "acme-web", title: "New", __provider: "b" } },
    };
    const { changes } = plannedChanges(parsePreviewJson(JSON.stringify({ steps: [update] }), "p.json"));
    expect(changes[0]?.text).toBe("in place (title); nothing redeploys");
  });
});

describe("the pull-request summary of a snapshot's notes and a snapshot taken anew", () => {
  const plan = (steps: unknown[]) =>
    plannedChanges(parsePreviewJson(JSON.stringify({ steps }), "p.json")).changes.map((c) => ({
      kind: c.kind,
      text: c.text,
    }));

  it("shows new notes as in place: they apply to the next snapshot taken", () => {
    const inputs = { stack: "acme-web", environment: "uat", mode: "db", notes: "before the release" };
    const notes = step("update", "Snapshot", "acme-web/uat/nightly-db", inputs, {
      ...inputs,
      notes: "before release",
    });
    notes.oldState = notes.oldState && { ...notes.oldState, inputs: { ...inputs, notes: "before release" } };
    expect(plan([notes])).toEqual([
      {
        kind: "metadata",
        text: "`nightly-db`: new notes apply to the next snapshot taken; nothing is taken",
      },
    ]);
  });

  it("shows a restore whose snapshot is taken anew as in place, restoring nothing", () => {
    const inputs = {
      stack: "acme-web",
      environment: "uat",
      snapshot: "nightly-db",
      snapshot_id: "04da6b54-80e4-46f7-96ec-b56ff0331ba9",
      mode: "db",
    };
    const restore = step("update", "SnapshotRestore", "acme-web/uat/from-nightly", inputs, {
      ...inputs,
      snapshot_id: "17",
      restored_snapshot_id: "17",
    });
    restore.oldState = restore.oldState && { ...restore.oldState, inputs: { ...inputs, snapshot_id: "17" } };
    expect(plan([restore])).toEqual([
      {
        kind: "metadata",
        text: "`from-nightly` records `nightly-db` taken anew; nothing is restored (restored from snapshot `17`)",
      },
    ]);
  });
});
