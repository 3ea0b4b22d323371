import { describe, expect, it } from "vitest";
import type { DeploymentState, StatedDeployment } from "../../../src/api";
import { verificationText } from "../../../src/api";
import {
  driftReport,
  recordedDeployments,
  statusTable,
  syncOf,
  countSync,
  type EnvironmentStatus,
  type FleetStatus,
} from "../../../src/observe";
import { deploymentResource, failedVerification, verification } from "../../helpers/verifications";

const FAILED = "8f3c2a1d9e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a";
const BEFORE = "2b7e151628aed2a6abf7158809cf4f3c762e7160";
const desired = { ref_type: "sha", ref: FAILED };
const applied = { ref_type: "sha", ref: FAILED, sha: FAILED, deployment_id: "12" };

function deployment(id: number, sha: string, state: DeploymentState = "Completed"): StatedDeployment {
  return {
    type: "deployments",
    id: String(id),
    attributes: { id: String(id), state, sha, title: `deploy ${id}`, summary: "" },
  } as StatedDeployment;
}

const rolledBack = failedVerification(FAILED, "12", {
  result: "rolled_back",
  rolled_back_to: { deployment_id: "13", sha: BEFORE, result: "passed" },
});

describe("the sync state of an environment whose build was verified", () => {
  it("is verify failed, naming the check and the answer, while it runs the build that failed its checks", () => {
    const verdict = syncOf({
      desired,
      applied,
      verification: failedVerification(FAILED, "12"),
      liveSha: FAILED,
      deployments: [deployment(11, BEFORE), deployment(12, FAILED)],
    });
    expect(verdict.sync).toBe("verify failed");
    expect(verdict.reason).toBe(
      '8f3c2a1 failed verification: check 1 (/health): expected status 200; got 503 "Down for maintenance" in 12 ms',
    );
  });

  it("is rolled back, with both shas, while it runs the build that ran before", () => {
    const verdict = syncOf({
      desired,
      applied,
      verification: rolledBack,
      liveSha: BEFORE,
      deployments: [deployment(11, BEFORE), deployment(12, FAILED), deployment(13, BEFORE)],
    });
    expect(verdict.sync).toBe("rolled back");
    expect(verdict.reason).toContain("8f3c2a1 failed verification (check 1 (/health)");
    expect(verdict.reason).toContain("rolled back to 2b7e151 (deployment 13, passed)");
  });

  it("is in sync when the checks passed, and drifted when someone deployed another build since", () => {
    const passed = verification(FAILED, "12");
    const base = { desired, applied, verification: passed, deployments: [deployment(12, FAILED)] };
    expect(syncOf({ ...base, liveSha: FAILED }).sync).toBe("in sync");
    expect(syncOf({ ...base, liveSha: BEFORE }).sync).toBe("drifted");
    // A failed verification of a build no longer running is history, not the state.
    expect(syncOf({ ...base, verification: failedVerification(FAILED, "12"), liveSha: BEFORE }).sync).toBe(
      "drifted",
    );
  });

  it("is drifted when the file asks for another ref than the build that was rolled back", () => {
    const verdict = syncOf({
      desired: { ref_type: "sha", ref: BEFORE },
      applied,
      verification: rolledBack,
      liveSha: BEFORE,
      deployments: [deployment(13, BEFORE)],
    });
    expect(verdict.sync).toBe("drifted");
  });
});

