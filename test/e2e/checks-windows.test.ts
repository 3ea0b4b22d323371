import * as fs from "node:fs";
import * as path from "node:path";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { basicAuth, startTestEmulator, TEST_SEED_PATH, type TestEmulator } from "../helpers/emulator";
import { createScratchProject, type ScratchProject } from "../helpers/scratch-project";
import { startStackwright, waitFor } from "../helpers/stackwright-process";

/** A configuration value that must never leave the program: not in outputs, state or logs. */
const SECRET = "s3cr3t-log-level-4711";

// Prod runs the tag v1.4.0 in the seed; deploying that tag again with a trigger is a real change.
const prodDeployment = (trigger: string) => `    deployment:
      ref_type: tag
      ref: v1.4.0
      title: Release 1.4.0 again
      summary: Redeploy of the release tag
      trigger: "${trigger}"`;

const uat = `  uat:
    deployment: { ref_type: branch, ref: main }
    outputs: [deployment, url]`;

/** Every fact in the outputs and a passing check of each kind. */
const factsConfig = `stack: acme-web
outputs: [manifest_release]
checks:
  - manifest_release: { at_least: "2026.11.1" }
environments:
${uat}
  prod:
${prodDeployment("1")}
    outputs: [deployment, url, domains, framework, modules, configuration, whitelist]
    checks:
      - modules: { silverstripe/framework: "^5.2" }
      - framework: ">=5.0"
      - domains: { primary: www.acme.example.com, ssl: true, includes: [acme.example.com] }
      - whitelist: { enabled: false, max_entries: 0 }
      - configuration: { pending_changes: false, has: [APP_ENV, SS_LOG_LEVEL] }
`;

/** A failing check of each kind, at the given severity, next to a change that must not happen. */
const failingConfig = (severity: "error" | "warning") => `stack: acme-web
checks:
  - manifest_release: { at_least: "2027.1" }
    severity: ${severity}
environments:
${uat}
  prod:
${prodDeployment("2")}
    outputs: [url]
    checks:
      - modules: { silverstripe/framework: "^6" }
        severity: ${severity}
      - framework: ">=6"
        severity: ${severity}
      - domains: { primary: acme.example.com }
        severity: ${severity}
      - whitelist: { enabled: true }
        severity: ${severity}
      - configuration: { has: [SECRET_KEY] }
        severity: ${severity}
`;

/** Prod may change Monday to Thursday, 09:00 to 16:00 London time. */
const windowedConfig = (trigger: string) => `stack: acme-web
environments:
${uat}
  prod:
${prodDeployment(trigger)}
    windows:
      - allow: { schedule: "0 9 * * 1-4", duration: 7h, timezone: Europe/London }
`;

const TUESDAY_MORNING = "2026-11-24T10:00:00Z";
const FRIDAY_EVENING = "2026-11-27T18:00:00Z";

