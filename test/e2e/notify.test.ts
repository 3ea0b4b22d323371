import { spawnSync } from "node:child_process";
import { createHmac, timingSafeEqual } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect } from "vitest";
import { NotifyEvent } from "../../src/api";
import { seedWithOpsManagingEveryStack, TEST_SEED_PATH } from "../helpers/emulator";
import { fixtures, type InProcessEmulator } from "../helpers/fixtures";
import { slackProblem, teamsProblem, type Receiver } from "../helpers/receivers";
import type { ScratchProject } from "../helpers/scratch-project";
import { runInProject } from "../helpers/in-process";
import { startStackwright } from "../helpers/stackwright-process";

// Notifications from real runs of `stackwright up` on the emulator, to real receivers on
// 127.0.0.1: a signed webhook declared for the whole target (Pulumi.dev.yaml), and a Slack- and
// a Teams-shaped receiver declared by one stack file. One run produces a deployment that
// succeeds, one that fails with its log tail, one awaiting approval, a restore, a window
// override and a recovered stale lock; a second one sends to a receiver that never answers.

/** A configuration value of prod that must never leave the program. */
const CONFIG_VALUE = "s3cr3t-log-level-9921";
const SIGNING_SECRET = "whsec-e2e-5f0c1d";
const FRIDAY_EVENING = "2026-11-27T18:00:00Z";

const acmeWeb = (trigger: string) => `stack: acme-web
notify:
  - name: releases
    kind: slack
    url_env: SLACK_WEBHOOK_RELEASES
    events: [deployment.succeeded, deployment.failed, deployment.awaiting_approval, restore.succeeded, window.overridden, lock.recovered, run.failed]
  - name: oncall
    kind: teams
    url_env: TEAMS_WEBHOOK_ONCALL
    events: [deployment.awaiting_approval, window.overridden]
    environments: [prod]
environments:
  uat:
    deployment: { ref_type: branch, ref: main, trigger: "${trigger}" }
    snapshots:
      before: { mode: db }
    restores:
      back:
        snapshot: before
        mode: db
        confirm: uat
        trigger: "${trigger}"
    windows:
      - allow: { schedule: "0 9 * * 1-4", duration: 7h, timezone: Europe/London }
  prod:
    deployment: { ref_type: tag, ref: v1.4.0, approval: request }
`;

const acmeIntranet = `stack: acme-intranet
environments:
  test:
    deployment: { ref_type: branch, ref: main }
`;

const targetSinks = `  stackwright:notify:
    - name: audit
      kind: webhook
      url_env: AUDIT_WEBHOOK_URL
      secret_env: AUDIT_WEBHOOK_SECRET
      events: [deployment.succeeded, deployment.failed, deployment.awaiting_approval, restore.succeeded, restore.failed, window.overridden, lock.recovered, run.failed]
`;

