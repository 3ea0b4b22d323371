import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  SCHEMA_FILE,
  isStackFileName,
  stackFileJsonSchema,
  stackFileJsonSchemaText,
} from "../../../src/config";

const root = join(__dirname, "../../..");

describe("stacks-config/schema.json", () => {
  it("is up to date with the zod schema (regenerate: UPDATE_SCHEMA=1 npx vitest run test/unit/config/json-schema.test.ts)", () => {
    const path = join(root, SCHEMA_FILE);
    const expected = stackFileJsonSchemaText();
    if (process.env["UPDATE_SCHEMA"] === "1") writeFileSync(path, expected);
    expect(
      readFileSync(path, "utf8"),
      "stacks-config/schema.json is stale; regenerate it: UPDATE_SCHEMA=1 npx vitest run test/unit/config/json-schema.test.ts",
    ).toBe(expected);
  });

  it("refuses unknown keys at every level, as the loader does", () => {
    const schema = stackFileJsonSchema();
    const objects: Record<string, unknown>[] = [];
    collectObjectSchemas(schema, objects);
    expect(objects.length).toBeGreaterThanOrEqual(7);
    for (const object of objects) expect(object["additionalProperties"]).toBe(false);
  });

  it("is referenced by the first line of every YAML file in stacks-config", () => {
    const dir = join(root, "stacks-config");
    const files = readdirSync(dir).filter(isStackFileName);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      expect(readFileSync(join(dir, file), "utf8").split("\n")[0], file).toBe(
        "# yaml-language-server: $schema=./schema.json",
      );
    }
  });
});

/** Every schema node with `properties` (a strict object of the stack file). */
function collectObjectSchemas(node: unknown, out: Record<string, unknown>[]): void {
  if (typeof node !== "object" || node === null) return;
  if (Array.isArray(node)) {
    for (const item of node) collectObjectSchemas(item, out);
    return;
  }
  const record = node as Record<string, unknown>;
  if ("properties" in record) out.push(record);
  for (const value of Object.values(record)) collectObjectSchemas(value, out);
}
