import { afterEach, beforeEach, describe, expect, vi } from "vitest";
import { previewCommand } from "../../src/cli/commands/engine";
import { fixtures } from "../helpers/fixtures";
import { runInProcess } from "../helpers/in-process";

// The engine commands run in this process with a context of the test's own, the real engine
// under them: what they print goes to the context's streams, the engine's environment is built
// from the context's variables (the process's own point at an API that is not there), and change
// windows are judged at the context's clock.

/** uat may not change on New Year's Day (UTC); the file plans a new deployment there. */
const ACME_WEB = `stack: acme-web
environments:
  uat:
    deployment: { ref_type: branch, ref: main }
    windows:
      - deny: { schedule: "0 0 1 1 *", duration: 1d, timezone: UTC }
`;

const NEW_YEARS_DAY = new Date("2027-01-01T12:00:00Z");
const A_TUESDAY = new Date("2026-11-24T10:00:00Z");

/** What a variable of the process would make a run do, were it read: ask an API nobody serves. */
const PROCESS_ONLY = {
  STACKWRIGHT_API_URL: "http://127.0.0.1:9/",
  STACKWRIGHT_EMAIL: "nobody@example.com",
  STACKWRIGHT_API_TOKEN: "not-a-token",
  STACKWRIGHT_PREFLIGHT: "on",
};

const test = fixtures({ project: { stacksConfig: { "acme-web.yaml": ACME_WEB } } });

describe("an engine command run in-process with a context of its own", () => {
  let processWrites: string[];
  let before: Record<string, string | undefined>;

  beforeEach(() => {
    before = { ...process.env };
    Object.assign(process.env, PROCESS_ONLY);
    processWrites = [];
    const keep = (chunk: unknown) => {
      processWrites.push(String(chunk));
      return true;
    };
    vi.spyOn(process.stdout, "write").mockImplementation(keep);
    vi.spyOn(process.stderr, "write").mockImplementation(keep);
  });

  afterEach(() => {
    vi.restoreAllMocks();
    for (const key of Object.keys(PROCESS_ONLY)) {
      if (before[key] === undefined) delete process.env[key];
      else process.env[key] = before[key];
    }
  });

  test("previews with the context's settings, prints only to its streams and leaves the process's variables alone", async ({
    project,
    emulatorInProcess,
  }) => {
    const env = { ...project.env, ...emulatorInProcess.env, STACKWRIGHT_PROXY: "direct" };
    const expected = { ...process.env };
    const run = await runInProcess(previewCommand, ["--project", project.dir, "acme-web"], {
      env,
      now: A_TUESDAY,
    });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain("stackwright preview: 1 named API stack(s) of target 'dev', 1 at once");
    expect(run.stdout).toMatch(/^dev\.acme-web +ok +/m);
    expect(processWrites).toEqual([]);
    expect({ ...process.env }).toEqual(expected);
  }, 300_000);

  test("judges change windows at the context's clock, not the machine's", async ({
    project,
    emulatorInProcess,
  }) => {
    const env = { ...project.env, ...emulatorInProcess.env, STACKWRIGHT_PROXY: "direct" };
    const run = await runInProcess(previewCommand, ["--project", project.dir, "acme-web"], {
      env,
      now: NEW_YEARS_DAY,
    });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.errorLines.join("\n")).toMatch(
      /^dev\.acme-web: change windows refuse this run, so nothing was changed: .*acme-web\/uat/m,
    );
    expect(processWrites).toEqual([]);
  }, 300_000);
});
