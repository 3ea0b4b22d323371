import { describe, expect, it } from "vitest";
import { parsePreviewJson } from "../../../src/cli/preview-json";
import { plannedChanges, renderSummary } from "../../../src/cli/summary";

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
      "**1 redeploy · 1 lock · 1 unlock · 1 snapshot · 1 restore · 1 metadata only · 1 record action** (1 unchanged)",
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