function verified(secret: string, body: string, header: string | undefined): boolean {
  const expected = Buffer.from(`sha256=${createHmac("sha256", secret).update(body).digest("hex")}`);
  const given = Buffer.from(header ?? "");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

// ops@example.com manages both API stacks; prod's configuration holds a value to look for.
const SEED = seedWithOpsManagingEveryStack(
  fs.readFileSync(TEST_SEED_PATH, "utf8").replace("SS_LOG_LEVEL: warning", `SS_LOG_LEVEL: ${CONFIG_VALUE}`),
);
const test = fixtures({ seed: { yaml: SEED } });

describe("notifications from stackwright up", () => {
  let project: ScratchProject;
  let emulator: InProcessEmulator;
  let webhook: Receiver;
  let slack: Receiver;
  let teams: Receiver;
  let silent: Receiver;
  let baseEnv: Record<string, string>;
  const outputs: string[] = [];

  const run = async (args: string[], extra: Record<string, string> = {}) => {
    const ran = await runInProject(project.dir, [...args, "--project", project.dir], {
      ...project.env,
      ...baseEnv,
      ...extra,
    });
    outputs.push(ran.out);
    return ran;
  };
  const writeFile = (name: string, text: string) =>
    fs.writeFileSync(path.join(project.dir, "stacks-config", name), text);
  const events = (r: Receiver) => r.received.map((x) => x.headers["x-stackwright-event"]);

  test.beforeAll(async ({ project: scratch, emulatorInProcess, receivers }) => {
    expect(SEED).toContain(CONFIG_VALUE);
    [project, emulator] = [scratch, emulatorInProcess];
    webhook = await receivers();
    slack = await receivers({ check: slackProblem, path: "/services/T000/B000/XXXX" });
    teams = await receivers({ check: teamsProblem, path: "/webhookb2/abc/IncomingWebhook/def" });
    silent = await receivers({ fallback: "hang" });
    baseEnv = {
      ...emulator.env,
      STACKWRIGHT_NOW: FRIDAY_EVENING,
      AUDIT_WEBHOOK_URL: webhook.url,
      AUDIT_WEBHOOK_SECRET: SIGNING_SECRET,
      SLACK_WEBHOOK_RELEASES: slack.url,
      TEAMS_WEBHOOK_ONCALL: teams.url,
      // A CI run, as GitHub Actions describes it.
      GITHUB_ACTIONS: "true",
      GITHUB_SERVER_URL: "https://github.example.com",
      GITHUB_REPOSITORY: "acme/sites",
      GITHUB_RUN_ID: "4242",
    };
    const settings = path.join(project.dir, "Pulumi.dev.yaml");
    fs.writeFileSync(
      settings,
      fs.readFileSync(settings, "utf8").replace(/^config:\n/m, `config:\n${targetSinks}`),
    );
    writeFile("acme-web.yaml", acmeWeb("1"));
    writeFile("acme-intranet.yaml", acmeIntranet);
  }, 60_000);

  test("validate warns at the line of a sink whose variable is not set, and up refuses to start without it", async () => {
    const validate = await run(["validate"], { SLACK_WEBHOOK_RELEASES: "" });
    expect(validate.status).toBe(0);
    expect(validate.out).toMatch(
      /warning: .*stacks-config\/acme-web\.yaml:5:14: notify\[0\]\.url_env: the variable SLACK_WEBHOOK_RELEASES of sink 'releases' is not set here/,
    );
    const up = await run(["up"], { SLACK_WEBHOOK_RELEASES: "" });
    expect(up.status).toBe(2);
    expect(up.out).toMatch(
      /acme-web\.yaml:5:14: notify sink 'releases': url_env: the variable SLACK_WEBHOOK_RELEASES is not set/,
    );
    expect([...webhook.received, ...slack.received, ...teams.received]).toEqual([]);
  });

  test("sends each event of a run to the sinks that subscribe to it, signed, in each service's format", async () => {
    // A stale lock of a run that is gone (a pid that ran on this host and ended).
    const dead = spawnSync(process.execPath, ["-e", ""]).pid;
    const lockDir = path.join(
      project.stateDir,
      ".pulumi",
      "locks",
      "organization",
      "stackwright",
      "dev.acme-web",
    );
    fs.mkdirSync(lockDir, { recursive: true });
    fs.writeFileSync(
      path.join(lockDir, "0b7c2d1e-dead-4c0c-9b1a-000000000001.json"),
      JSON.stringify({
        pid: dead,
        username: "runner",
        hostname: os.hostname(),
        timestamp: "2026-11-27T17:00:00Z",
      }),
    );
    await emulator.hooks.nextOutcome(
      "acme-intranet",
      "test",
      "fail",
      "composer install failed: out of memory",
    );
    const summary = path.join(project.dir, "up.md");
    const up = await run(["up", "--override-window", "hotfix for INC-42", "--summary", summary]);
    expect(up.status).toBe(1); // acme-intranet's deployment failed; the notifications change nothing

    const audit = webhook.received.map((r) => NotifyEvent.parse(JSON.parse(r.body)));
    expect(audit.map((e) => e.event).sort()).toEqual(
      [
        "deployment.awaiting_approval",
        "deployment.failed",
        "deployment.succeeded",
        "lock.recovered",
        "restore.succeeded",
        "run.failed",
        "window.overridden",
      ].sort(),
    );
    for (const r of webhook.received) {
      expect(verified(SIGNING_SECRET, r.body, r.headers["x-stackwright-signature"])).toBe(true);
      expect(r.headers["idempotency-key"]).toBe((JSON.parse(r.body) as { id: string }).id);
    }
    const byName = (name: string) => audit.find((e) => e.event === name);
    expect(byName("deployment.failed")).toMatchObject({
      target: "dev",
      stack: "acme-intranet",
      pulumi_stack: "dev.acme-intranet",
      environment: "test",
      links: {
        deployment: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/.+/),
        ci_run: "https://github.example.com/acme/sites/actions/runs/4242",
      },
      ci: { provider: "github" },
      details: {
        deployment_id: expect.stringMatching(/^\d+$/),
        state: "Failed",
        log_tail: expect.arrayContaining([expect.stringContaining("composer install failed: out of memory")]),
      },
    });
    expect(byName("deployment.succeeded")).toMatchObject({
      stack: "acme-web",
      environment: "uat",
      details: { state: "Completed", sha: "8f3c2a1d9e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a" },
    });
    expect(byName("deployment.awaiting_approval")).toMatchObject({ environment: "prod" });
    expect(byName("restore.succeeded")).toMatchObject({ environment: "uat", details: { restore: "back" } });
    expect(byName("window.overridden")).toMatchObject({
      details: { reason: "hotfix for INC-42", environments: ["uat"] },
    });
    expect(byName("lock.recovered")).toMatchObject({
      pulumi_stack: "dev.acme-web",
      details: { holder: expect.stringContaining(`pid ${dead}`) },
    });
    // The engine's first error about a resource, not the run's "the engine's report above" line.
    expect(byName("run.failed")).toMatchObject({
      stack: "acme-intranet",
      details: {
        exit_code: 1,
        reason: expect.stringMatching(/^Deployment \d+ "" on acme-intranet\/test ended Failed: /),
      },
    });

    // Slack: acme-web's own events only (its sink is declared in acme-web.yaml); all accepted.
    expect(slack.received.every((r) => r.status === 200)).toBe(true);
    expect(events(slack).sort()).toEqual(
      [
        "deployment.awaiting_approval",
        "deployment.succeeded",
        "lock.recovered",
        "restore.succeeded",
        "window.overridden",
      ].sort(),
    );
    // Teams: prod only; the override was about uat, so only the approval request.
    expect(teams.received.every((r) => r.status === 200)).toBe(true);
    expect(events(teams)).toEqual(["deployment.awaiting_approval"]);

    expect(up.out).toContain("notifications: 13 delivered, 0 failed");
    const md = fs.readFileSync(summary, "utf8");
    expect(md).toContain("### Notifications");
    expect(md).toMatch(/\| audit \(webhook\) \| deployment\.failed \| delivered \| HTTP 200 \|/);
  });

  test("a receiver that never answers costs at most the bound and does not change the exit code", async () => {
    const before = webhook.received.length;
    writeFile("acme-web.yaml", acmeWeb("2"));
    const child = startStackwright(
      project.dir,
      ["up", "acme-web", "--override-window", "again", "--project", project.dir],
      {
        ...project.env,
        ...baseEnv,
        AUDIT_WEBHOOK_URL: silent.url,
        STACKWRIGHT_NOTIFY_BOUND: "3s",
      },
    );
    await child.waitForOutput(
      (out) => /stack\s+result\s+changes\s+duration/.test(out),
      "the closing table",
      200_000,
    );
    const tableAt = performance.now();
    const status = await child.exited;
    const afterTable = performance.now() - tableAt;
    outputs.push(child.output());
    expect(status).toBe(0);
    // An upper bound, not a timing: the 3 s bound plus the process's own exit.
    expect(afterTable).toBeLessThan(3_000 + 5_000);
    expect(child.output()).toMatch(/audit \(webhook\) deployment\.succeeded: .*delivery bound \(3 s\)/);
    expect(silent.received.length).toBeGreaterThan(0);
    expect(webhook.received.length).toBe(before);
  });

  test("notify test sends one sample of each subscribed event to the named sink", async () => {
    const before = teams.received.length;
    const test = await run(["notify", "test", "--sink", "oncall"]);
    expect(test.status).toBe(0);
    expect(test.out).toContain("notifications: 2 delivered, 0 failed");
    const samples = teams.received.slice(before);
    expect(samples.map((r) => r.headers["x-stackwright-event"]).sort()).toEqual([
      "deployment.awaiting_approval",
      "window.overridden",
    ]);
    expect(samples.every((r) => r.status === 200 && r.body.includes("[test]"))).toBe(true);
    // A channel that cannot be reached fails the test (exit 1), within the bound.
    const unreachable = await run(["notify", "test", "--sink", "oncall"], {
      TEAMS_WEBHOOK_ONCALL: silent.url,
      STACKWRIGHT_NOTIFY_BOUND: "1s",
    });
    expect(unreachable.status).toBe(1);
    expect(unreachable.out).toContain("notifications: 0 delivered, 2 failed");
    const unknown = await run(["notify", "test", "--sink", "nope"]);
    expect(unknown.status).toBe(2);
    expect(unknown.out).toContain("no sink is named 'nope'; declared: audit, releases, oncall");
  });

  test("puts no token, configuration value, signing secret or webhook URL in any payload, log line or summary", () => {
    const payloads = [webhook, slack, teams, silent].flatMap((r) => r.received.map((x) => x.body));
    const summary = fs.readFileSync(path.join(project.dir, "up.md"), "utf8");
    const everything = [...payloads, ...outputs, summary].join("\n");
    expect(payloads.length).toBeGreaterThan(15);
    for (const secret of [
      "demo-token",
      CONFIG_VALUE,
      SIGNING_SECRET,
      webhook.url,
      slack.url,
      teams.url,
      silent.url,
      "/services/T000/B000/XXXX",
      "/webhookb2/abc",
    ]) {
      expect(everything).not.toContain(secret);
    }
  });
});
