import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { SCHEMA_FILE, stackFileJsonSchemaText } from "./json-schema";

/**
 * Writes `stacks-config/schema.json` from the zod schema. Run after `npm run build`:
 * `node dist/src/config/generate-schema.js [repo root]`, or regenerate through the test:
 * `UPDATE_SCHEMA=1 npx vitest run test/unit/config/json-schema.test.ts`.
 */
export function main(root: string = process.cwd()): string {
  const target = resolve(root, SCHEMA_FILE);
  writeFileSync(target, stackFileJsonSchemaText());
  return target;
}

if (require.main === module) {
  console.log(`wrote ${main(process.argv[2])}`);
}
