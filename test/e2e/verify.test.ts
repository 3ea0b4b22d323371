/**
 * `verify:` through the stackwright command and the real engine, against the sites the emulator
 * serves: a passing verification, a failing one that fails the run with its answer, a rollback to
 * the build that ran before with no deploy-fail-rollback loop on the next `up`, a rollback that
 * passes over builds recorded as failing, a run killed during its rollback and the run after it,
 * and a failing check behind the forward proxy and the private CA of proxy-tls.test.ts.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Verification } from "../../src/api";
import { DEFAULT_SEED_PATH, type RunningEmulator } from "../../src/emulator";
import { demoCredentials, emulatorHooks, startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { settingsBehindProxy, startBehindProxy, type BehindProxy } from "../helpers/behind-proxy";
import { scratchProject } from "../helpers/run-kms";
import type { ScratchProject } from "../helpers/scratch-project";
import { runInProject } from "../helpers/in-process";
import {
  killProcessesIn,
  killTree,
  runToEndAsync,
  startStackwright,
  waitFor,
} from "../helpers/stackwright-process";

const MAIN = "8f3c2a1d9e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a";
const RELEASE = "2b7e151628aed2a6abf7158809cf4f3c762e7160";
const TAG = "3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f";

/** Builds only `ref_type: sha` pins name: the emulator builds any sha it is given. */
const FEATURE = "4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f70";
const HOTFIX = "5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7081";

function refType(ref: string): string {
  if (ref === "v1.4.0") return "tag";
  return /^[0-9a-f]{40}$/.test(ref) ? "sha" : "branch";
}

function stackFile(ref: string, onFailure: "fail" | "rollback", trigger = "", within = "2s"): string {
  return `stack: acme-web
environments:
  uat:
    deployment: { ref_type: ${refType(ref)}, ref: ${ref}${trigger === "" ? "" : `, trigger: ${trigger}`} }
    verify:
      checks:
        - path: /health
          status: 200
          body: "runs build"
      within: ${within}
      interval: 1s
      on_failure: ${onFailure}
`;
}

/** The Deployment's recorded verification, from the stack's checkpoint. */
function verificationOf(project: ScratchProject): Verification | null | undefined {
  const checkpoint = JSON.parse(fs.readFileSync(project.stateFile("dev.acme-web"), "utf8")) as {
    checkpoint: { latest: { resources: { type: string; outputs?: Record<string, unknown> }[] } };
  };
  const d = checkpoint.checkpoint.latest.resources.find((r) => r.type.endsWith(":Deployment"));
  return d?.outputs?.["verification"] as Verification | null | undefined;
}

/**
 * `stackwright up` in the project: in this process (test/helpers/in-process.ts), or in one of
 * its own where the run trusts a private CA through NODE_EXTRA_CA_CERTS, which Node reads only
 * when a process starts.
 */
async function runUp(project: ScratchProject, env: Record<string, string>, ownProcess = false) {
  const args = ["up", "--project", project.dir];
  const runEnv = { ...project.env, ...env };
  const { status, out } = ownProcess
    ? await runToEndAsync(
        project.dir,
        process.execPath,
        [path.join(project.dir, "bin", "stackwright.js"), ...args],
        runEnv,
      )
    : await runInProject(project.dir, args, runEnv);
  expect(out).not.toContain(env["STACKWRIGHT_API_TOKEN"] ?? "never");
  return { status, out };
}

