/**
 * What a person reads of a fleet `up`: Stackwright's display on a pseudo-terminal (`script` runs
 * the command on one) and in a CI log (a pipe), and `--json` against its schema. The fleet has an
 * adopted deployment, one awaiting approval, and one that fails with its log's last lines.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { stripVTControlCharacters } from "node:util";
import Ajv from "ajv";
import { describe, expect } from "vitest";
import { RUN_SCHEMA_FILE, type RunDocument } from "../../src/cli/display/run-document";
import { seedWithOpsManagingEveryStack, type EmulatorHooks } from "../helpers/emulator";
import { fixtures } from "../helpers/fixtures";
import { repoRoot, type ScratchProject } from "../helpers/scratch-project";
import { runStackwright, type Finished } from "../helpers/stackwright-process";

const FILES = {
  "web.yaml": [
    "stack: acme-web",
    "environments:",
    "  uat:",
    "    deployment: { ref_type: branch, ref: main, adopt: 100 }",
    "  prod:",
    "    deployment: { ref_type: tag, ref: v1.4.0, approval: request }",
    "",
  ].join("\n"),
  "intranet.yaml": [
    "stack: acme-intranet",
    "environments:",
    "  test:",
    "    deployment: { ref_type: branch, ref: main }",
    "",
  ].join("\n"),
};

// The emulator in its own process: the runs on a terminal are synchronous. ops@example.com
// manages both API stacks in this seed. Each test runs in a fresh project.
const test = fixtures({
  seed: {
    yaml: seedWithOpsManagingEveryStack(),
  },
  project: { stacksConfig: FILES },
});

describe("the display of a fleet run", () => {
  let hooks: EmulatorHooks;
  let env: Record<string, string>;

  /** `stackwright ARGS` on a pseudo-terminal: what a person at a terminal sees, \r\n made \n. */
  const onTerminal = (
    project: ScratchProject,
    args: string[],
    extra: Record<string, string> = {},
  ): Finished => {
    const command = [process.execPath, path.join(project.dir, "bin", "stackwright.js"), ...args]
      .map((w) => `'${w.replace(/'/g, "'\\''")}'`)
      .join(" ");
    const result = spawnSync("script", ["-qfec", command, "/dev/null"], {
      cwd: project.dir,
      env: { ...project.env, ...env, TERM: "xterm", ...extra },
      encoding: "utf8",
      timeout: 240_000,
    });
    return { status: result.status, out: `${result.stdout}${result.stderr}`.replace(/\r\n/g, "\n") };
  };

  test.beforeAll(({ emulator }) => {
    [hooks, env] = [emulator.hooks, emulator.env];
  });

  /** What both displays say of the run, in the summary's words. */
  const expectTheRun = (out: string, invocation: string) => {
    expect(out).toMatch(
      /^acme-web\/uat {2}adopt record deployment 100 \(branch main\) as it is; nothing deploys: deployment 100 Completed http:\/\/127\.0\.0\.1:\d+\/\S+\/deploys\/100$/m,
    );
    expect(out).toMatch(
      /^acme-web\/prod {2}deploy from 3c4d5e6 to tag v1\.4\.0: deployment \d+ Submitted http\S+$/m,
    );
    expect(out).toMatch(/^acme-intranet\/test {2}deploy from 4a5b6c7 to branch main: failed$/m);
    // The failed deployment's error, with the last lines of its log under it.
    expect(out).toMatch(/^acme-intranet: error: Deployment \d+ .* on acme-intranet\/test ended Failed: /m);
    expect(out).toMatch(/^ {4}Last \d+ lines of its log:$/m);
    expect(out).toContain("out of memory");
    // The closing table and counts say adopt, never create.
    expect(out).toMatch(/^dev\.acme-web\s+ok\s+1 deploy, 1 adopt\s/m);
    expect(out).toMatch(/^dev\.acme-intranet\s+failed\s+1 deploy\s/m);
    expect(out).not.toMatch(/\bcreate\b/);
    expect(out).toContain("2 deploy · 1 adopt");
    expect(out).toMatch(
      new RegExp(`^1 awaiting approval: approve it, then run ${invocation} up --refresh$`, "m"),
    );
    // No output values, none of the engine's own display.
    expect(out).not.toContain("Outputs:");
    expect(out).not.toContain("Resources:");
    expect(out).not.toContain("pulumi up");
  };

  test("shows changes, an adopt, a failure with its log tail and what awaits approval on a terminal, redrawing a live line", async ({
    freshProject,
  }) => {
    await hooks.nextOutcome("acme-intranet", "test", "fail", "out of memory");
    const run = onTerminal(freshProject, ["up", "--concurrency", "2"]);
    expect(run.status, run.out).toBe(1);
    expect(run.out).toContain("\x1b[J");
    // The lines that stay, once the live lines' escapes are taken out.
    expectTheRun(stripVTControlCharacters(run.out).replace(/\r/g, ""), "npm run stackwright --");
  });

  test("says the same in a CI log with one line per state change and no escape code, and writes --json that validates", async ({
    freshProject: project,
  }) => {
    await hooks.nextOutcome("acme-intranet", "test", "fail", "out of memory");
    const json = path.join(project.dir, "run.json");
    const run = runStackwright(project.dir, ["up", "--concurrency", "2", "--json", json], {
      ...project.env,
      ...env,
    });
    expect(run.status, run.out).toBe(1);
    expect(run.out).not.toContain("\x1b");
    expectTheRun(run.out, "npm run stackwright --");
    expect(run.out).toMatch(/^acme-intranet\/test {2}deployment \d+ created \(Queued\): http\S+$/m);
    expect(run.out).not.toMatch(/ \| /);

    const document = JSON.parse(fs.readFileSync(json, "utf8")) as RunDocument;
    const schema: unknown = JSON.parse(fs.readFileSync(path.join(repoRoot, RUN_SCHEMA_FILE), "utf8"));
    const valid = new Ajv({ strict: false }).compile(schema as object);
    expect(valid(document), JSON.stringify(valid.errors)).toBe(true);
    expect(document.counts).toEqual({ adopt: 1, deploy: 2 });
    expect(document.awaiting_approval).toBe(1);
    const web = document.stacks.find((s) => s.api_stack === "acme-web");
    expect(web?.result).toBe("ok");
    expect(web?.awaiting_approval.map((d) => d.where)).toEqual(["acme-web/prod"]);
    expect(web?.deployments.find((d) => d.where === "acme-web/uat")).toMatchObject({ id: "100", made: true });
    const intranet = document.stacks.find((s) => s.api_stack === "acme-intranet");
    expect(intranet?.result).toBe("failed");
    expect(intranet?.errors.join("\n")).toContain("out of memory");

    // With NO_COLOR a terminal gets no escape code either; what still awaits approval is said.
    await hooks.nextOutcome("acme-intranet", "test", "fail", "out of memory");
    const again = onTerminal(project, ["up", "--concurrency", "2"], { NO_COLOR: "1" });
    expect(again.status, again.out).toBe(1);
    expect(again.out).not.toContain("\x1b");
    expect(again.out).toMatch(
      /^1 awaiting approval: approve it, then run npm run stackwright -- up --refresh$/m,
    );
    expect(again.out).not.toContain("no changes");
  });
});
