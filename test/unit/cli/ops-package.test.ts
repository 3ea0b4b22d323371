import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import {
  packageRoot,
  packageVersion,
  pinnedPulumiRelease,
  workflowTemplates,
} from "../../../src/cli/ops/package";
import { repoRoot } from "../../helpers/scratch-project";

const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
  version: string;
  dependencies: Record<string, string>;
};

describe("the running package", () => {
  it("is this checkout when the CLI runs from its sources", () => {
    expect(packageRoot()).toBe(repoRoot);
  });

  it("is this checkout when the CLI runs compiled from dist/", () => {
    const compiled = path.join(repoRoot, "dist", "src", "cli", "ops", "package.js");
    const root = execFileSync(
      process.execPath,
      ["-e", `process.stdout.write(require(${JSON.stringify(compiled)}).packageRoot())`],
      { encoding: "utf8" },
    );
    expect(root).toBe(repoRoot);
  });

  it("says its version and the @pulumi/pulumi release it pins, as package.json has them", () => {
    expect(packageVersion(repoRoot)).toBe(manifest.version);
    expect(pinnedPulumiRelease(repoRoot)).toBe(manifest.dependencies["@pulumi/pulumi"]);
  });

  it("lists its workflow templates by name, and none when it has no templates directory", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-templates-"));
    try {
      expect(workflowTemplates(root)).toEqual([]);
      fs.mkdirSync(path.join(root, "templates", "workflows"), { recursive: true });
      fs.writeFileSync(path.join(root, "templates", "workflows", "up.yml"), "name: up\n");
      fs.writeFileSync(path.join(root, "templates", "workflows", "README.md"), "not a workflow\n");
      fs.writeFileSync(path.join(root, "templates", "workflows", "drift.yml"), "name: drift\n");
      expect(workflowTemplates(root)).toEqual([
        { name: "drift.yml", text: "name: drift\n" },
        { name: "up.yml", text: "name: up\n" },
      ]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
