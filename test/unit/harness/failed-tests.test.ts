/**
 * `npm test` names again, at its end, what failed in a group that ended minutes before the last
 * (test/helpers/failed-tests.ts): these show what it makes of vitest's JSON report.
 */
import { describe, expect, it } from "vitest";
import { failedTestsSummary } from "../../helpers/failed-tests";

const root = "/repo";
/** A report as vitest's JSON reporter writes it, with the fields the summary reads. */
function report(files: readonly object[]): string {
  return JSON.stringify({ numFailedTests: 1, success: false, testResults: files });
}
const failingFile = {
  name: "/repo/test/unit/config/windows.test.ts",
  status: "failed",
  message: "",
  assertionResults: [
    { fullName: "window properties passes", status: "passed", failureMessages: [] },
    {
      fullName: "window properties names a next opening",
      status: "failed",
      failureMessages: [
        [
          "\u001b[31mError: Test timed out in 30000ms.\u001b[39m",
          "    at /repo/test/unit/config/windows.test.ts:254:3",
          "    at file:///repo/node_modules/@vitest/runner/dist/chunk-artifact.js:302:11",
          "    at new Promise (<anonymous>)",
        ].join("\n"),
      ],
    },
  ],
};

describe("the summary of a failed group", () => {
  it("names each failed test by file and full name, with its message's first lines and none of the tools' frames", () => {
    expect(failedTestsSummary("no-engine", report([failingFile]), root)).toEqual([
      "test: no-engine: 1 failed:",
      "  test/unit/config/windows.test.ts > window properties names a next opening",
      "      Error: Test timed out in 30000ms.",
      "          at /repo/test/unit/config/windows.test.ts:254:3",
    ]);
  });

  it("names a file that failed outside its tests, with the file's own message", () => {
    const broken = {
      name: "/repo/test/e2e/a.test.ts",
      status: "failed",
      message: "SyntaxError: x",
      assertionResults: [],
    };
    expect(failedTestsSummary("engine", report([broken]), root)).toEqual([
      "test: engine: 1 failed:",
      "  test/e2e/a.test.ts (the file itself)",
      "      SyntaxError: x",
    ]);
  });

  it("says where to look when every test passed, when no report was written, and when it is not a report", () => {
    const passing = { ...failingFile, status: "passed", assertionResults: [failingFile.assertionResults[0]] };
    expect(failedTestsSummary("engine", report([passing]), root)).toEqual([
      "test: engine: every test passed; what failed (an error outside a test, the token check) is above",
    ]);
    expect(failedTestsSummary("engine", undefined, root)).toEqual([
      "test: engine: no report of its tests was written: its own output above says why",
    ]);
    expect(failedTestsSummary("engine", "{", root)).toEqual([
      "test: engine: its report is not vitest's JSON: its own output above says what failed",
    ]);
  });

  it("repeats at most twenty failures and counts the rest", () => {
    const many = Array.from({ length: 23 }, (_, i) => ({
      ...failingFile,
      name: `/repo/test/unit/t${i}.test.ts`,
      assertionResults: [failingFile.assertionResults[1]],
    }));
    const lines = failedTestsSummary("no-engine", report(many), root);
    expect(lines[0]).toBe("test: no-engine: 23 failed:");
    expect(lines.filter((line) => line.startsWith("  test/unit/t"))).toHaveLength(20);
    expect(lines.at(-1)).toBe("test:   and 3 more, above");
  });
});
