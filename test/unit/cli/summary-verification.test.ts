import type { EngineEvent, OpType } from "@pulumi/pulumi/automation";
import { describe, expect, it } from "vitest";
import { renderComment } from "../../../src/cli/report/summary";
import { summaryOfRuns, verificationsOf } from "../../../src/cli/report/summary-runs";
import { DEPLOYMENT_TYPE, failedVerification, verification } from "../../helpers/verifications";

const A = "8f3c2a1d9e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a";
const B = "2b7e151628aed2a6abf7158809cf4f3c762e7160";
let sequence = 0;

function deployed(environment: string, op: OpType, outputs: Record<string, unknown>): EngineEvent[] {
  const urn = `urn:pulumi:dev.shop::stackwright::${DEPLOYMENT_TYPE}::shop/${environment}`;
  const inputs = { stack: "shop", environment, ref_type: "sha", ref: A };
  const state = (o: Record<string, unknown>) => ({
    type: DEPLOYMENT_TYPE,
    urn,
    id: "1",
    parent: "",
    provider: "",
    inputs,
    outputs: o,
  });
  sequence += 2;
  return [
    {
      sequence: sequence - 1,
      timestamp: 0,
      resourcePreEvent: { metadata: { op, urn, type: DEPLOYMENT_TYPE, provider: "", new: state({}) } },
    },
    {
      sequence,
      timestamp: 0,
      resOutputsEvent: { metadata: { op, urn, type: DEPLOYMENT_TYPE, provider: "", new: state(outputs) } },
    },
  ] as EngineEvent[];
}

describe("the summary of an up whose deployments were verified", () => {
  const events = [
    ...deployed("uat", "create", {
      stack: "shop",
      environment: "uat",
      sha: A,
      verification: verification(A, "12"),
    }),
    ...deployed("prod", "replace", {
      stack: "shop",
      environment: "prod",
      sha: A,
      verification: failedVerification(A, "13", {
        answer: {
          url: "http://127.0.0.1/health",
          status: 500,
          latency_ms: 3,
          body_excerpt: "a | b *c*",
          error: null,
        },
      }),
    }),
    // A no-change run checks nothing: the verification it carries is the last up's.
    ...deployed("dev", "same", {
      stack: "shop",
      environment: "dev",
      sha: B,
      verification: verification(B, "9"),
    }),
  ];

  it("reads one verification per deployment the run made", () => {
    expect(verificationsOf(events).map((v) => [v.environment, v.verification.result])).toEqual([
      ["uat", "passed"],
      ["prod", "failed"],
    ]);
  });

  it("has a verify line per deployment after its change, the site's answer as text in the table", () => {
    const { text } = renderComment(
      summaryOfRuns([{ stackName: "dev.shop", events, result: "ok" }], { title: "Stackwright up" }),
    );
    const rows = text.split("\n").filter((l) => l.startsWith("| "));
    expect(rows.map((r) => r.split(" | ").slice(0, 2).join(" | "))).toEqual([
      "| environment | change",
      "| prod | redeploy",
      "| prod | verify",
      "| uat | deploy",
      "| uat | verify",
    ]);
    expect(text).toContain("| uat | verify | ✅ passed (1 attempt) |");
    const prod = rows.find((r) => r.startsWith("| prod | verify"));
    expect(prod).toContain("❌ failed after 30 attempts: check 1 (/health): expected status 200; got 500");
    // The body's `|` would end the cell and its `*` start emphasis: both are text.
    expect(prod).not.toMatch(/a \| b/);
    expect(prod).toContain("\\*c\\*");
    expect(text).not.toMatch(/\| dev \| verify/);
  });
});
