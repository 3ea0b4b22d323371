import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect } from "vitest";
import { toolDigest } from "../../../src/project/fingerprint";
import { fixtures } from "../../helpers/fixtures";

const test = fixtures();

/**
 * A tool root with a built program (one module, its source map, the build's info) and a project
 * beside it; `change` edits the copy before its digest is taken. Each copy has paths of its own,
 * so the digest (remembered per project, tool root and CLI version) is computed afresh.
 */
function digestOf(root: string, name: string, change: (dist: string) => void = () => {}): string {
  const tools = path.join(root, name, "tool");
  const dist = path.join(tools, "dist", "src");
  fs.mkdirSync(dist, { recursive: true });
  fs.writeFileSync(path.join(tools, "package.json"), '{ "name": "stackwright", "version": "0.2.0" }\n');
  fs.writeFileSync(path.join(dist, "main.js"), '"use strict";\nexports.main = () => 0;\n');
  fs.writeFileSync(path.join(dist, "main.js.map"), '{"version":3,"sources":["../../src/main.ts"]}\n');
  fs.writeFileSync(path.join(tools, "dist", ".tsbuildinfo"), '{"version":"5.9.3"}\n');
  change(path.join(tools, "dist"));
  const project = path.join(root, name, "project");
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, "Pulumi.yaml"), "name: ops\nruntime: nodejs\n");
  return toolDigest(project, "v3.259.0", tools);
}

describe("the digest of the tool a stack was last run with", () => {
  test("changes with the code the engine runs, not with the build's source maps or build info", ({
    scratchDir,
  }) => {
    const built = digestOf(scratchDir, "built");
    expect(digestOf(scratchDir, "same")).toBe(built);
    const rebuiltElsewhere = digestOf(scratchDir, "maps", (dist) => {
      fs.writeFileSync(
        path.join(dist, "src", "main.js.map"),
        '{"version":3,"sources":["/elsewhere/main.ts"]}\n',
      );
      fs.writeFileSync(path.join(dist, ".tsbuildinfo"), '{"version":"5.9.3","changed":true}\n');
    });
    expect(rebuiltElsewhere).toBe(built);
    const newCode = digestOf(scratchDir, "code", (dist) => {
      fs.writeFileSync(path.join(dist, "src", "main.js"), '"use strict";\nexports.main = () => 1;\n');
    });
    expect(newCode).not.toBe(built);
    const newModule = digestOf(scratchDir, "module", (dist) => {
      fs.writeFileSync(path.join(dist, "src", "extra.js"), '"use strict";\n');
    });
    expect(newModule).not.toBe(built);
  });
});
