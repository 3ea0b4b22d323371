import { describe, expect, it } from "vitest";
import { resolveSettings } from "../../../providers/shared/credentials";
import { cacheKey } from "../../../providers/data/cache";
import { driftWarning } from "../../../providers/program-process/drift";

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
  it("names the environment, the desired sha and the live sha", () => {
    const text = driftWarning("acme-web", "uat", "a".repeat(40), "b".repeat(40));
    expect(text).toContain("acme-web/uat");
    expect(text).toContain("a".repeat(40));
    expect(text).toContain("b".repeat(40));
  });
});
