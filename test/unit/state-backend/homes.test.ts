/**
 * Each piece of the state's vocabulary has one home: the backend's keys and its checkpoint reader
 * in src/state-backend, the type tokens and URNs of our resources in src/api/resources.ts. A
 * module elsewhere that spells one of them again is a second place to change and to get wrong.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.join(__dirname, "..", "..", "..");

/** Every TypeScript file of src/ and providers/, relative to the repository, with its code (comments removed). */
function sources(): { file: string; code: string }[] {
  const out: { file: string; code: string }[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith(".ts")) {
        const text = fs.readFileSync(path.join(root, rel), "utf8");
        out.push({ file: rel, code: text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "") });
      }
    }
  };
  walk("src");
  walk("providers");
  return out;
}

const rules: { what: string; pattern: RegExp; home: (file: string) => boolean }[] = [
  {
    what: "a key of the state backend (.pulumi/…)",
    pattern: /\.pulumi\//,
    home: (file) => file.startsWith("src/state-backend/"),
  },
  {
    what: "a parse of a checkpoint document",
    pattern: /checkpoint:\s*z\.|\.checkpoint\.latest|\["checkpoint"\]/,
    home: (file) => file.startsWith("src/state-backend/"),
  },
  {
    what: "a type token of our resources",
    pattern: /dynamic\/stackwright/,
    home: (file) => file === "src/api/resources.ts",
  },
  {
    what: "a URN parsed or built by hand",
    pattern: /urn:pulumi:|["'`]::["'`]/,
    home: (file) => file === "src/api/resources.ts",
  },
];

describe("the state's vocabulary", () => {
  const files = sources();

  it("finds the sources it checks", () => {
    expect(files.some((f) => f.file === "src/state-backend/keys.ts")).toBe(true);
    expect(files.some((f) => f.file === "src/api/resources.ts")).toBe(true);
  });

  it.each(rules)("has one home for $what", ({ pattern, home }) => {
    const homes = files.filter((f) => home(f.file) && pattern.test(f.code)).map((f) => f.file);
    const strays = files.filter((f) => !home(f.file) && pattern.test(f.code)).map((f) => f.file);
    expect(homes.length).toBeGreaterThan(0);
    expect(strays).toEqual([]);
  });
});
