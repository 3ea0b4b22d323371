/**
 * Updates test/durations.json, the durations vitest.config.mts orders a clean clone's test files
 * by, from vitest's own timings on this machine (its results cache under node_modules/.vite/vitest):
 * every file vitest timed gets its new duration, a file it did not time keeps the one recorded, a
 * file that is gone is dropped. Run tests first (`npm test`, or the files you changed), then
 *
 *     node test/helpers/run-ts.cjs test/helpers/record-durations.ts
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { z } from "zod";

const root = path.resolve(__dirname, "..", "..");
const cacheRoot = path.join(root, "node_modules", ".vite", "vitest");
const DURATIONS_FILE = path.join(root, "test", "durations.json");

/** Stops with one line naming the file when it is not what is expected. */
function fail(message: string): never {
  console.error(`record-durations: ${message}`);
  process.exit(1);
}

/** `file` read as JSON and checked against `schema`, or one line saying what is wrong with it. */
function readChecked<T>(file: string, schema: z.ZodType<T>, expected: string): T {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    fail(`${file} is not JSON: ${expected} expected there`);
  }
  const checked = schema.safeParse(parsed);
  return checked.success ? checked.data : fail(`${file} is not ${expected}: fix or delete it`);
}

const Results = z.object({
  results: z.array(z.tuple([z.string(), z.object({ duration: z.number(), failed: z.boolean() })])),
});

const files = fs.existsSync(cacheRoot)
  ? fs
      .readdirSync(cacheRoot)
      .map((dir) => path.join(cacheRoot, dir, "results.json"))
      .filter((file) => fs.existsSync(file))
  : [];
if (files.length === 0) fail(`no vitest timings under ${cacheRoot}: run npm test first`);
const durations: Record<string, number> = fs.existsSync(DURATIONS_FILE)
  ? readChecked(DURATIONS_FILE, z.record(z.string(), z.number()), "a map of `project:path` to milliseconds")
  : {};
for (const file of files) {
  for (const [key, result] of readChecked(file, Results, "vitest's results cache").results) {
    durations[key] = Math.round(result.duration);
  }
}
const testOf = (key: string) => key.slice(key.indexOf(":") + 1);
const sorted = Object.fromEntries(
  Object.entries(durations)
    .filter(([key]) => fs.existsSync(path.join(root, testOf(key))))
    .sort(([a], [b]) => a.localeCompare(b)),
);
fs.writeFileSync(DURATIONS_FILE, `${JSON.stringify(sorted, null, 2)}\n`);
console.log(
  `record-durations: ${Object.keys(sorted).length} files into ${path.relative(root, DURATIONS_FILE)}`,
);
