/**
 * How much set-up and teardown the test files write by hand, counted the same way at any commit, so
 * that a change to the fixtures can say by how much it shrank:
 *
 *     node test/helpers/run-ts.cjs test/helpers/setup-count.ts [--under test/e2e] [COMMIT ...]
 *
 * With no commit it counts the working tree; `--under DIR` counts only the test files under DIR. For each, over the test files (`*.test.ts` under
 * test/) and, apart, over test/helpers/ (where set-up moves to, so its growth is seen too):
 *
 * - hook lines: the lines spanned by hand-written `beforeAll`/`afterAll`/`beforeEach`/`afterEach`
 *   calls (`test.beforeAll` of a fixture file included: it is set-up written by hand too);
 * - after hooks: the `afterAll`/`afterEach` calls (what the fixtures' own teardown replaces);
 * - `mkdtempSync` calls, `.kill("SIGTERM")` calls, and the calls that start a scratch project, an
 *   emulator or an S3 server by hand (`createScratchProject`, `scratchProject`, `startTestEmulator`,
 *   `startEmulator`, `spawnEmulator`, `startS3Server`);
 * - files that start both a scratch project and an emulator by hand.
 *
 * Calls are found in the syntax tree (TypeScript's parser), not by text, so comments and strings
 * that name them do not count.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import ts from "typescript";

const HOOKS = new Set(["beforeAll", "afterAll", "beforeEach", "afterEach"]);
const AFTER_HOOKS = new Set(["afterAll", "afterEach"]);
const STARTERS = {
  project: new Set(["createScratchProject", "scratchProject"]),
  emulator: new Set(["startTestEmulator", "startEmulator", "spawnEmulator"]),
  s3: new Set(["startS3Server"]),
};

interface Counts {
  files: number;
  lines: number;
  hookLines: number;
  afterHooks: number;
  mkdtempSync: number;
  killSigterm: number;
  byHandStarts: number;
  projectAndEmulatorByHand: number;
}

const zero = (): Counts => ({
  files: 0,
  lines: 0,
  hookLines: 0,
  afterHooks: 0,
  mkdtempSync: 0,
  killSigterm: 0,
  byHandStarts: 0,
  projectAndEmulatorByHand: 0,
});

/** The name a call is made by: `f(...)` and `x.f(...)` are both `f`. */
function calleeName(call: ts.CallExpression): string | undefined {
  const callee = call.expression;
  if (ts.isIdentifier(callee)) return callee.text;
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text;
  return undefined;
}

/** Adds what `text` (the file `name`) holds to `into`. */
export function countFile(name: string, text: string, into: Counts): void {
  const source = ts.createSourceFile(name, text, ts.ScriptTarget.ES2023, true, ts.ScriptKind.TS);
  const lineOf = (pos: number) => source.getLineAndCharacterOfPosition(pos).line;
  let startsProject = false;
  let startsEmulator = false;
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = calleeName(node);
      if (callee !== undefined && HOOKS.has(callee)) {
        into.hookLines += lineOf(node.getEnd()) - lineOf(node.getStart(source)) + 1;
        if (AFTER_HOOKS.has(callee)) into.afterHooks += 1;
      }
      if (callee === "mkdtempSync") into.mkdtempSync += 1;
      const [first] = node.arguments;
      if (callee === "kill" && first !== undefined && ts.isStringLiteral(first) && first.text === "SIGTERM")
        into.killSigterm += 1;
      if (callee !== undefined && STARTERS.project.has(callee)) startsProject = true;
      if (callee !== undefined && STARTERS.emulator.has(callee)) startsEmulator = true;
      if (callee !== undefined && Object.values(STARTERS).some((s) => s.has(callee))) into.byHandStarts += 1;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  into.files += 1;
  into.lines += text.split("\n").length;
  if (startsProject && startsEmulator) into.projectAndEmulatorByHand += 1;
}

/** The test files and the helpers at `commit` (the working tree when undefined), counted. */
export function countAt(
  root: string,
  commit: string | undefined,
  under = "test/",
): { tests: Counts; helpers: Counts } {
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: root, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  const files =
    commit === undefined
      ? git("ls-files", "--cached", "--others", "--exclude-standard", "--", "test")
      : git("ls-tree", "-r", "--name-only", commit, "--", "test");
  const read = (file: string) =>
    commit === undefined ? fs.readFileSync(path.join(root, file), "utf8") : git("show", `${commit}:${file}`);
  const tests = zero();
  const helpers = zero();
  for (const file of files.split("\n").filter((f) => f !== "")) {
    if (commit === undefined && !fs.existsSync(path.join(root, file))) continue;
    if (file.endsWith(".test.ts")) {
      if (file.startsWith(under)) countFile(file, read(file), tests);
    } else if (
      file.startsWith("test/helpers/") &&
      file.endsWith(".ts") &&
      file !== "test/helpers/setup-count.ts"
    )
      countFile(file, read(file), helpers);
  }
  return { tests, helpers };
}

if (require.main === module || process.argv[1] === __filename) {
  const root = path.resolve(__dirname, "..", "..");
  const args = process.argv.slice(2);
  const at = args.indexOf("--under");
  const under = at < 0 ? "test/" : `${(args[at + 1] ?? "test").replace(/\/$/, "")}/`;
  const commits = at < 0 ? args : args.filter((_, i) => i !== at && i !== at + 1);
  const columns = commits.length === 0 ? [undefined] : commits;
  const results = columns.map((c) => ({ label: c ?? "working tree", ...countAt(root, c, under) }));
  console.log(`test files under ${under}`);
  const rows: [string, (r: (typeof results)[number]) => number][] = [
    ["test files", (r) => r.tests.files],
    ["lines of test files", (r) => r.tests.lines],
    ["lines in hand-written before/after hooks", (r) => r.tests.hookLines],
    ["hand-written afterAll/afterEach", (r) => r.tests.afterHooks],
    ["mkdtempSync calls", (r) => r.tests.mkdtempSync],
    ['.kill("SIGTERM") calls', (r) => r.tests.killSigterm],
    ["project/emulator/S3 started by hand", (r) => r.tests.byHandStarts],
    ["files starting a project and an emulator by hand", (r) => r.tests.projectAndEmulatorByHand],
    ["lines of test/helpers", (r) => r.helpers.lines],
  ];
  const width = Math.max(...rows.map(([name]) => name.length));
  console.log(["".padEnd(width), ...results.map((r) => r.label.slice(0, 12).padStart(12))].join("  "));
  for (const [name, value] of rows) {
    console.log([name.padEnd(width), ...results.map((r) => String(value(r)).padStart(12))].join("  "));
  }
}
