/**
 * `stackwright drift` tells people: a hand deployment is sent as `drift.detected` once, nothing
 * while it stays, and `drift.resolved` once it is gone, over real runs of the command on the
 * emulator to a recording webhook on 127.0.0.1. The sinks are checked before anything is read,
 * and a receiver that fails never changes drift's exit code.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect } from "vitest";
import { NotifyEvent } from "../../src/api";
import type { Receiver } from "../helpers/receivers";
import { fixtures, type InProcessEmulator } from "../helpers/fixtures";
import type { ScratchProject } from "../helpers/scratch-project";
import { runInProject } from "../helpers/in-process";

/** Of the test seed: the branch uat deploys, and a sha a person deploys by hand. */
const RELEASE_BRANCH_SHA = "2b7e151628aed2a6abf7158809cf4f3c762e7160";
const BY_HAND_SHA = "3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f";

const ACME_WEB = `stack: acme-web
environments:
  uat:
    deployment: { ref_type: branch, ref: release/2026-11 }
`;

const SINKS = `  stackwright:notify:
    - name: audit
      kind: webhook
      url_env: AUDIT_WEBHOOK_URL
      secret_env: AUDIT_WEBHOOK_SECRET
      events: [drift.detected, drift.resolved]
`;

const test = fixtures({ project: { stacksConfig: { "acme-web.yaml": ACME_WEB } } });

describe("drift notifications from stackwright drift", () => {
  let project: ScratchProject;
  let emulator: InProcessEmulator;
  let hook: Receiver;
  let failing: Receiver;
  let env: Record<string, string>;

  // In this process, beside the receivers it notifies.
  const run = (args: string[], extra: Record<string, string> = {}) =>
    runInProject(project.dir, [...args, "--project", project.dir], { ...project.env, ...env, ...extra });
  const received = () => hook.received.map((r) => NotifyEvent.parse(JSON.parse(r.body)));
  const apiRequests = async () =>
    (await emulator.hooks.requests()).filter((r) => !r.path.startsWith("/_emulator"));

  test.beforeAll(async ({ project: scratch, emulatorInProcess, receivers }) => {
    [project, emulator] = [scratch, emulatorInProcess];
    const settings = path.join(project.dir, "Pulumi.dev.yaml");
    fs.writeFileSync(settings, fs.readFileSync(settings, "utf8").replace(/^config:\n/m, `config:\n${SINKS}`));
    hook = await receivers();
    failing = await receivers({ fallback: { status: 500 } });
    env = {
      ...emulator.env,
      AUDIT_WEBHOOK_URL: hook.url,
      AUDIT_WEBHOOK_SECRET: "whsec-drift-e2e",
    };
    const up = await run(["up", "acme-web"]);
    expect(up.status, up.out).toBe(0);
    expect(hook.received).toEqual([]); // up sends no drift events, and this sink wants nothing else
  }, 240_000);

  test("refuses to start, before any read, when a sink's variable is not set", async () => {
    await emulator.hooks.clearRequests();
    const refused = await run(["drift"], { AUDIT_WEBHOOK_SECRET: "" });
    expect(refused.status).toBe(2);
    expect(refused.out).toMatch(
      /Pulumi\.dev\.yaml:\d+:\d+: notify sink 'audit': secret_env: the variable AUDIT_WEBHOOK_SECRET is not set/,
    );
    expect(await apiRequests()).toEqual([]);
  }, 120_000);

  test("sends drift.detected once for a new drift, nothing while it stays, and drift.resolved once", async () => {
    await emulator.hooks.handDeploy("acme-web", "uat", BY_HAND_SHA);

    const first = await run(["drift"]);
    expect(first.status, first.out).toBe(5);
    expect(first.out).toContain("notifications: 1 delivered, 0 failed");
    expect(received().map((e) => `${e.event} ${e.stack}/${e.environment ?? ""}`)).toEqual([
      "drift.detected acme-web/uat",
    ]);
    expect(received()[0]).toMatchObject({
      target: "dev",
      pulumi_stack: "dev.acme-web",
      details: { kind: "hand deployment", desired: "branch release/2026-11", live: BY_HAND_SHA },
    });

    const second = await run(["drift"]);
    expect(second.status, second.out).toBe(5);
    expect(second.out).toMatch(/still\s+acme-web\/uat/);
    expect(second.out).not.toContain("notifications:");
    expect(hook.received).toHaveLength(1);

    await emulator.hooks.handDeploy("acme-web", "uat", RELEASE_BRANCH_SHA);
    const summary = path.join(project.dir, "drift.md");
    const third = await run(["drift", "--summary", summary]);
    expect(third.status, third.out).toBe(0);
    expect(received().map((e) => `${e.event} ${e.stack}/${e.environment ?? ""}`)).toEqual([
      "drift.detected acme-web/uat",
      "drift.resolved acme-web/uat",
    ]);
    expect(fs.readFileSync(summary, "utf8")).toContain(
      "| audit (webhook) | drift.resolved | delivered | HTTP 200 |",
    );
  }, 300_000);

  test("keeps drift's exit code when the sink cannot take the event", async () => {
    await emulator.hooks.handDeploy("acme-web", "uat", BY_HAND_SHA);
    const drifted = await run(["drift", "--json", "-"], {
      AUDIT_WEBHOOK_URL: failing.url,
      STACKWRIGHT_NOTIFY_BOUND: "2s",
    });
    expect(drifted.status, drifted.out).toBe(5);
    expect(failing.received.length).toBeGreaterThan(0);
    expect(drifted.out).toContain(
      "notifications: 0 delivered, 1 failed (the exit code does not depend on them)",
    );
    expect(drifted.out).toMatch(/audit \(webhook\) drift\.detected: HTTP 500/);
    expect(drifted.out).not.toContain(failing.url);
  }, 120_000);
  test("checks its output paths before reading anything, so a run that cannot write its report leaves the next run to notify", async () => {
    await emulator.hooks.handDeploy("acme-web", "uat", RELEASE_BRANCH_SHA);
    const settled = await run(["drift"]);
    expect(settled.status, settled.out).toBe(0);
    const before = received().length;

    await emulator.hooks.handDeploy("acme-web", "uat", BY_HAND_SHA);
    await emulator.hooks.clearRequests();
    const missing = path.join(project.dir, "no-such-dir", "drift.json");
    const refused = await run(["drift", "--json", missing]);
    expect(refused.status, refused.out).toBe(2);
    expect(refused.out).toContain(`--json ${missing}: the directory ${path.dirname(missing)} does not exist`);
    expect(await apiRequests()).toEqual([]);
    expect(received()).toHaveLength(before);

    const next = await run(["drift"]);
    expect(next.status, next.out).toBe(5);
    expect(
      received()
        .slice(before)
        .map((e) => `${e.event} ${e.stack}/${e.environment ?? ""}`),
    ).toEqual(["drift.detected acme-web/uat"]);
  }, 300_000);
});
