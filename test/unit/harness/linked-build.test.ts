/**
 * Scratch projects hard-link the build (test/helpers/scratch-project.ts) and the run's teardown
 * checks the build is as it was (test/global-setup.ts): these show the check sees exactly the
 * writes that go through a link.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { changedFiles, treeDigests } from "../../global-setup";
import { hardLinkTree } from "../../helpers/scratch-project";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-linked-build-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function build(name: string): string {
  const root = path.join(dir, name);
  fs.mkdirSync(path.join(root, "src", "program"), { recursive: true });
  fs.writeFileSync(path.join(root, "src", "program", "index.js"), "module.exports = 1;\n");
  fs.writeFileSync(path.join(root, ".tsbuildinfo"), "{}\n");
  return root;
}

/** A build named `name`, its digests now, and a hard-linked copy of it. */
function linkedCopy(name: string): { from: string; before: Map<string, string>; to: string } {
  const from = build(name);
  const before = treeDigests(from);
  const to = path.join(dir, `${name}-copy`);
  expect(hardLinkTree(from, to)).toBe(true);
  return { from, before, to };
}

describe("a hard-linked copy of the build", () => {
  it("leaves the build's digests alone when a test adds a file or writes one anew", () => {
    const { from, before, to } = linkedCopy("added");
    fs.writeFileSync(path.join(to, "src", "program", "legacy.js"), "module.exports = 2;\n");
    fs.rmSync(path.join(to, "src", "program", "index.js"));
    fs.writeFileSync(path.join(to, "src", "program", "index.js"), "module.exports = 3;\n");
    expect(changedFiles(before, treeDigests(from))).toEqual([]);
  });

  it("shows in the build's digests when a test writes into a linked file", () => {
    const { from, before, to } = linkedCopy("written");
    fs.appendFileSync(path.join(to, "src", "program", "index.js"), "// changed\n");
    expect(changedFiles(before, treeDigests(from))).toEqual([path.join("src", "program", "index.js")]);
  });

  it("says false and leaves nothing where it cannot link", () => {
    const to = path.join(dir, "no-such-parent", "copy");
    expect(hardLinkTree(build("refused"), to)).toBe(false);
    expect(fs.existsSync(to)).toBe(false);
  });
});
