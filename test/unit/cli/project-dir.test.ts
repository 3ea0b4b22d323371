import { execFileSync } from "node:child_process";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { defaultProjectDir } from "../../../src/cli/engine/workspace";
import { repoRoot } from "../../helpers/scratch-project";

describe("the default project directory", () => {
  it("is the package root when the CLI runs from its sources", () => {
    expect(defaultProjectDir()).toBe(repoRoot);
  });

  it("is the package root when the CLI runs compiled from dist/", () => {
    const compiled = path.join(repoRoot, "dist", "src", "cli", "engine", "workspace.js");
    const dir = execFileSync(
      process.execPath,
      ["-e", `process.stdout.write(require(${JSON.stringify(compiled)}).defaultProjectDir())`],
      { encoding: "utf8" },
    );
    expect(dir).toBe(repoRoot);
  });
});
