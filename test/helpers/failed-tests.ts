/**
 * Says again, in a few lines, which tests of a failed vitest group failed and why, from the JSON
 * report the group wrote beside its usual output. `npm test` runs its groups side by side and the
 * one with the engine ends last, so a failure in another group is reported minutes before the
 * end of the log, and a CI page that shows the log's tail would show only that the group failed.
 *
 *     node test/helpers/run-ts.cjs test/helpers/failed-tests.ts GROUP REPORT.json
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { stripVTControlCharacters } from "node:util";
import { z } from "zod";

/** How many lines of each failure's message are repeated: its first lines say what went wrong. */
const MESSAGE_LINES = 6;
/** How many failures are repeated in all: more than this and the group's own report is the place. */
const MOST_FAILURES = 20;

const Report = z.object({
  testResults: z.array(
    z.object({
      name: z.string(),
      status: z.string(),
      message: z.string().optional(),
      assertionResults: z.array(
        z.object({
          fullName: z.string(),
          status: z.string(),
          failureMessages: z.array(z.string()).nullish(),
        }),
      ),
    }),
  ),
});

/** A stack frame of vitest's or Node's own, which says nothing of the test. */
const TOOLING_FRAME = /^\s*at .*(node_modules|node:internal|<anonymous>)/;

/** The first lines of a message, without the terminal's colours or the tools' own stack frames. */
function excerpt(message: string): string[] {
  return stripVTControlCharacters(message)
    .split("\n")
    .filter((line) => line.trim() !== "" && !TOOLING_FRAME.test(line))
    .slice(0, MESSAGE_LINES)
    .map((line) => `      ${line}`);
}

/**
 * What `npm test` says at its end of a failed group: each failed test (or test file, when the
 * file failed outside its tests) with the first lines of why, from the group's report; `report`
 * is the report's text, or undefined when none was written. Paths are relative to `root`.
 */
export function failedTestsSummary(group: string, report: string | undefined, root: string): string[] {
  const say = (line: string) => `test: ${line}`;
  if (report === undefined)
    return [say(`${group}: no report of its tests was written: its own output above says why`)];
  let parsed: unknown;
  try {
    parsed = JSON.parse(report);
  } catch {
    parsed = undefined;
  }
  const checked = Report.safeParse(parsed);
  if (!checked.success)
    return [say(`${group}: its report is not vitest's JSON: its own output above says what failed`)];
  const failures: string[][] = [];
  for (const file of checked.data.testResults) {
    const relative = path.relative(root, file.name);
    const failed = file.assertionResults.filter((test) => test.status === "failed");
    for (const test of failed) {
      failures.push([`  ${relative} > ${test.fullName}`, ...excerpt(test.failureMessages?.[0] ?? "")]);
    }
    if (failed.length === 0 && file.status === "failed") {
      failures.push([`  ${relative} (the file itself)`, ...excerpt(file.message ?? "")]);
    }
  }
  if (failures.length === 0) {
    return [
      say(`${group}: every test passed; what failed (an error outside a test, the token check) is above`),
    ];
  }
  return [
    say(`${group}: ${failures.length} failed:`),
    ...failures.slice(0, MOST_FAILURES).flat(),
    ...(failures.length > MOST_FAILURES ? [say(`  and ${failures.length - MOST_FAILURES} more, above`)] : []),
  ];
}

if (require.main === module || process.argv[1] === __filename) {
  const [group, reportFile] = process.argv.slice(2);
  if (group === undefined || reportFile === undefined) {
    console.error("failed-tests: usage: failed-tests.ts GROUP REPORT.json");
    process.exit(2);
  }
  const report = fs.existsSync(reportFile) ? fs.readFileSync(reportFile, "utf8") : undefined;
  for (const line of failedTestsSummary(group, report, process.cwd())) console.error(line);
}
