import { describe, expect, it } from "vitest";
import { commitShaProblem, isCommitSha } from "../../../src/api";
import { formatErrorLine, validateStackFile } from "../../../src/config";

describe("the commit sha rule", () => {
  it.each(["8f3c2a1", "8f3c2a1d9e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a"])("accepts %s", (sha) => {
    expect(isCommitSha(sha)).toBe(true);
    expect(commitShaProblem(sha)).toBeUndefined();
  });

  it.each([
    "main",
    "--upload-pack=touch /tmp/x",
    "8f3c2a1\nSigned-off-by: x",
    "8F3C2A1",
    "8f3c2a",
    "8f3c2a1d9e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a0",
    "",
  ])("refuses %j, showing it on one line", (sha) => {
    expect(isCommitSha(sha)).toBe(false);
    const problem = commitShaProblem(sha) ?? "";
    expect(problem).toContain("is not a commit sha (7 to 40 lowercase hex digits");
    expect(problem).not.toContain("\n");
  });

  it("cuts a long value it shows", () => {
    expect((commitShaProblem("x".repeat(10_000)) ?? "").length).toBeLessThan(150);
  });
});

describe("validate and a sha ref", () => {
  const file = (ref: string) =>
    `stack: acme-web\nenvironments:\n  uat:\n    deployment:\n      ref_type: sha\n      ref: ${ref}\n`;

  it("refuses ref_type sha with a ref that is not a commit sha, at the ref's line and column", () => {
    const { errors } = validateStackFile("stacks-config/acme-web.yaml", file('"xyz"'));
    expect(errors.map(formatErrorLine)).toEqual([
      `stacks-config/acme-web.yaml:6:12: environments.uat.deployment.ref: must be a commit sha (7 to 40 lowercase hex digits) when ref_type is 'sha', not "xyz"`,
    ]);
  });

  it("accepts a short and a full lowercase sha", () => {
    expect(validateStackFile("a.yaml", file("8f3c2a1")).errors).toEqual([]);
    expect(validateStackFile("a.yaml", file("8f3c2a1d9e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a")).errors).toEqual([]);
  });
});
