import { z } from "zod";
import { StackFileSchema } from "./schema";

/** Where the committed schema lives, relative to the repository root. */
export const SCHEMA_FILE = "stacks-config/schema.json";

/**
 * The JSON Schema of one stack file, generated from the zod schema (never written by hand). It
 * describes the input side (defaults are optional) so editors using yaml-language-server can
 * complete keys, show descriptions and flag unknown keys. Cross-field rules are not expressible
 * here; `stackwright validate` checks them.
 */
export function stackFileJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(StackFileSchema, { io: "input", target: "draft-7" });
}

/** The exact text of `stacks-config/schema.json`: two-space JSON and a final newline. */
export function stackFileJsonSchemaText(): string {
  return `${JSON.stringify(stackFileJsonSchema(), null, 2)}\n`;
}
