import { describe, expect, it } from "vitest";
import type { StatedDeployment } from "../../../src/api";
import { validateStackFile } from "../../../src/config";
import {
  declaresVerify,
  minSoakOf,
  promotionGate,
  type GateInput,
} from "../../../src/cli/release/promotion-gate";
import { failedVerification, verification } from "../../helpers/verifications";

const SHA = "8f3c2a1d9e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a";
const OTHER = "2b7e151628aed2a6abf7158809cf4f3c762e7160";
const DEPLOYED = Date.parse("2026-11-25T09:00:00Z") / 1000;

const live: StatedDeployment = {
  type: "deployments",
  id: "12",
  attributes: { id: "12", state: "Completed", sha: SHA, title: "", summary: "", date_updated_unix: DEPLOYED },
} as StatedDeployment;

const input = (over: Partial<GateInput> = {}): GateInput => ({
  apiStack: "shop",
  from: "uat",
  to: "prod",
  declaresVerify: true,
  minSoakSeconds: 2 * 3600,
  sha: SHA,
  deployment: live,
  verifications: [verification(SHA, "12")],
  stateStack: "dev.shop",
  unreadable: undefined,
  now: new Date((DEPLOYED + 3 * 3600) * 1000),
  ...over,
});

describe("the gates of a promotion", () => {
  it("let through a build that passed its checks and has run for the soak time", () => {
    expect(promotionGate(input())).toEqual([]);
  });

  it("refuse a build that failed its checks, naming the check and the answer", () => {
    expect(promotionGate(input({ verifications: [failedVerification(SHA, "12")] }))).toEqual([
      {
        kind: "unverified",
        text: `shop/uat's build 8f3c2a1 failed verification: check 1 (/health): expected status 200; got 503 "Down for maintenance" in 12 ms`,
      },
    ]);
  });

  it("refuse a build no check is recorded of, or whose state could not be read, saying which", () => {
    expect(promotionGate(input({ verifications: [verification(OTHER, "11")] }))[0]?.text).toBe(
      "uat declares verify: but shop/uat's build 8f3c2a1 was not verified (no check of it is recorded in dev.shop's state)",
    );
    expect(
      promotionGate(
        input({ verifications: [], unreadable: "the state of dev.shop could not be read (denied)" }),
      )[0]?.text,
    ).toContain("was not verified (the state of dev.shop could not be read (denied))");
  });

  it("take the build a rollback restored as verified when its own checks passed", () => {
    const rolledBack = failedVerification(OTHER, "13", {
      result: "rolled_back",
      rolled_back_to: { deployment_id: "12", sha: SHA, result: "passed" },
    });
    expect(promotionGate(input({ verifications: [rolledBack] }))).toEqual([]);
    expect(promotionGate(input({ sha: OTHER, verifications: [rolledBack] }))[0]?.kind).toBe("unverified");
  });

  it("ask nothing of verification when the source declares no verify:", () => {
    expect(promotionGate(input({ declaresVerify: false, verifications: [] }))).toEqual([]);
  });

  it("refuse a build that has run for less than the soak time, saying when it is ready", () => {
    expect(promotionGate(input({ now: new Date((DEPLOYED + 35 * 60) * 1000) }))).toEqual([
      {
        kind: "early",
        text: "shop/uat's build 8f3c2a1 has run there for 35m, less than shop/prod's promotion.min_soak 2h (ready at 2026-11-25 11:00 UTC)",
      },
    ]);
  });

  it("refuse when the platform gives no time for the deployment, and ask nothing without min_soak", () => {
    const untimed = {
      ...live,
      attributes: { ...live.attributes, date_updated_unix: null },
    } as StatedDeployment;
    expect(promotionGate(input({ deployment: untimed }))[0]?.text).toContain(
      "cannot tell how long shop/uat's build 8f3c2a1 has run there (the platform gives no time for deployment 12)",
    );
    expect(promotionGate(input({ deployment: untimed, minSoakSeconds: undefined }))).toEqual([]);
  });
});

describe("what a stack file says to the gates", () => {
  const stack = validateStackFile(
    "stacks-config/shop.yaml",
    `stack: shop
environments:
  uat: { deployment: { ref_type: branch, ref: main } }
  prod:
    deployment: { ref_type: tag, ref: v1 }
    promotion: { from: uat, min_soak: 2h }
`,
  ).stack;

  it("reads the target's soak time, and whether an environment declares verify:", () => {
    expect(minSoakOf(stack, "prod")).toBe(7200);
    expect(minSoakOf(stack, "uat")).toBeUndefined();
    expect(declaresVerify(stack, "uat")).toBe(false);
    const uat = stack?.environments["uat"];
    const verified =
      stack === undefined
        ? undefined
        : { ...stack, environments: { uat: { ...uat, verify: { checks: [] } } } };
    expect(declaresVerify(verified as typeof stack, "uat")).toBe(true);
  });
});
