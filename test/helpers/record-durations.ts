/**
 * Writes test/durations.json, the durations vitest.config.mts orders a clean clone's test files by,
 * from vitest's own timings of the last run on this machine (its results cache under
 * node_modules/.vite/vitest): run `npm test` first, then
 *
 *     node test/helpers/run-ts.cjs test/helpers/record-durations.ts
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { z } from "zod";

const root = path.resolve(__dirname, "..", "..");
const cacheRoot = path.join(root, "node_modules", ".vite", "vitest");
const DURATIONS_FILE = path.join(root, "test", "durations.json");

const Results = z.object({
  results: z.array(z.tuple([z.string(), z.object({ duration: z.number(), failed: z.boolean() })])),
});

const files = fs.existsSync(cacheRoot)
  ? fs
      .readdirSync(cacheRoot)
      .map((dir) => path.join(cacheRoot, dir, "results.json"))
      .filter((file) => fs.existsSync(file))
  : [];
if (files.length === 0) {
  console.error(`record-durations: no vitest timings under ${cacheRoot}: run npm test first`);
  process.exit(1);
}
const durations: Record<string, number> = {};
for (const file of files) {
  for (const [key, result] of Results.parse(JSON.parse(fs.readFileSync(file, "utf8"))).results) {
    const test = key.slice(key.indexOf(":") + 1);
    if (fs.existsSync(path.join(root, test))) {
      durations[key] = Math.round(result.duration);
    }
  }
}
const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => a.localeCompare(b)));
fs.writeFileSync(DURATIONS_FILE, `${JSON.stringify(sorted, null, 2)}\n`);
console.log(
  `record-durations: ${Object.keys(sorted).length} files into ${path.relative(root, DURATIONS_FILE)}`,
);
