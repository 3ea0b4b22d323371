import { describe, expect, it } from "vitest";
import { resolveSettings } from "../../../providers/shared/credentials";
import { cacheKey } from "../../../providers/data/cache";
import type { Deployment } from "../../../src/api";
import {
  describeHandDeployment,
  driftWarning,
  liveDeploymentOf,
} from "../../../providers/program-process/drift";

describe("provider credentials", () => {
  const config = {
    get: (key: string) =>
      ({
        "stackwright:apiUrl": "https://cfg",
        "stackwright:email": "cfg@x",
        "stackwright:apiToken": "cfg-token",
      })[key],
  };

  it("come from stack config", () => {
    expect(resolveSettings(config, {})).toEqual({
      baseUrl: "https://cfg",
      email: "cfg@x",
      token: "cfg-token",
    });
  });

  it("are overridden field by field by STACKWRIGHT_* variables", () => {
    expect(resolveSettings(config, { STACKWRIGHT_API_TOKEN: "env-token", STACKWRIGHT_EMAIL: "" })).toEqual({
      baseUrl: "https://cfg",
      email: "cfg@x",
      token: "env-token",
    });
  });
});

describe("data source memo keys", () => {
  it("ignore key order and undefined values", () => {
    expect(cacheKey("e", { stack: "a", environment: "b", x: undefined })).toBe(
      cacheKey("e", { environment: "b", stack: "a" }),
    );
    expect(cacheKey("e", { stack: "a" })).not.toBe(cacheKey("f", { stack: "a" }));
  });
});

describe("the drift warning", () => {
  const LIVE = "b".repeat(40);
  const deployment = (id: string, attributes: Deployment["attributes"]): Deployment => ({
    type: "deployments",
    id,
    attributes,
  });

  it("names the environment, the desired sha and the live sha", () => {
    const text = driftWarning("acme-web", "uat", "a".repeat(40), LIVE);
    expect(text).toContain("acme-web/uat");
    expect(text).toContain("a".repeat(40));
    expect(text).toContain(LIVE);
  });

  it("names the hand deployment that put the live sha there: id, title, ref, deployer and when", () => {
    const history = [
      deployment("7", { sha: LIVE, state: "Failed", date_created_unix: 1_764_100_000 }),
      deployment("6", {
        sha: LIVE,
        state: "Completed",
        title: "Hotfix",
        ref_type: "branch",
        ref_name: "hotfix/login",
        deployer: { email: "dev@example.com", name: "Devi Member" },
        date_created_unix: 1_764_000_000,
        date_updated_unix: 1_764_064_800,
      }),
      deployment("5", { sha: "a".repeat(40), state: "Completed" }),
    ];
    const hand = liveDeploymentOf(history, LIVE);
    expect(hand?.id).toBe("6");
    const text = driftWarning(
      "acme-web",
      "uat",
      "a".repeat(40),
      LIVE,
      undefined,
      describeHandDeployment(hand!),
    );
    expect(text).toContain(
      `runs ${LIVE} (a deployment made by hand: deployment 6 "Hotfix", from branch hotfix/login, by dev@example.com, at 2025-11-25 10:00 UTC).`,
    );
  });

  it("says only what the platform's answer has, and nothing when no deployment has the live sha", () => {
    // A reduced list item of the real platform: no title, dates or deployer.
    const bare = deployment("9", { sha: LIVE, state: "Completed", ref_type: "sha", ref_name: LIVE });
    expect(describeHandDeployment(bare)).toBe("deployment 9");
    expect(
      liveDeploymentOf([deployment("9", { sha: "c".repeat(40), state: "Completed" })], LIVE),
    ).toBeUndefined();
    expect(driftWarning("acme-web", "uat", "a".repeat(40), LIVE)).toContain(
      "(a deployment made by hand). Set",
    );
  });
});
