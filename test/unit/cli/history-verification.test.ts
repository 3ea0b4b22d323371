import { describe, expect, it } from "vitest";
import type { StatedDeployment } from "../../../src/api";
import { historyOf, historyTable } from "../../../src/cli/commands/history";
import { failedVerification, verification } from "../../helpers/verifications";

const A = "8f3c2a1d9e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a";
const B = "2b7e151628aed2a6abf7158809cf4f3c762e7160";
const marked = "[stackwright sw-00000000000000000001]";

const deployment = (id: string, sha: string): StatedDeployment =>
  ({
    type: "deployments",
    id,
    attributes: { id, state: "Completed", sha, title: `deploy ${id}`, summary: marked },
  }) as StatedDeployment;

describe("history's verifications", () => {
  const deployments = [deployment("11", B), deployment("12", A), deployment("13", B)];

  it("shows per deployment what the checks found where Stackwright checked it, the rest as unchecked", () => {
    const rolledBack = failedVerification(A, "12", {
      result: "rolled_back",
      rolled_back_to: { deployment_id: "13", sha: B, result: "passed" },
    });
    const document = historyOf("shop", "prod", deployments, 20, [], [rolledBack]);
    expect(document.deployments.map((d) => [d.id, d.verification?.result ?? null])).toEqual([
      ["13", "passed"],
      ["12", "rolled_back"],
      ["11", null],
    ]);
    expect(document.deployments[0]?.verification?.text).toBe(
      "passed after the rollback from 8f3c2a1, which failed its checks",
    );
    const table = historyTable(document);
    expect(table.split("\n")[0]).toMatch(/MADE BY +VERIFIED$/);
    expect(table).toMatch(/^\* 13 .* passed$/m);
    expect(table).toMatch(/^ {2}12 .* rolled back$/m);
    expect(table).toMatch(/^ {2}11 .* -$/m);
    expect(table).toContain(
      'deployment 12: 8f3c2a1 failed: check 1 (/health): expected status 200; got 503 "Down for maintenance" in 12 ms; rolled back to 2b7e151 (deployment 13, passed)',
    );
  });

  it("shows a passed verification without a line of its own", () => {
    const table = historyTable(historyOf("shop", "prod", deployments, 20, [], [verification(B, "13")]));
    expect(table).toMatch(/^\* 13 .* passed$/m);
    expect(table).not.toContain("deployment 13:");
  });
});