describe("a verification recorded in the state", () => {
  it("is read from each Deployment resource's outputs, and left out when it has another shape", () => {
    const resources = [
      deploymentResource("shop", "uat", {
        sha: FAILED,
        id: "12",
        verification: failedVerification(FAILED, "12"),
      }),
      deploymentResource("shop", "prod", { sha: BEFORE, id: "7" }),
      {
        ...deploymentResource("shop", "dev", { sha: BEFORE, id: "8" }),
        outputs: { stack: "shop", environment: "dev", verification: { result: "maybe" } },
      },
    ];
    const recorded = recordedDeployments(resources, "shop");
    expect(recorded.map((r) => [r.environment, r.verification?.result])).toEqual([
      ["uat", "failed"],
      ["prod", undefined],
      ["dev", undefined],
    ]);
  });

  it("reads as one line with the attempts, the check and the answer", () => {
    expect(verificationText(verification(FAILED, "12"))).toBe("passed (1 attempt)");
    expect(verificationText(failedVerification(FAILED, "12"))).toBe(
      'failed after 30 attempts: check 1 (/health): expected status 200; got 503 "Down for maintenance" in 12 ms',
    );
    expect(
      verificationText(
        failedVerification(FAILED, "12", {
          answer: {
            url: "http://127.0.0.1/",
            status: null,
            latency_ms: null,
            body_excerpt: "",
            error: "connection reset",
          },
        }),
      ),
    ).toContain("got no answer: connection reset");
    expect(verificationText(rolledBack)).toBe(
      '8f3c2a1 failed: check 1 (/health): expected status 200; got 503 "Down for maintenance" in 12 ms; rolled back to 2b7e151 (deployment 13, passed)',
    );
  });
});

function fleet(environments: EnvironmentStatus[]): FleetStatus {
  const stacks = [
    {
      stack: "shop",
      pulumi_stack: "dev.shop",
      file: "stacks-config/shop.yaml",
      last_up: null,
      confirmed_at: null,
      error: null,
      environments,
    },
  ];
  return {
    kind: "stackwright.status",
    version: 1,
    target: "dev",
    generated_at: "2026-11-25T10:00:00.000Z",
    counts: countSync(stacks),
    stacks,
  };
}

function env(name: string, over: Partial<EnvironmentStatus>): EnvironmentStatus {
  return {
    stack: "shop",
    environment: name,
    desired,
    applied,
    verification: null,
    live: { sha: FAILED, short_sha: FAILED.slice(0, 7), deployment: null },
    sync: "in sync",
    reason: null,
    drift: null,
    lock: null,
    window: null,
    newest: null,
    recent: [],
    failure_log: null,
    ...over,
  };
}

describe("status and drift of verified environments", () => {
  const status = fleet([
    env("uat", {
      sync: "verify failed",
      reason: "8f3c2a1 failed verification: check 1",
      verification: failedVerification(FAILED, "12"),
    }),
    env("prod", {
      sync: "rolled back",
      reason: "8f3c2a1 failed verification; rolled back to 2b7e151",
      verification: rolledBack,
      live: { sha: BEFORE, short_sha: BEFORE.slice(0, 7), deployment: null },
    }),
    env("dev", { verification: verification(FAILED, "12") }),
    env("qa", { live: null, sync: "unknown", reason: "could not be read" }),
    env("test", {}),
  ]);

  it("counts and lists the two states in the table, with why", () => {
    const table = statusTable(status, { colour: false });
    expect(table.split("\n")[0]).toBe("dev: 2 in sync · 1 verify failed · 1 rolled back · 1 unknown");
    expect(table).toMatch(/^shop +uat +verify failed /m);
    expect(table).toMatch(/^shop +prod +rolled back /m);
    expect(table).toContain("  shop/prod: 8f3c2a1 failed verification; rolled back to 2b7e151");
  });

  it("gives drift --json the verification of each environment's current build", () => {
    const { report } = driftReport(status, new Map());
    expect(report.verifications.map((v) => [v.environment, v.live_sha.slice(0, 7), v.result])).toEqual([
      ["uat", "8f3c2a1", "failed"],
      ["prod", "2b7e151", "passed"],
      ["dev", "8f3c2a1", "passed"],
      ["test", "8f3c2a1", "unverified"],
    ]);
    expect(report.verifications[0]?.verification?.answer?.status).toBe(503);
    // Neither state is drift: the file and the last up agree.
    expect(report.drift).toEqual([]);
  });
});
