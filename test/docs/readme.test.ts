import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { documents } from "../helpers/doc-blocks";
import { repoRoot } from "../helpers/scratch-project";

const read = (file: string) => fs.readFileSync(path.join(repoRoot, file), "utf8");

describe("the pages a user reads", () => {
  it("start with a README of at most 250 lines that links every page of docs/ it leaves things to", () => {
    const readme = read("README.md");
    expect(readme.split("\n").length).toBeLessThanOrEqual(250);
    for (const page of ["docs/guide.md", "docs/ci.md", "docs/state.md", "CHANGELOG.md", "CONTRIBUTING.md"]) {
      expect(readme, page).toContain(`(${page}`);
    }
  });

  it("keep no development diary: no issue numbers and no measurements by commit in the README or the changelog", () => {
    for (const file of [
      "README.md",
      "CHANGELOG.md",
      ...documents(repoRoot).filter((f) => f.startsWith("docs/")),
    ]) {
      const text = read(file);
      expect(text, file).not.toMatch(/\bissue \d+/i);
      if (file === "README.md" || file === "CHANGELOG.md")
        expect(text, file).not.toMatch(/\bcommit [0-9a-f]{7}/);
    }
  });
});
