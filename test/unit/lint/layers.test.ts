/**
 * The layer rule eslint.config.mjs makes from layers.json, run by ESLint itself on code that does
 * not exist in the repository: a folder no layer lists is refused, and so is an import upward.
 */
import * as path from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const root = path.join(__dirname, "..", "..", "..");
const eslint = new ESLint({ cwd: root });

async function layerProblems(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return (result?.messages ?? []).filter((m) => m.ruleId === "stackwright/layers").map((m) => m.message);
}

describe("the layers of layers.json", () => {
  it("refuse a file in a folder that no layer lists", async () => {
    expect(await layerProblems("src/unlisted/x.ts", "export const x = 1;\n")).toEqual([
      "src/unlisted/x.ts is in no layer of layers.json: list its folder there with what it may import",
    ]);
  }, 60_000);

  it("refuse an import of a layer the file's layer may not import", async () => {
    const problems = await layerProblems(
      "src/config/x.ts",
      'import { notify } from "../notify";\nexport const x = notify;\n',
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^src\/config may not import src\/notify\/index: /);
  }, 60_000);

  it("let observe read the state backend through its read-only face only", async () => {
    expect(
      await layerProblems("src/observe/x.ts", 'export { readCheckpoint } from "../state-backend/read";\n'),
    ).toEqual([]);
    expect(
      await layerProblems("src/observe/x.ts", 'export { openStateStore } from "../state-backend";\n'),
    ).toHaveLength(1);
  }, 60_000);
});