describe("verify: after every deployment, through the stackwright command", () => {
  let emulator: TestEmulator;
  let project: ScratchProject;
  let env: Record<string, string>;
  const write = (text: string) =>
    fs.writeFileSync(path.join(project.dir, "stacks-config", "acme-web.yaml"), text);
  const deployWrites = async () =>
    (await emulator.hooks.requests()).filter(
      (r) => r.method === "POST" && /\/deploys$/.test(r.path.split("?")[0] ?? ""),
    );

  beforeAll(async () => {
    emulator = await startTestEmulator({ seed: DEFAULT_SEED_PATH });
    project = scratchProject({
      stacksConfig: { "acme-web.yaml": stackFile("release/2026-11", "fail") },
    });
    env = demoCredentials(emulator.url);
  }, 120_000);
  afterAll(async () => {
    project?.remove();
    await emulator?.close();
  });

  it("records a passing verification of the deployment it made", async () => {
    const { status, out } = await runUp(project, env);
    expect(status, out).toBe(0);
    expect(verificationOf(project)).toMatchObject({ result: "passed", sha: RELEASE, attempts: 1 });
    expect((await emulator.hooks.siteRequests("acme-web", "uat")).build_sha).toBe(RELEASE);
  }, 300_000);

  it("fails the run with one line naming the check and its answer, and verifies again on the next up", async () => {
    await emulator.hooks.site("acme-web", "uat", { sha: TAG, status: 503, body: "down" });
    write(stackFile("v1.4.0", "fail"));
    const failed = await runUp(project, env);
    expect(failed.status, failed.out).toBe(1);
    expect(failed.out).toMatch(
      /acme-web\/uat: verify failed: GET http:\/\/127\.0\.0\.1:\d+\/_sites\/acme-web\/uat\/health answered 503 \(expected status 200, body \/runs build\/\) after \d+s, \d+ attempts/,
    );
    expect(verificationOf(project)).toMatchObject({
      result: "failed",
      sha: TAG,
      failed_check: { index: 0, target: "/health" },
      answer: { status: 503, body_excerpt: "down" },
    });

    await emulator.hooks.clearSite("acme-web", "uat");
    await emulator.hooks.clearRequests();
    const again = await runUp(project, env);
    expect(again.status, again.out).toBe(0);
    expect(verificationOf(project)).toMatchObject({ result: "passed", sha: TAG });
    expect(await deployWrites()).toEqual([]);
  }, 300_000);

  it("rolls back to the build that ran before, and the next up does not deploy the failed build again", async () => {
    await emulator.hooks.site("acme-web", "uat", { sha: MAIN, status: 500 });
    write(stackFile("main", "rollback"));
    const failed = await runUp(project, env);
    expect(failed.status, failed.out).toBe(1);
    expect(failed.out).toMatch(
      /acme-web\/uat: verify failed: GET \S+\/health answered 500 .*; rolled back to 3c4d5e6 \(deployment \d+, verified\)/,
    );
    expect((await emulator.hooks.siteRequests("acme-web", "uat")).build_sha).toBe(TAG);
    expect(verificationOf(project)).toMatchObject({
      result: "rolled_back",
      sha: MAIN,
      rolled_back_to: { sha: TAG, result: "passed" },
    });

    await emulator.hooks.clearRequests();
    const next = await runUp(project, env);
    expect(next.status, next.out).toBe(1);
    expect(next.out).toContain(
      "acme-web/uat: build 8f3c2a1 failed verification and was rolled back to 3c4d5e6; not deploying it again until the file changes",
    );
    expect(await deployWrites()).toEqual([]);
    expect((await emulator.hooks.siteRequests("acme-web", "uat")).build_sha).toBe(TAG);
  }, 300_000);

  it("rolls back past the build before when that one failed verification earlier, to an older build that passed", async () => {
    // The tag fails now and stays live (on_failure: fail): the record says it failed.
    await emulator.hooks.site("acme-web", "uat", { sha: TAG, status: 503, body: "down" });
    write(stackFile("v1.4.0", "fail", "again"));
    const tagFailed = await runUp(project, env);
    expect(tagFailed.status, tagFailed.out).toBe(1);
    expect((await emulator.hooks.siteRequests("acme-web", "uat")).build_sha).toBe(TAG);

    // A new build fails too: the build before (the tag) and main failed, the release passed.
    await emulator.hooks.site("acme-web", "uat", { sha: FEATURE, status: 500 });
    write(stackFile(FEATURE, "rollback"));
    const failed = await runUp(project, env);
    expect(failed.status, failed.out).toBe(1);
    expect(failed.out).toMatch(
      /acme-web\/uat: verify failed: GET \S+\/health answered 500 .*; rolled back to 2b7e151 \(deployment \d+, verified\)/,
    );
    expect((await emulator.hooks.siteRequests("acme-web", "uat")).build_sha).toBe(RELEASE);
    expect(verificationOf(project)).toMatchObject({
      result: "rolled_back",
      sha: FEATURE,
      rolled_back_to: { sha: RELEASE, result: "passed" },
    });
  }, 600_000);

  it("takes over a rollback its killed run left in flight: no second deployment of the failed build nor a second rollback", async () => {
    await emulator.hooks.site("acme-web", "uat", { sha: HOTFIX, status: 500 });
    write(stackFile(HOTFIX, "rollback", "", "5s"));
    await emulator.hooks.clearRequests();
    const first = startStackwright(project.dir, ["up", "--project", project.dir], { ...project.env, ...env });
    // Once the failing build runs, the next deployment (the rollback) is held on the platform.
    await waitFor(
      async () => (await emulator.hooks.siteRequests("acme-web", "uat")).build_sha === HOTFIX,
      "the failing build to be deployed",
      240_000,
    );
    await emulator.hooks.stallNext("acme-web", "uat", 15_000);
    await waitFor(async () => (await deployWrites()).length === 2, "the rollback to be created", 120_000);
    killTree(first.pid);
    await first.exited;
    await killProcessesIn(project.dir);
    expect(first.output()).not.toMatch(/rolled back to/);

    await emulator.hooks.clearRequests();
    const next = await runUp(project, env);
    expect(next.status, next.out).toBe(1);
    expect(next.out).toMatch(
      /acme-web\/uat: build 5e6f708 failed verification in a run that stopped while rolling back; rolled back to 2b7e151 \(deployment \d+, verified\); not deploying 5e6f708 again until the file changes/,
    );
    expect(await deployWrites()).toEqual([]);
    expect((await emulator.hooks.siteRequests("acme-web", "uat")).build_sha).toBe(RELEASE);
    expect(verificationOf(project)).toMatchObject({
      result: "rolled_back",
      sha: HOTFIX,
      rolled_back_to: { sha: RELEASE, result: "passed" },
    });

    const after = await runUp(project, env);
    expect(after.status, after.out).toBe(1);
    expect(after.out).toContain(
      "acme-web/uat: build 5e6f708 failed verification and was rolled back to 2b7e151",
    );
    expect(await deployWrites()).toEqual([]);
  }, 900_000);
});

