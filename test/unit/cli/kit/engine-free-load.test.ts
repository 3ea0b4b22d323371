import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "..", "..", "..", "..");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-load-"));

/** The packages of node_modules a fresh Node process has loaded after requiring `modules` (sources). */
function packagesLoadedBy(modules: readonly string[]): string[] {
  const entry = path.join(dir, "entry.ts");
  fs.writeFileSync(
    entry,
    [
      ...modules.map((m) => `require(${JSON.stringify(path.join(root, m))});`),
      "const names = new Set();",
      "for (const key of Object.keys(require.cache)) {",
      "  const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(key);",
      "  if (m) names.add(m[1]);",
      "}",
      "process.stdout.write(JSON.stringify([...names].sort()));",
    ].join("\n"),
  );
  const out = execFileSync(process.execPath, [path.join(root, "test", "helpers", "run-ts.cjs"), entry], {
    encoding: "utf8",
    timeout: 120_000,
  });
  return JSON.parse(out) as string[];
}

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("commands that never start the engine", () => {
  it("load status, drift, validate, init and doctor without the engine's SDK or the AWS SDK", () => {
    const loaded = packagesLoadedBy([
      "src/cli/main.ts",
      "src/cli/commands/status.ts",
      "src/cli/commands/drift.ts",
      "src/cli/commands/validate.ts",
      "src/cli/commands/init.ts",
      "src/cli/commands/doctor.ts",
    ]);
    expect(loaded).toContain("zod"); // the check sees what was loaded
    expect(loaded).not.toContain("@pulumi/pulumi");
    expect(loaded).not.toContain("@aws-sdk/client-s3");
  }, 180_000);
});
