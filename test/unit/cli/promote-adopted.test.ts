import { describe, expect, it } from "vitest";
import type { StatedDeployment } from "../../../src/api";
import { notAdoptedYet } from "../../../src/cli/commands/promote";
import type { RecordedDeployments } from "../../../src/cli/release/recorded-deployments";
import { validateStackFile } from "../../../src/config";

const SHA = "a1b2c3d4e5f60718293a4b5c6d7e8f9011223344";

function handMade(id: string): StatedDeployment {
  return {
    type: "deployments",
    id,
    attributes: { id, state: "Completed", sha: SHA, title: "UAT from main", summary: "" },
  } as StatedDeployment;
}

const imported = (adopt: number) =>
  validateStackFile(
    "stacks-config/shop.yaml",
    `stack: shop
environments:
  uat:
    deployment: { ref_type: sha, ref: ${SHA}, adopt: ${adopt} }
  prod: {}
`,
  ).stack;

const state = (over: Partial<RecordedDeployments> = {}): RecordedDeployments => ({
  deployments: [],
  verifications: [],
  stack: "dev.shop",
  unreadable: undefined,
  ...over,
});

describe("why promote's refusal of a live build without the marker may be lifted", () => {
  it("says to run up first when the file adopts the live deployment and no up recorded it yet", () => {
    expect(notAdoptedYet(handMade("101"), state(), { target: "dev", config: imported(101) }, "uat")).toBe(
      " (its file adopts deployment 101, but no up of target dev has recorded it in dev.shop yet: " +
        "run up first, or pass the --target whose up adopted it)",
    );
  });

  it("says nothing more for a deployment the file does not adopt: it was made by hand", () => {
    expect(notAdoptedYet(handMade("102"), state(), { target: "dev", config: imported(101) }, "uat")).toBe("");
    expect(notAdoptedYet(handMade("101"), state(), { target: "dev", config: imported(101) }, "prod")).toBe(
      "",
    );
  });

  it("names the state that could not be read, since it may record the adoption", () => {
    const unreadable = "the state of dev.shop in s3://bucket could not be read (Access Denied)";
    expect(
      notAdoptedYet(handMade("101"), state({ unreadable }), { target: "dev", config: imported(101) }, "uat"),
    ).toBe(` (${unreadable})`);
  });

  it("says nothing when the state records the deployment (then it is not refused as made by hand)", () => {
    const recorded = state({ deployments: [{ id: "101", sha: SHA }] });
    expect(notAdoptedYet(handMade("101"), recorded, { target: "dev", config: imported(101) }, "uat")).toBe(
      "",
    );
  });
});
