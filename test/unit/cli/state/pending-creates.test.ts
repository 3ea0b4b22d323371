import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import {
  clearResolved,
  crashedCreates,
  latestDeployment,
  pendingNeverRepeated,
  settleDeployment,
} from "../../../../src/cli/state/pending-creates";
import { checkpointKeys, openStateStore } from "../../../../src/state-backend";

const ENV_URN = "urn:pulumi:dev.acme-web::stackwright::stackwright:index:Stack$stackwright:index:Environment";
const restoreUrn = `${ENV_URN}$pulumi-nodejs:dynamic/stackwright:SnapshotRestore::acme-web/uat/from-a`;
const snapshotUrn = `${ENV_URN}$pulumi-nodejs:dynamic/stackwright:Snapshot::acme-web/uat/nightly`;
const restoreInputs = {
  __provider: "exports.handler = __f0;",
  stack: "acme-web",
  environment: "uat",
  snapshot_id: "13",
  mode: "db",
  confirm: "uat",
  trigger: "t0",
};

/** A checkpoint as the engine leaves it when `up` is killed while creating a restore and a snapshot. */
function killedDeployment() {
  return {
    manifest: { time: "2026-11-23T12:00:00Z" },
    resources: [{ urn: snapshotUrn.replace("nightly", "weekly"), id: "12", type: "x", outputs: {} }],
    pending_operations: [
      {
        type: "creating",
        resource: {
          urn: restoreUrn,
          custom: true,
          type: "pulumi-nodejs:dynamic/stackwright:SnapshotRestore",
          inputs: restoreInputs,
          dependencies: [snapshotUrn],
        },
      },
      {
        type: "creating",
        resource: { urn: snapshotUrn, custom: true, type: "pulumi-nodejs:dynamic/stackwright:Snapshot" },
      },
      {
        type: "updating",
        resource: {
          urn: restoreUrn.replace("from-a", "from-b"),
          type: "pulumi-nodejs:dynamic/stackwright:SnapshotRestore",
        },
      },
    ],
  };
}

describe("a create that a killed run left in flight", () => {
  it("is found only for the types that must never run twice, and only while creating", () => {
    expect(pendingNeverRepeated(killedDeployment()).map((op) => op.resource.urn)).toEqual([restoreUrn]);
    expect(pendingNeverRepeated({ resources: [] })).toEqual([]);
    expect(pendingNeverRepeated("not a deployment")).toEqual([]);
  });

  it("becomes a recorded restore with an unknown outcome, so the next run does not restore again", () => {
    const { deployment, settled } = settleDeployment(killedDeployment());
    expect(settled).toEqual([{ urn: restoreUrn, type: "SnapshotRestore", name: "acme-web/uat/from-a" }]);
    const resources = deployment["resources"] as Record<string, unknown>[];
    expect(resources.at(-1)).toMatchObject({
      urn: restoreUrn,
      id: "unknown",
      custom: true,
      dependencies: [snapshotUrn],
      inputs: restoreInputs,
      outputs: { ...restoreInputs, transfer_id: "unknown", status: "unknown" },
    });
  });

  it("leaves every other pending operation and the rest of the deployment as they were", () => {
    const before = killedDeployment();
    const { deployment } = settleDeployment(before);
    expect(deployment["manifest"]).toEqual(before.manifest);
    expect(deployment["resources"]).toHaveLength(2);
    expect(deployment["pending_operations"]).toEqual(before.pending_operations.slice(1));
  });

  it("records a record method the same way, with an unknown result", () => {
    const urn =
      "urn:pulumi:dev.acme-web::stackwright::pulumi-nodejs:dynamic/stackwright:RecordAction::acme-web/Page/12/publish";
    const inputs = { class_name: "Page", record_id: "12", method: "publish" };
    const { deployment } = settleDeployment({
      resources: [],
      pending_operations: [
        {
          type: "creating",
          resource: { urn, type: "pulumi-nodejs:dynamic/stackwright:RecordAction", inputs },
        },
      ],
    });
    expect(deployment["resources"]).toEqual([
      {
        urn,
        type: "pulumi-nodejs:dynamic/stackwright:RecordAction",
        id: "unknown",
        inputs,
        outputs: { ...inputs, result: "unknown" },
      },
    ]);
    expect(deployment["pending_operations"]).toEqual([]);
  });
});