describe("facts, checks and change windows through the stackwright command", () => {
  let project: ScratchProject;
  let emulator: TestEmulator;
  let env: Record<string, string>;

  /** Runs the command as an operator would (in its own process; the emulator shares this one). */
  const run = async (args: string[], extra: Record<string, string> = {}) => {
    const child = startStackwright(project.dir, [...args, "--project", project.dir], {
      ...project.env,
      ...env,
      ...extra,
    });
    let status: number | NodeJS.Signals | undefined;
    void child.exited.then((code) => (status = code));
    await waitFor(() => status !== undefined, `stackwright ${args.join(" ")} to finish`, 200_000);
    return { status, out: child.output() };
  };
  const writeConfig = (text: string) =>
    fs.writeFileSync(path.join(project.dir, "stacks-config", "acme-web.yaml"), text);
  const requests = async () =>
    (await emulator.hooks.requests()).filter((r) => !r.path.startsWith("/_emulator"));
  const writes = async () =>
    (await requests()).filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);
  const prodDeployments = async () => {
    const res = await request(`${emulator.url}/svc/project/acme-web/environment/prod/deploys`, {
      headers: {
        authorization: basicAuth("ops@example.com", "demo-token"),
        accept: "application/vnd.api+json",
      },
    });
    const body = (await res.body.json()) as { data: { attributes: { summary: string; title: string } }[] };
    return body.data.map((d) => d.attributes);
  };

  beforeAll(async () => {
    project = createScratchProject();
    const seed = fs
      .readFileSync(TEST_SEED_PATH, "utf8")
      .replace("SS_LOG_LEVEL: warning", `SS_LOG_LEVEL: ${SECRET}`);
    expect(seed).toContain(SECRET);
    const seedFile = path.join(project.dir, "seed.yaml");
    fs.writeFileSync(seedFile, seed);
    emulator = await startTestEmulator({ seed: seedFile });
    env = {
      STACKWRIGHT_API_URL: emulator.url,
      STACKWRIGHT_EMAIL: "ops@example.com",
      STACKWRIGHT_API_TOKEN: "demo-token",
    };
  }, 60_000);

  afterAll(async () => {
    await emulator?.close();
    project?.remove();
  });

  it("shows every asked fact in the outputs as the platform has it, reading each once", async () => {
    writeConfig(factsConfig);
    await emulator.hooks.clearRequests();
    const up = await run(["up"]);
    expect(up.out).not.toContain("error");
    expect(up.status).toBe(0);

    const reads = (await requests()).filter((r) => r.method === "GET").map((r) => r.path);
    const count = (p: string) => reads.filter((r) => r === p).length;
    for (const environment of ["uat", "prod"]) {
      // Read by the drift check, the outputs and the checks: one request all the same.
      expect(count(`/svc/project/acme-web/environment/${environment}`)).toBe(1);
    }
    for (const read of ["domains", "modules", "configuration", "whitelist"]) {
      expect(count(`/svc/project/acme-web/environment/prod/${read}`)).toBe(1);
      // uat asks for no fact that needs these reads.
      expect(count(`/svc/project/acme-web/environment/uat/${read}`)).toBe(0);
    }
    expect(count("/svc/manifestreleases")).toBe(1);

    const outputs = await (await project.stack("dev")).outputs();
    const facts = outputs["facts"]?.value as Record<string, unknown>;
    expect(facts).toEqual({
      "acme-web": {
        manifest_release: { label: "2026.11.2", released: "2025-11-19T00:00:00Z" },
        environments: {
          uat: {
            url: "https://uat.acme.example.com",
            deployment: expect.objectContaining({
              sha: "8f3c2a1d9e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a",
              ref: "branch main",
              deployer: "ops@example.com",
              deployed_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
            }),
          },
          prod: {
            url: "https://www.acme.example.com",
            framework: "5.2.1",
            deployment: expect.objectContaining({
              sha: "3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f",
              // Facts are read when the run starts, before it deploys (as data sources are).
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
    expect(up.out).not.toContain(SECRET);
    expect(project.stateFile("dev") && fs.readFileSync(project.stateFile("dev"), "utf8")).not.toContain(
      SECRET,
    );
  }, 240_000);

  it("changes nothing and writes nothing when the same configuration runs again", async () => {
    await emulator.hooks.clearRequests();
    const up = await run(["up"]);
    expect(up.status).toBe(0);
    expect(await writes()).toEqual([]);
    expect(up.out).not.toMatch(/\d+ (created|updated|replaced)/);
    expect(up.out).not.toContain(SECRET);
    // This run read the platform after the first one deployed: the facts show that deployment.
    const outputs = await (await project.stack("dev")).outputs();
    expect(JSON.stringify(outputs["facts"]?.value)).toContain('"title":"Release 1.4.0 again"');
  }, 240_000);

  it("reads nothing more when the YAML asks only for facts the drift check reads anyway", async () => {
    const plain = factsConfig
      .replace(/^outputs:.*\n/m, "")
      .replace(/^checks:\n.*\n/m, "")
      .replace(/ {4}outputs: \[deployment, url, domains.*\n/, "    outputs: [url, framework]\n")
      .replace(/ {4}checks:\n( {6}.*\n)+/, "")
      .replace("    outputs: [deployment, url]\n", "    outputs: [url]\n");
    writeConfig(plain);
    await emulator.hooks.clearRequests();
    const preview = await run(["preview"]);
    expect(preview.status).toBe(0);
    // The program's reads (the CLI's preflight asks who we are and which stacks exist first).
    const reads = (await requests())
      .filter((r) => r.path.startsWith("/svc/project/") || r.path === "/svc/manifestreleases")
      .map((r) => `${r.method} ${r.path}`)
      .sort();
    expect(reads).toEqual([
      "GET /svc/project/acme-web/environment/prod",
      "GET /svc/project/acme-web/environment/uat",
    ]);
  }, 240_000);

  it("stops preview and up at failing error-checks of each kind, naming each line, and changes nothing", async () => {
    writeConfig(failingConfig("error"));
    await emulator.hooks.clearRequests();
    const preview = await run(["preview"]);
    expect(preview.status).toBe(1);
    for (const line of [
      "acme-web.yaml:3:35: checks[0].manifest_release.at_least: expected the newest manifest release at least '2027.1'; the platform answered '2026.11.2' (released 2025-11-19T00:00:00Z)",
      `acme-web.yaml:18:44: environments.prod.checks[0].modules["silverstripe/framework"]: expected silverstripe/framework ^6; the platform answered silverstripe/framework '5.2.1'`,
      "acme-web.yaml:20:20: environments.prod.checks[1].framework: expected framework >=6; the platform answered '5.2.1'",
      "acme-web.yaml:22:29: environments.prod.checks[2].domains.primary: expected primary domain 'acme.example.com'; the platform answered primary 'www.acme.example.com'",
      "acme-web.yaml:24:31: environments.prod.checks[3].whitelist.enabled: expected whitelist enabled: true; the platform answered enabled: false",
      "acme-web.yaml:26:32: environments.prod.checks[4].configuration.has[0]: expected variable SECRET_KEY to be set; the platform answered variables 'APP_ENV', 'SS_LOG_LEVEL'",
    ]) {
      expect(preview.out).toContain(line);
    }
    expect(preview.out).toContain("checks failed, so nothing was changed");
    const up = await run(["up"]);
    expect(up.status).toBe(1);
    expect(up.out).toContain("environments.prod.checks[1].framework: expected framework >=6");
    expect(await writes()).toEqual([]);
    expect(`${preview.out}${up.out}`).not.toContain(SECRET);
  }, 240_000);

  it("shows failing warning-checks in the preview and its pull-request summary, and goes on", async () => {
    writeConfig(failingConfig("warning"));
    const summary = path.join(project.dir, "summary.md");
    const preview = await run(["preview", "--summary", summary]);
    expect(preview.status).toBe(0);
    expect(preview.out).toContain(
      "acme-web.yaml:20:20: environments.prod.checks[1].framework: expected framework >=6; the platform answered '5.2.1'",
    );
    const md = fs.readFileSync(summary, "utf8");
    expect(md).toContain("### Warnings and errors");
    expect(md).not.toContain(SECRET);
    expect(md).toContain(
      "- **warning**: check stacks-config/acme-web.yaml:20:20: environments.prod.checks[1].framework",
    );
    expect(md).toContain(
      'environments.prod.checks[0].modules["silverstripe/framework"]: expected silverstripe/framework ^6',
    );
    expect(md).toContain(
      "checks[0].manifest_release.at_least: expected the newest manifest release at least '2027.1'",
    );
    expect(md).toMatch(/\| prod \| (re)?deploy \|/);
    // The facts the file asks for, read during the preview, next to the plan.
    expect(md).toContain(
      "### Facts\n\n| where | fact | value |\n|---|---|---|\n| acme-web/prod | url | https://www.acme.example.com |",
    );
  }, 240_000);

  describe("change windows, with the clock pinned by STACKWRIGHT_NOW", () => {
    beforeAll(async () => {
      writeConfig(windowedConfig("1"));
      // Tuesday morning, inside the window: bring prod to the configuration.
      const up = await run(["up"], { STACKWRIGHT_NOW: TUESDAY_MORNING });
      expect(up.status).toBe(0);
    }, 240_000);

    it("never refuses a run that changes nothing, even outside the windows", async () => {
      await emulator.hooks.clearRequests();
      const preview = await run(["preview"], { STACKWRIGHT_NOW: FRIDAY_EVENING });
      expect(preview.out).not.toContain("Change windows refuse");
      expect(preview.status).toBe(0);
      expect(await writes()).toEqual([]);
    }, 240_000);

    it("refuses a change outside the windows at preview and before any write, naming the next window", async () => {
      writeConfig(windowedConfig("2"));
      await emulator.hooks.clearRequests();
      const next =
        'acme-web/prod is outside its change windows at 2026-11-27 18:00 UTC: outside every allow window (allow "0 9 * * 1-4" Europe/London for 7h); the next window opens Mon 2026-11-30 09:00 UTC+00:00 (Europe/London), 2026-11-30 09:00 UTC. Refused: redeploy';
      const summary = path.join(project.dir, "refused.md");
      const preview = await run(["preview", "--summary", summary], { STACKWRIGHT_NOW: FRIDAY_EVENING });
      expect(preview.status).toBe(1);
      expect(preview.out).toContain(next);
      expect(fs.readFileSync(summary, "utf8")).toContain(`### Change windows: refused\n\n- ${next}`);
      const up = await run(["up"], { STACKWRIGHT_NOW: FRIDAY_EVENING });
      expect(up.status).toBe(1);
      expect(up.out).toContain(next);
      expect(await writes()).toEqual([]);
    }, 240_000);

    it("lets an on-call engineer through with --override-window and records the reason in the deployment", async () => {
      const reason = "INC-42: checkout is down";
      const up = await run(["up", "--override-window", reason], { STACKWRIGHT_NOW: FRIDAY_EVENING });
      expect(up.out).toContain(`Change windows overridden (--override-window): "${reason}"`);
      expect(up.status).toBe(0);
      const made = (await prodDeployments()).filter((d) => d.summary.includes(reason));
      expect(made).toHaveLength(1);
      expect(made[0]?.summary).toContain(
        `Redeploy of the release tag\n\nChange window overridden at 2026-11-27 18:00 UTC: ${reason} (outside every allow window (allow "0 9 * * 1-4" Europe/London for 7h))`,
      );
    }, 240_000);
  });
});
