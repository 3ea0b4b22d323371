import * as fs from "node:fs";
import * as path from "node:path";
import { request } from "undici";
import { describe, expect } from "vitest";
import { basicAuth, seedWithOpsManagingEveryStack, TEST_SEED_PATH } from "../helpers/emulator";
import { markdownText } from "../../src/safe-text";
import { fixtures, type InProcessEmulator } from "../helpers/fixtures";
import type { ScratchProject } from "../helpers/scratch-project";
import { startStackwright, waitFor } from "../helpers/stackwright-process";

// Facts, checks and change windows through the `stackwright` command and the real engine, in
// three commands: every check kind, window edge and daylight-saving case is covered by the unit
// tests (test/unit/config/checks.test.ts, windows.test.ts, test/unit/cli/gates/windows.test.ts);
// here only what needs the engine: the outputs, the reads, the position of a failing check with
// no write, a warning in the summary, a refusal per stack with no write, and the override.

/** A configuration value that must never leave the program: not in outputs, state, logs or summaries. */
const SECRET = "s3cr3t-log-level-4711";
const TUESDAY_MORNING = "2026-11-24T10:00:00Z";
const FRIDAY_EVENING = "2026-11-27T18:00:00Z";

/**
 * acme-web: every fact in the outputs, a passing check of each kind, one failing warning, and a
 * prod that may change Monday to Thursday, 09:00 to 16:00 London time. Prod redeploys its release
 * tag whenever `trigger` changes.
 */
const acmeWeb = (trigger: string) => `stack: acme-web
outputs: [manifest_release]
checks:
  - manifest_release: { at_least: "2026.11.1" }
environments:
  uat:
    deployment: { ref_type: branch, ref: main }
    outputs: [deployment, url]
  prod:
    deployment:
      ref_type: tag
      ref: v1.4.0
      title: Release 1.4.0 again
      summary: Redeploy of the release tag
      trigger: "${trigger}"
    outputs: [deployment, url, domains, framework, modules, configuration, whitelist]
    checks:
      - modules: { silverstripe/framework: "^5.2" }
      - domains: { primary: www.acme.example.com, ssl: true, includes: [acme.example.com] }
      - whitelist: { enabled: false, max_entries: 0 }
      - configuration: { pending_changes: false, has: [APP_ENV, SS_LOG_LEVEL] }
      - framework: ">=6"
        severity: warning
    windows:
      - allow: { schedule: "0 9 * * 1-4", duration: 7h, timezone: Europe/London }
`;

/** acme-intranet: failing error-checks, next to a change that must not happen. */
const acmeIntranet = `stack: acme-intranet
checks:
  - manifest_release: { at_least: "2027.1" }
environments:
  test:
    deployment: { ref_type: branch, ref: main }
    checks:
      - whitelist: { enabled: true }
`;

// ops@example.com manages both API stacks; prod's configuration holds a value to look for.
const SEED = seedWithOpsManagingEveryStack(
  fs.readFileSync(TEST_SEED_PATH, "utf8").replace("SS_LOG_LEVEL: warning", `SS_LOG_LEVEL: ${SECRET}`),
);
const test = fixtures({ seed: { yaml: SEED } });

