import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { packageVersion, pinnedPulumiRelease, workflowTemplates } from "../../../../src/cli/ops/package";
import { repoRoot } from "../../../helpers/scratch-project";

const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
  version: string;
  dependencies: Record<string, string>;
};

describe("the running package", () => {
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
