import { describe, expect, it } from "vitest";
import { ApiErrorDocument, CreateDeploymentRequest, DeploymentListQuery, Id } from "../../../src/api";

describe("wire schemas", () => {
  it("normalise numeric ids to strings", () => {
    expect(Id.parse(5)).toBe("5");
    expect(Id.parse("acme")).toBe("acme");
  });

  it("normalise a 1.0 numeric error status to a string", () => {
    expect(ApiErrorDocument.parse({ errors: [{ status: 404, title: "x" }] }).errors[0]?.status).toBe("404");
  });

  it("refuse a ref with promote_from_uat and require one with branch", () => {
    const promote = CreateDeploymentRequest.safeParse({ ref_type: "promote_from_uat", ref: "main" });
    expect(promote.error?.issues[0]?.path).toEqual(["ref"]);
    const branch = CreateDeploymentRequest.safeParse({ ref_type: "branch" });
    expect(branch.error?.issues[0]?.path).toEqual(["ref"]);
    expect(CreateDeploymentRequest.safeParse({ ref_type: "branch", ref: "main" }).success).toBe(true);
  });

  it("read integer query filters from text", () => {
    expect(DeploymentListQuery.parse({ datestarted_from_unix: "12" }).datestarted_from_unix).toBe(12);
  });
});