describe("a failing check behind a forward proxy and a private CA", () => {
  let behind: BehindProxy;
  let emulator: RunningEmulator;
  let project: ScratchProject;
  let env: Record<string, string>;

  beforeAll(async () => {
    // The environment's URL is the site on the emulator as the public URL names it: behind TLS.
    behind = await startBehindProxy();
    ({ emulator } = behind);
    project = scratchProject({
      stacksConfig: { "acme-web.yaml": stackFile("release/2026-11", "fail") },
    });
    settingsBehindProxy(project.dir, behind);
    env = { ...demoCredentials(behind.apiUrl), ...behind.env };
  }, 120_000);
  afterAll(async () => {
    project?.remove();
    await behind?.close();
  });

  it("reaches the site through the proxy, trusting the private CA, and fails the run with its answer", async () => {
    await emulatorHooks(emulator.url).site("acme-web", "uat", { sha: RELEASE, status: 503 });
    const { status, out } = await runUp(project, env, true);
    expect(status, out).toBe(1);
    expect(out).toMatch(
      /acme-web\/uat: verify failed: GET https:\/\/files\.stackwright\.test\/_sites\/acme-web\/uat\/health answered 503 \(expected status 200, body \/runs build\/\)/,
    );
    expect(behind.proxy.connections("files.stackwright.test:443")).toBeGreaterThan(0);
  }, 300_000);
});
