import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { readFailure } from "../../../providers/data/cache";

describe("a data source that cannot be read", () => {
  const cause = Object.assign(new Error("GET /svc/project/acme-web/environment/uat: could not connect"), {
    code: "STACKWRIGHT_CONNECTION",
  });

  it("stops the program with one line naming what was read and why", () => {
    const failure = readFailure("environment", { stack: "acme-web", environment: "uat" }, cause);
    expect(pulumi.RunError.isInstance(failure)).toBe(true);
    expect(failure.message).toBe(
      "Stackwright could not read environment (stack acme-web, environment uat): GET /svc/project/acme-web/environment/uat: could not connect",
    );
  });

  it("keeps the structured API error as its cause, out of the printed message", () => {
    const failure = readFailure("stacks", undefined, cause);
    expect(failure.message).toBe(`Stackwright could not read stacks: ${cause.message}`);
    expect((failure as Error & { cause?: unknown }).cause).toBe(cause);
    expect(Object.keys(failure)).not.toContain("cause");
  });
});
