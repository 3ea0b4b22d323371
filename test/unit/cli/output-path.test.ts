import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkOutputPath } from "../../../src/cli/kit/output-path";

describe("the path of a file a command writes when it ends", () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-output-path-"));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("passes for a new file in a directory that exists, an existing file, stdout, and no flag", () => {
    fs.writeFileSync(path.join(dir, "old.json"), "{}");
    for (const file of [path.join(dir, "new.json"), path.join(dir, "old.json"), "-", undefined]) {
      expect(() => checkOutputPath("json", file)).not.toThrow();
    }
  });

  it("fails in one line naming the flag when the directory does not exist", () => {
    const file = path.join(dir, "missing", "drift.json");
    expect(() => checkOutputPath("json", file)).toThrow(
      `--json ${file}: the directory ${path.join(dir, "missing")} does not exist: create it or write elsewhere`,
    );
  });

  it("fails when the path is a directory", () => {
    expect(() => checkOutputPath("summary", dir)).toThrow(
      `--summary ${dir}: ${dir} is a directory: name a file`,
    );
  });
});
