import { describe, expect, it } from "vitest";
import { isStackFileName, stackFileNameFor } from "../../../src/config";

describe("the file name of an imported stack", () => {
  it.each([
    ["acme-web", "acme-web.yaml"],
    ["x.yaml", "x.yaml"],
    ["x.yml", "x.yml"],
    ["v1.2", "v1.2.yaml"],
    ["été", "été.yaml"],
  ])("maps %j to %j, never doubling the extension", (stack, file) => {
    expect(stackFileNameFor(stack)).toEqual({ ok: true, name: file });
    expect(isStackFileName(file)).toBe(true);
  });

  it.each([
    [".hidden", "starts with '.', and the loader skips hidden files"],
    ["a/b", "holds a path separator ('/' or '\\')"],
    ["a\\b", "holds a path separator ('/' or '\\')"],
    ["a\u001b[2Jb", "holds a control character"],
    ["a\u0085b", "holds a control character"],
    ["n".repeat(101), "is 101 bytes long, over the 100 a file name may take"],
    ["é".repeat(51), "is 102 bytes long, over the 100 a file name may take"],
  ])("refuses %j: it %s", (stack, problem) => {
    expect(stackFileNameFor(stack)).toEqual({ ok: false, problem });
  });
});
