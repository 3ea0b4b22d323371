import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import {
  formatConfigErrors,
  formatErrorLine,
  loadDesiredState,
  loadDesiredStateSync,
  loadStackSync,
  validateStackFile,
} from "../../../src/config";

/** A stack file of `count` environments, each a one-line deployment. */
function manyEnvironments(count: number, extra = ""): string {
  const lines = ["stack: big", "environments:"];
  for (let i = 0; i < count; i++)
    lines.push(`  env-${i}:`, "    deployment: { ref_type: branch, ref: main }");
  return `${lines.join("\n")}\n${extra}`;
}

describe("validate on a large file", () => {
  it("finds the one repeated key among 10,000 environments, at its line, naming the first", () => {
    const text = manyEnvironments(10_000, "  env-17:\n    deployment: { ref_type: branch, ref: main }\n");
    const { errors } = validateStackFile("big.yaml", text);
    expect(errors.map(formatErrorLine)).toEqual([
      "big.yaml:20003:3: duplicate key 'env-17' (first at line 37); each key may appear once per map",
    ]);
  });

  it("refuses a file over 4 MiB whole, with one error and without parsing it", () => {
    const text = `stack: big\n# ${"x".repeat(4 * 1024 * 1024)}\n`;
    const { errors, stack } = validateStackFile("big.yaml", text);
    expect(stack).toBeUndefined();
    expect(errors.map(formatErrorLine)).toEqual([
      `big.yaml:1:1: the file is ${text.length} bytes, over the 4194304 (4 MiB) a stack file may be; real ones are far smaller: find what made it this large`,
    ]);
  });
});

describe("a stack file over 4 MiB in the config directory", () => {
  it("is refused by its size before it is read: a sparse file of 1 GiB costs no memory and names its size", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "config-bound-"));
    try {
      fs.writeFileSync(path.join(dir, "small.yaml"), "stack: small\nenvironments: {}\n");
      // Read whole, this file would not even fit in a string (V8's limit is under 1 GiB).
      const huge = path.join(dir, "huge.yaml");
      fs.writeFileSync(huge, "stack: huge\n");
      fs.truncateSync(huge, 1024 * 1024 * 1024);
      const expected = [
        `${huge}:1:1: the file is 1073741824 bytes, over the 4194304 (4 MiB) a stack file may be; real ones are far smaller: find what made it this large`,
      ];
      for (const result of [
        await loadDesiredState(dir),
        loadDesiredStateSync(dir),
        loadStackSync(dir, "small"),
      ]) {
        expect(result.ok).toBe(false);
        expect(result.ok ? [] : result.errors.map(formatErrorLine)).toEqual(expected);
      }
      // One byte over the bound is refused the same way; at the bound the file is read.
      fs.truncateSync(huge, 4 * 1024 * 1024 + 1);
      const over = await loadDesiredState(dir);
      expect(over.ok ? [] : over.errors.map(formatErrorLine)).toEqual([
        expected[0]?.replace("1073741824", "4194305"),
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("an error on a 200 KB line", () => {
  it("shows a window of the line around the column and cuts the message, not echoing the line", () => {
    const key = "k".repeat(200_000);
    const { errors } = validateStackFile("long.yaml", `stack: s\nenvironments: {}\n${key}: 1\n`);
    expect(errors.length).toBeGreaterThan(0);
    const shown = formatConfigErrors(errors);
    expect(shown.length).toBeLessThan(2_000);
    for (const line of shown.split("\n")) expect(line.length).toBeLessThan(400);
    expect(shown).toContain("long.yaml:3:1: ");
    expect(shown).toMatch(/3 \| k{60,120}…\n/);
  });
});