describe("facts, checks and change windows through the stackwright command", () => {
  let project: ScratchProject;
  let emulator: InProcessEmulator;
  let env: Record<string, string>;

  /**
   * Runs the command as an operator would, in a process of its own (the emulator shares this
   * one): the file counts how often one stack's failure is reported while another runs beside
   * it, which a process that ran other files' commands before must not be able to change.
   */
  const run = async (args: string[], now: string, extra: string[] = []) => {
    const child = startStackwright(project.dir, [...args, "--project", project.dir, ...extra], {
      ...project.env,
      ...env,
      STACKWRIGHT_NOW: now,
    });
    let status: number | NodeJS.Signals | undefined;
    void child.exited.then((code) => (status = code));
    await waitFor(() => status !== undefined, `stackwright ${args.join(" ")} to finish`, 200_000);
    return { status, out: child.output() };
  };
  const writeFile = (name: string, text: string) =>
    fs.writeFileSync(path.join(project.dir, "stacks-config", name), text);
  const summaryFile = (name: string) => path.join(project.dir, name);
  const requests = async () =>
    (await emulator.hooks.requests()).filter((r) => !r.path.startsWith("/_emulator"));
  const writes = async () =>
    (await requests()).filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);
  /** The stack's outputs, as its checkpoint holds them. */
  const outputsOf = (stackName: string): Record<string, unknown> => {
    const checkpoint = JSON.parse(fs.readFileSync(project.stateFile(stackName), "utf8")) as {
      checkpoint: { latest: { resources: { type: string; outputs?: Record<string, unknown> }[] } };
    };
    const root = checkpoint.checkpoint.latest.resources.find((r) => r.type === "pulumi:pulumi:Stack");
    return root?.outputs ?? {};
  };
  const prodDeployments = async () => {
    const res = await request(`${emulator.url}/svc/project/acme-web/environment/prod/deploys`, {
      headers: {
        authorization: basicAuth("ops@example.com", "demo-token"),
        accept: "application/vnd.api+json",
      },
    });
    const body = (await res.body.json()) as { data: { attributes: { summary: string } }[] };
    return body.data.map((d) => d.attributes);
  };

  test.beforeAll(({ project: scratch, emulatorInProcess }) => {
    expect(SEED).toContain(SECRET);
    [project, emulator, env] = [scratch, emulatorInProcess, emulatorInProcess.env];
    writeFile("acme-web.yaml", acmeWeb("1"));
  }, 60_000);

  test("shows every asked fact in the outputs, reading each once, and a failing warning-check in the summary", async () => {
    await emulator.hooks.clearRequests();
    const summary = summaryFile("up.md");
    // Tuesday morning: prod's window is open.
    const up = await run(["up", "acme-web", "--summary", summary], TUESDAY_MORNING);
    expect(up.status).toBe(0);

    // The program's reads (the CLI's preflight asks for the API's meta, who we are and the stacks).
    const reads = (await requests()).filter((r) => r.method === "GET").map((r) => r.path);
    const count = (p: string) => reads.filter((r) => r === p).length;
    for (const environment of ["uat", "prod"]) {
      // Read by the drift check, the outputs and the checks: one request all the same.
      expect(count(`/svc/project/acme-web/environment/${environment}`)).toBe(1);
    }
    for (const read of ["domains", "modules", "configuration", "whitelist"]) {
      expect(count(`/svc/project/acme-web/environment/prod/${read}`)).toBe(1);
      // uat asks for no fact that needs these reads: nothing is read for it.
      expect(count(`/svc/project/acme-web/environment/uat/${read}`)).toBe(0);
    }
    expect(count("/svc/manifestreleases")).toBe(1);

    expect(outputsOf("dev.acme-web")["facts"]).toEqual({
      "acme-web": {
        manifest_release: { label: "2026.11.2", released: "2025-11-19T00:00:00Z" },
        environments: {
          uat: {
            url: `${emulator.url}/_sites/acme-web/uat`,
            deployment: expect.objectContaining({
              sha: "8f3c2a1d9e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a",
              ref: "branch main",
              deployer: "ops@example.com",
            }),
          },
          prod: {
            url: `${emulator.url}/_sites/acme-web/prod`,
            framework: "5.2.1",
            // Facts are read when the run starts, before it deploys (as data sources are).
            deployment: expect.objectContaining({
              sha: "3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f",
              ref: "tag v1.4.0",
              title: "Release 1.4.0",
            }),
            domains: [
              { name: "www.acme.example.com", primary: true, ssl: true, www: true },
              { name: "acme.example.com", primary: false, ssl: true, www: false },
            ],
            modules: { "silverstripe/framework": "5.2.1" },
            configuration: { names: ["APP_ENV", "SS_LOG_LEVEL"], pending_changes: false },
            whitelist: { enabled: false, entries: 0, pending_changes: false },
          },
        },
      },
    });

    const warning =
      "stacks-config/acme-web.yaml:22:20: environments.prod.checks[4].framework: expected framework >=6; the platform answered '5.2.1'";
    expect(up.out).toContain(warning);
    const md = fs.readFileSync(summary, "utf8");
    // The summary shows the diagnostic as text: its Markdown characters escaped.
    expect(md).toContain(`### Warnings and errors\n\n- **warning**: ${markdownText(`check ${warning}`)}`);
    expect(md).toMatch(/\| prod \| (re)?deploy \|/);
    expect(md).toContain(
      "### Facts\n\n| where | fact | value |\n|---|---|---|\n| acme-web | manifest release | `2026.11.2`, 2025-11-19T00:00:00Z |",
    );
    expect(md).toContain("| acme-web/prod | configuration | APP\\_ENV, SS\\_LOG\\_LEVEL |");

    const state = fs.readFileSync(project.stateFile("dev.acme-web"), "utf8");
    for (const text of [up.out, md, state]) expect(text).not.toContain(SECRET);
  }, 240_000);

  test("fails a stack at its failing error-checks and another at its closed window, each before any write", async () => {
    writeFile("acme-web.yaml", acmeWeb("2"));
    writeFile("acme-intranet.yaml", acmeIntranet);
    await emulator.hooks.clearRequests();
    const summary = summaryFile("refused.md");
    // Friday evening: prod's window is closed, and the file changes prod.
    const up = await run(["up", "--summary", summary], FRIDAY_EVENING);
    expect(up.status).toBe(1);
    expect(await writes()).toEqual([]);

    for (const line of [
      "stacks-config/acme-intranet.yaml:3:35: checks[0].manifest_release.at_least: expected the newest manifest release at least '2027.1'; the platform answered '2026.11.2' (released 2025-11-19T00:00:00Z)",
      "stacks-config/acme-intranet.yaml:8:31: environments.test.checks[0].whitelist.enabled: expected whitelist enabled: true; the platform answered enabled: false",
    ]) {
      expect(up.out).toContain(line);
    }
    expect(up.out).toContain("checks failed, so nothing was changed");
    // Both stacks ran at once in one process (the program is hosted by the CLI): the failure is
    // reported once by the engine, of its own stack, and does not fail the other one with it; the
    // stack's closing line quotes that report.
    const closing =
      /^dev\.acme-intranet: stackwright up failed: checks failed, so nothing was changed: .*2 errors in checks.*$/m;
    expect(up.out).toMatch(closing);
    expect(up.out.replace(closing, "").split("2 errors in checks").length - 1).toBe(1);
    expect(up.out).not.toMatch(/^dev\.acme-web: .*2 errors in checks/m);

    const refusal =
      'change windows refuse this run, so nothing was changed: acme-web/prod is outside its change windows at 2026-11-27 18:00 UTC: outside every allow window (allow "0 9 * * 1-4" Europe/London for 7h); the next window opens Mon 2026-11-30 09:00 UTC+00:00 (Europe/London), 2026-11-30 09:00 UTC. Refused: redeploy';
    expect(up.out).toContain(`dev.acme-web: ${refusal}`);
    expect(up.out).toMatch(/^dev\.acme-web\s+failed/m);
    expect(up.out).toMatch(/^dev\.acme-intranet\s+failed/m);
    const md = fs.readFileSync(summary, "utf8");
    expect(md).toContain(`- **dev.acme-web** failed: ${markdownText(refusal)}`);
    expect(md).toContain(
      markdownText(
        "checks[0].manifest_release.at_least: expected the newest manifest release at least '2027.1'",
      ),
    );
    expect(`${up.out}${md}`).not.toContain(SECRET);
  }, 240_000);

  test("lets an on-call engineer through a closed window with --override-window and records the reason", async () => {
    const reason = "INC-42: checkout is down";
    const summary = summaryFile("override.md");
    const up = await run(["up", "acme-web", "--summary", summary], FRIDAY_EVENING, [
      "--override-window",
      reason,
    ]);
    expect(up.out).toContain(`Change windows overridden (--override-window): "${reason}"`);
    expect(up.status).toBe(0);
    expect(fs.readFileSync(summary, "utf8")).toContain(
      `### Change windows: overridden\n\n- Change windows overridden (--override-window): "${reason}". Closed now: acme-web/prod`,
    );
    const made = (await prodDeployments()).filter((d) => d.summary.includes(reason));
    expect(made).toHaveLength(1);
    expect(made[0]?.summary).toContain(
      `Redeploy of the release tag\n\nChange window overridden at 2026-11-27 18:00 UTC: ${reason} (outside every allow window (allow "0 9 * * 1-4" Europe/London for 7h))`,
    );
  }, 240_000);
});