describe("a create whose provider process died during the call", () => {
  const provider = "urn:pulumi:dev.acme-web::stackwright::pulumi:providers:pulumi-nodejs::default::2bdbc650";
  const failed = (urn: string, type: string): EngineEvent => ({
    sequence: 1,
    timestamp: 0,
    resOpFailedEvent: {
      status: 0,
      steps: 0,
      metadata: {
        op: "create",
        urn,
        type,
        provider: "",
        new: { type, urn, id: "", parent: ENV_URN, provider, inputs: restoreInputs, outputs: {} },
      },
    },
  });
  const diagnostic = (urn: string, message: string): EngineEvent => ({
    sequence: 2,
    timestamp: 0,
    diagnosticEvent: { urn, message, color: "never", severity: "error" },
  });
  const restoreType = "pulumi-nodejs:dynamic/stackwright:SnapshotRestore";

  it("is recorded with an unknown outcome when the engine lost the provider (EOF)", () => {
    const { records, settled } = crashedCreates([
      failed(restoreUrn, restoreType),
      diagnostic(restoreUrn, "error reading from server: EOF"),
    ]);
    expect(settled).toEqual([{ urn: restoreUrn, type: "SnapshotRestore", name: "acme-web/uat/from-a" }]);
    expect(records).toEqual([
      {
        urn: restoreUrn,
        custom: true,
        type: restoreType,
        parent: ENV_URN,
        provider,
        id: "unknown",
        inputs: restoreInputs,
        outputs: { ...restoreInputs, transfer_id: "unknown", status: "unknown" },
      },
    ]);
  });

  it("is not recorded when the provider answered with an error of its own (nothing was sent)", () => {
    const refused = "Restore of snapshot 13 into acme-web/uat failed: answered 409 [STACKWRIGHT_CONFLICT]";
    expect(
      crashedCreates([failed(restoreUrn, restoreType), diagnostic(restoreUrn, refused)]).records,
    ).toEqual([]);
  });

  it("is not recorded for a type that finds its own object again by its marker", () => {
    const type = "pulumi-nodejs:dynamic/stackwright:Snapshot";
    expect(
      crashedCreates([failed(snapshotUrn, type), diagnostic(snapshotUrn, "error reading from server: EOF")])
        .records,
    ).toEqual([]);
  });
});

describe("a pending create that a later run resolved", () => {
  const deploymentUrn = `${ENV_URN}$pulumi-nodejs:dynamic/stackwright:Deployment::acme-web/uat`;
  const creating = (urn: string, type: string) => ({
    type: "creating",
    resource: { urn, custom: true, type: `pulumi-nodejs:dynamic/stackwright:${type}` },
  });

  it("is cleared once the state records its resource, and only then", () => {
    const deployment = {
      resources: [
        { urn: deploymentUrn, id: "42", type: "pulumi-nodejs:dynamic/stackwright:Deployment" },
        { urn: restoreUrn, id: "unknown", type: "pulumi-nodejs:dynamic/stackwright:SnapshotRestore" },
      ],
      pending_operations: [
        creating(deploymentUrn, "Deployment"),
        creating(snapshotUrn, "Snapshot"),
        // Never cleared here: settled before the next up (a replacement may be what was in flight).
        creating(restoreUrn, "SnapshotRestore"),
      ],
    };
    const { deployment: cleared, cleared: which } = clearResolved(deployment);
    expect(which).toEqual([{ urn: deploymentUrn, type: "Deployment", name: "acme-web/uat" }]);
    expect(
      (cleared["pending_operations"] as { resource: { urn: string } }[]).map((op) => op.resource.urn),
    ).toEqual([snapshotUrn, restoreUrn]);
    expect(cleared["resources"]).toEqual(deployment.resources);
  });

  it("leaves a checkpoint with nothing pending as it is", () => {
    expect(clearResolved({ resources: [], pending_operations: [] }).cleared).toEqual([]);
    expect(clearResolved({ resources: [] }).cleared).toEqual([]);
  });
});

describe("the checkpoint that pending creates are read from", () => {
  it.each(["plain", "gzip"] as const)("is read when the backend keeps it %s", async (form) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-pending-"));
    try {
      const store = openStateStore(pathToFileURL(dir).href);
      const text = JSON.stringify({ version: 3, checkpoint: { latest: killedDeployment() } });
      const keys = checkpointKeys("stackwright", "dev.acme-web");
      const file = path.join(dir, ...(form === "plain" ? keys.plain : keys.gzip).split("/"));
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, form === "plain" ? text : gzipSync(text));
      const latest = await latestDeployment({ store, project: "stackwright", stack: "dev.acme-web" });
      expect(pendingNeverRepeated(latest).map((op) => op.resource.urn)).toEqual([restoreUrn]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
