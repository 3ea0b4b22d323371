import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commitOnNewBranch } from "../../../src/edit";

// One repository with a remote `origin` (never fetched from: only its name matters).
let dir = "";
const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, encoding: "utf8" }).trim();
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "sw-branch-names-"));
  git("init", "-q", "-b", "main");
  git("config", "user.name", "Rel Eng");
  git("config", "user.email", "rel@example.com");
  git("remote", "add", "origin", "https://git.example.test/team/config.git");
  writeFileSync(join(dir, "a.yaml"), "old\n");
  git("add", ".");
  git("commit", "-qm", "first");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const commit = (branch: string) =>
  commitOnNewBranch(dir, branch, [{ file: join(dir, "a.yaml"), text: "new\n" }], "Promote\n");

describe("the --branch of promote and rollback", () => {
  it.each([
    ["@", /^"@" names what is checked out, not a new branch; name one$/],
    // git's own rule refuses HEAD already; ours would too.
    ["HEAD", /^"HEAD" (is not a valid git branch name|names what is checked out)/],
    ["refs/heads/x", /^"refs\/heads\/x" is a ref path; name the branch without refs\/ \(e\.g\. "x"\)$/],
    ["origin/main", /^"origin\/main" starts with the remote 'origin\/', so it would be ambiguous/],
    ["a..b", /^"a\.\.b" is not a valid git branch name \(git check-ref-format --branch\)$/],
    ["-f", /^"-f" is not a valid git branch name/],
    ["x\ny", /^"x\\ny" is not a valid git branch name/],
  ])("refuses %j with one line and makes no ref", (branch, message) => {
    const refs = git("for-each-ref", "--format=%(refname)");
    expect(() => commit(branch)).toThrow(message);
    expect(git("for-each-ref", "--format=%(refname)")).toBe(refs);
  });

  it("accepts a plain new name, with slashes that name no remote", () => {
    expect(commit("promote/prod-8f3c2a1").branch).toBe("promote/prod-8f3c2a1");
    expect(git("rev-parse", "--verify", "--quiet", "refs/heads/promote/prod-8f3c2a1")).not.toBe("");
  });
});
