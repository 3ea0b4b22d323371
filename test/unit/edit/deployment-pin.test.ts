import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  EditRefusal,
  commitOnNewBranch,
  pinDeployment,
  unifiedDiff,
  writeFileAtomic,
} from "../../../src/edit";
import { fixtures, GIT_AUTHOR } from "../../helpers/fixtures";

const test = fixtures();
const SHA = "8f3c2a1d9e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a";
const PIN = { sha: SHA, title: "Promote 8f3c2a1 from uat" };

function pinned(text: string, environment = "prod"): string {
  const outcome = pinDeployment("acme.yaml", text, environment, PIN);
  if (!outcome.changed) throw new Error("expected a change");
  return outcome.text;
}

function refusal(text: string, environment = "prod"): EditRefusal {
  try {
    pinDeployment("acme.yaml", text, environment, PIN);
  } catch (error) {
    if (error instanceof EditRefusal) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("pinning a deployment", () => {
  it("rewrites ref_type, adds the ref after it and replaces the title, keeping comments and other keys", () => {
    const text = [
      "stack: acme-web",
      "environments:",
      "  prod:",
      "    # promote what uat runs",
      "    deployment:",
      "      ref_type: promote_from_uat   # the platform picks uat's build",
      "      approval: request",
      "      title: 'Promote UAT'",
      "      adopt: 42",
      "    lock: { message: freeze }",
      "",
    ].join("\n");
    expect(pinned(text)).toBe(
      [
        "stack: acme-web",
        "environments:",
        "  prod:",
        "    # promote what uat runs",
        "    deployment:",
        "      ref_type: sha   # the platform picks uat's build",
        `      ref: ${SHA}`,
        "      approval: request",
        "      title: 'Promote 8f3c2a1 from uat'",
        "    lock: { message: freeze }",
        "",
      ].join("\n"),
    );
  });

  it("edits a flow map in place and appends the keys it lacks after the ones before them", () => {
    const text =
      "stack: s\nenvironments:\n  prod: { deployment: { ref_type: tag, ref: v1, adopt: 3 } } # end\n";
    expect(pinned(text)).toBe(
      `stack: s\nenvironments:\n  prod: { deployment: { ref_type: sha, ref: ${SHA}, title: Promote 8f3c2a1 from uat } } # end\n`,
    );
  });

  it("writes out a deployment that is an alias of another as a map of its own, leaving the other alone", () => {
    const text = [
      "stack: s",
      "environments:",
      "  uat:",
      "    deployment: &base",
      "      ref_type: branch",
      "      ref: main",
      "  prod:",
      "    deployment: *base",
      "",
    ].join("\n");
    const result = pinned(text);
    expect(result.split("\n").slice(0, 7)).toEqual(text.split("\n").slice(0, 7));
    expect(result.split("\n")[7]).toBe(
      `    deployment: { ref_type: sha, ref: ${SHA}, title: Promote 8f3c2a1 from uat }`,
    );
  });

  it("refuses to change a deployment that another environment reuses through an alias", () => {
    const text =
      "stack: s\nenvironments:\n  uat:\n    deployment: &base { ref_type: branch, ref: main }\n  prod:\n    deployment: *base\n";
    const error = refusal(text, "uat");
    expect(error.code).toBe("shared-anchor");
    expect(error.message).toBe(
      "acme.yaml: environments.uat.deployment: is anchored (&base, line 4) and reused by an alias elsewhere; changing it would change that place too; give it its own copy first",
    );
  });

  it("quotes a sha that YAML would read as a number", () => {
    const text = "stack: s\nenvironments:\n  prod:\n    deployment:\n      ref_type: redeploy\n";
    const outcome = pinDeployment("a.yaml", text, "prod", {
      sha: "1234567e89012345678901234567890123456789",
      title: "x",
    });
    expect(outcome.changed && outcome.text).toContain('ref: "1234567e89012345678901234567890123456789"');
  });

  it("keeps CRLF line ends", () => {
    const text = "stack: s\r\nenvironments:\r\n  prod:\r\n    deployment:\r\n      ref_type: redeploy\r\n";
    expect(pinned(text)).toBe(
      `stack: s\r\nenvironments:\r\n  prod:\r\n    deployment:\r\n      ref_type: sha\r\n      ref: ${SHA}\r\n      title: Promote 8f3c2a1 from uat\r\n`,
    );
  });

  it("changes nothing when the deployment already pins the sha", () => {
    const text = `stack: s\nenvironments:\n  prod:\n    deployment: { ref_type: sha, ref: ${SHA}, title: old }\n`;
    expect(pinDeployment("a.yaml", text, "prod", PIN).changed).toBe(false);
  });

  it("refuses an environment without a deployment, and a file that does not validate", () => {
    const text = "stack: s\nenvironments:\n  prod:\n    lock: {}\n";
    expect(refusal(text).message).toBe(
      "acme.yaml: environments.prod has no deployment, so Stackwright does not manage what it runs; add one first",
    );
    expect(refusal("stack: s\nenvironments:\n  prod:\n    deployment: { ref_type: nope }\n").message).toMatch(
      /^the stack file does not validate \(fix it first\): acme\.yaml:4:29: environments\.prod\.deployment\.ref_type: /,
    );
  });
});

describe("writing a file atomically", () => {
  test("replaces the content and leaves no temporary file", async ({ scratchDir: dir }) => {
    const file = join(dir, "a.yaml");
    writeFileSync(file, "old\n");
    await writeFileAtomic(file, "new\n");
    expect(readFileSync(file, "utf8")).toBe("new\n");
    expect(readdirSync(dir)).toEqual(["a.yaml"]);
  });

  test("leaves the original whole and removes the temporary file when the write fails before the rename", async ({
    scratchDir: dir,
  }) => {
    const file = join(dir, "a.yaml");
    writeFileSync(file, "old\n");
    let seen = "";
    await expect(
      writeFileAtomic(file, "new\n", {
        beforeRename: (temporary) => {
          seen = temporary;
          throw new Error("disk full");
        },
      }),
    ).rejects.toThrow("disk full");
    expect(existsSync(seen)).toBe(false);
    expect(readFileSync(file, "utf8")).toBe("old\n");
    expect(readdirSync(dir)).toEqual(["a.yaml"]);
  });
});

describe("committing on a new branch", () => {
  test("commits the new content on the new branch without touching the working tree or HEAD", ({
    gitRepository: { dir, git },
  }) => {
    const head = git("rev-parse", "HEAD");
    const made = commitOnNewBranch(
      dir,
      "promote/prod",
      [{ file: join(dir, "a.yaml"), text: "new\n" }],
      "Promote\n\nwhy\n",
    );
    expect(git("rev-parse", "promote/prod")).toBe(made.commit);
    expect(git("show", "promote/prod:a.yaml")).toBe("new");
    expect(git("log", "-1", "--format=%an <%ae>|%s|%P", "promote/prod")).toBe(
      `${GIT_AUTHOR.name} <${GIT_AUTHOR.email}>|Promote|${head}`,
    );
    expect(git("rev-parse", "HEAD")).toBe(head);
    expect(git("symbolic-ref", "--short", "HEAD")).toBe("main");
    expect(readFileSync(join(dir, "a.yaml"), "utf8")).toBe("old\n");
    expect(git("status", "--porcelain")).toBe("");
  });

  test("refuses a directory outside any git repository", ({ scratchDir: dir }) => {
    expect(() => commitOnNewBranch(dir, "x", [{ file: join(dir, "a.yaml"), text: "x" }], "m")).toThrow(
      /^git rev-parse failed in .*: fatal: not a git repository/,
    );
  });

  test("refuses an existing branch and a file with uncommitted changes", ({
    gitRepository: { dir, git },
  }) => {
    git("branch", "taken");
    expect(() => commitOnNewBranch(dir, "taken", [{ file: join(dir, "a.yaml"), text: "x" }], "m")).toThrow(
      "branch 'taken' already exists; name a new one",
    );
    writeFileSync(join(dir, "a.yaml"), "edited\n");
    expect(() => commitOnNewBranch(dir, "fresh", [{ file: join(dir, "a.yaml"), text: "x" }], "m")).toThrow(
      "a.yaml has changes that are not committed; commit or stash them first",
    );
  });
});

describe("the diff of an edit", () => {
  it("shows the changed lines with three lines of context", () => {
    const before = "a\nb\nc\nd\ne\nf\ng\nh\n";
    const after = "a\nb\nc\nd\nE\nX\nf\ng\nh\n";
    expect(unifiedDiff("x.yaml", before, after)).toBe(
      [
        "--- a/x.yaml",
        "+++ b/x.yaml",
        "@@ -2,7 +2,8 @@",
        " b",
        " c",
        " d",
        "-e",
        "+E",
        "+X",
        " f",
        " g",
        " h",
      ].join("\n"),
    );
  });
});
