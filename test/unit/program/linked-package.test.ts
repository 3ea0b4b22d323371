import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../../helpers/scratch-project";

/**
 * An ops repository whose node_modules/stackwright is a link to this checkout (`npm link`, a
 * `file:` dependency): the compiled program must know itself there, and name the provider module
 * exactly as it does from this repository's own layout, so that state is the same bytes.
 */
describe("the program of a package linked into an ops repository", () => {
  let ops: string;
  beforeAll(() => {
    ops = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-linked-")));
    fs.mkdirSync(path.join(ops, "node_modules"));
    fs.symlinkSync(repoRoot, path.join(ops, "node_modules", "stackwright"));
    fs.writeFileSync(
      path.join(ops, "Pulumi.yaml"),
      "name: stackwright\nruntime: nodejs\nmain: node_modules/stackwright/dist/src/program/main.js\n",
    );
  });
  afterAll(() => fs.rmSync(ops, { recursive: true, force: true }));

  /** Runs `expression` in a Node process that loaded the compiled module `module` as `m`. */
  const compiled = (module: string, expression: string): unknown =>
    JSON.parse(
      execFileSync(
        process.execPath,
        [
          "-e",
          `const m = require(${JSON.stringify(path.join(repoRoot, "dist", module))}); process.stdout.write(JSON.stringify(${expression}))`,
        ],
        { encoding: "utf8" },
      ),
    );

  it("names the provider module relative to the program directory, as from this repository", () => {
    const linked = path.join(ops, "node_modules", "stackwright", "dist", "src", "program");
    const own = path.join(repoRoot, "dist", "src", "program");
    const paths = compiled(
      "providers/program-process/provider.js",
      `[m.providerModulePath(${JSON.stringify(linked)}), m.providerModulePath(${JSON.stringify(own)})]`,
    );
    expect(paths).toEqual([
      "../../providers/provider-process/index.js",
      "../../providers/provider-process/index.js",
    ]);
  });

  it("hosts the ops repository's program: Pulumi.yaml's main is this very program", () => {
    expect(compiled("src/program/hosted-project.js", `m.hostedProject(${JSON.stringify(ops)})`)).toEqual({
      name: "stackwright",
      programDir: path.join(ops, "node_modules", "stackwright", "dist", "src", "program"),
    });
  });
});
