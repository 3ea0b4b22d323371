import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, onTestFinished } from "vitest";
import { lockDirectory } from "../../src/cli/state/locks";
import {
  basicAuth,
  demoCredentials,
  seedWithOpsManagingEveryStack,
  TEST_SEED_PATH,
  TEST_USERS,
} from "../helpers/emulator";
import { fixtures, type InProcessEmulator } from "../helpers/fixtures";
import { scratchProject } from "../helpers/run-kms";
import type { ScratchProject } from "../helpers/scratch-project";
import {
  runToEndAsync,
  startStackwright,
  waitFor,
  type StackwrightProcess,
} from "../helpers/stackwright-process";

// Ctrl-C as a terminal sends it: SIGINT to the whole process group of `stackwright up` (the
// helper starts it in a group of its own), at several points of a fleet run. The first stops
// gracefully and says what it waits for, the second stops at once; the same every time, and the
// next `up` makes no second deployment.
const USER = TEST_USERS.stackManager;
const STACKS = {
  "web.yaml":
    "stack: acme-web\nenvironments:\n  uat:\n    deployment:\n      ref_type: branch\n      ref: release/2026-11\n      approval: bypass_and_start\n",
  "intranet.yaml":
    "stack: acme-intranet\nenvironments:\n  test:\n    deployment:\n      ref_type: branch\n      ref: main\n      approval: bypass_and_start\n",
};

/** The test seed with a commit of acme-intranet's main, and ops a Stack Manager of acme-intranet too. */
const SEED = seedWithOpsManagingEveryStack(
  fs
    .readFileSync(TEST_SEED_PATH, "utf8")
    .replace(
      "    repository_url: https://git.example.com/acme/intranet.git\n",
      "    repository_url: https://git.example.com/acme/intranet.git\n    refs:\n      main: 2b7e151628aed2a6abf7158809cf4f3c762e7160\n",
    ),
);

// Each case starts from a state of its own (a fresh project) and a reset platform.
const test = fixtures({ seed: { yaml: SEED }, project: { stacksConfig: STACKS } });

describe("Ctrl-C during a run", () => {
  let emulator: InProcessEmulator;
  let project: ScratchProject;
  const env = () => ({ ...project.env, ...demoCredentials(emulator.url) });
  const up = (...args: string[]): StackwrightProcess =>
    startStackwright(project.dir, ["up", "--concurrency", "1", ...args], env());
  const upToEnd = () =>
    runToEndAsync(
      project.dir,
      process.execPath,
      [path.join(project.dir, "bin", "stackwright.js"), "up", "--concurrency", "1"],
      env(),
    );
  /** SIGINT to the process group, as a terminal sends it. */
  const ctrlC = (run: StackwrightProcess) => process.kill(-run.pid, "SIGINT");
  const deployments = async (stack: string, environment: string) => {
    const res = await fetch(`${emulator.url}/svc/project/${stack}/environment/${environment}/deploys`, {
      headers: { authorization: basicAuth(USER.email, USER.token) },
    });
    const doc = (await res.json()) as {
      data: { id: string | number; attributes: { state: string; summary: string | null } }[];
    };
    return doc.data
      .filter((d) => (d.attributes.summary ?? "").includes("[stackwright "))
      .map((d) => ({ id: String(d.id), state: d.attributes.state }));
  };
  /** Waits until Stackwright's deployment on the environment is in one of `states`. */
  const deploymentIn = async (stack: string, environment: string, states: readonly string[]) => {
    let id = "";
    await waitFor(
      async () => {
        const found = (await deployments(stack, environment)).find((d) => states.includes(d.state));
        id = found?.id ?? "";
        return found !== undefined;
      },
      `a deployment on ${stack}/${environment} in ${states.join(" or ")}`,
    );
    return id;
  };
  /** The lines Stackwright says about the stop, with ids made alike. */
  const stopLines = (out: string) =>
    out
      .split("\n")
      .filter((l) => /^stackwright: SIG\w+ received/.test(l))
      .map((l) => l.replace(/deployment \d+/g, "deployment N"));
  /** How often the engine (its display, when shown) said it was asked to stop, by how. */
  const engineSaid = (out: string, how: "cancelling" | "terminating") =>
    out.split("\n").filter((l) => l.includes(`^C received; ${how}`)).length;

  test.beforeAll(({ emulatorInProcess }) => {
    emulator = emulatorInProcess;
  });
  test.beforeEach(async ({ freshProject }) => {
    await emulator.hooks.reset();
    project = freshProject;
  });

  test("before its engine starts (waiting for another run's lock): stops at once, deploys nothing, exit 130", async () => {
    const dir = path.join(project.stateDir, lockDirectory("stackwright", "dev.acme-web"));
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      path.join(dir, "3b1c2d4e-0000-4000-8000-000000000035.json"),
      JSON.stringify({
        pid: process.pid,
        username: os.userInfo().username,
        hostname: os.hostname(),
        timestamp: new Date().toISOString(),
      }),
    );
    const run = up("--lock-wait", "10m", "acme-web");
    await run.waitForOutput((o) => o.includes("(--lock-wait)"), "the run waiting for the lock");
    ctrlC(run);
    expect(await run.exited, run.output()).toBe(130);
    expect(stopLines(run.output())).toEqual([
      "stackwright: SIGINT received: stopping gracefully; no engine is running and none will start; Ctrl-C again to stop at once",
    ]);
    expect(await deployments("acme-web", "uat")).toEqual([]);
  }, 240_000);

  test("while a deployment runs: waits for it (saying so), prints no removed outputs, the same on every try", async () => {
    const tries: string[][] = [];
    for (const attempt of [1, 2]) {
      if (attempt > 1) {
        await emulator.hooks.reset();
        const again = scratchProject({ stacksConfig: STACKS });
        onTestFinished(() => again.remove());
        project = again;
      }
      // Long enough for the signal to land while it runs; the graceful stop waits for its end.
      await emulator.hooks.stallNext("acme-web", "uat", 8_000);
      const run = up("acme-web");
      const id = await deploymentIn("acme-web", "uat", ["Deploying"]);
      // The display shows the provider's line naming it (what the stop's line names it by).
      await run.waitForOutput((o) => o.includes(`acme-web/uat  deployment ${id} `), "the engine naming it");
      ctrlC(run);
      expect(await run.exited, run.output()).toBe(130);
      const out = run.output();
      expect(engineSaid(out, "cancelling")).toBeLessThanOrEqual(1);
      expect(engineSaid(out, "terminating")).toBe(0);
      expect(out).not.toMatch(/^\s*- (facts|stacks)\b/m);
      tries.push(stopLines(out));
      // The deployment ended and the state recorded it: the next up makes none.
      const before = await deployments("acme-web", "uat");
      expect(before.map((d) => d.state)).toEqual(["Completed"]);
      const again = await upToEnd();
      expect(again.status, again.out).toBe(0);
      expect(await deployments("acme-web", "uat")).toEqual(before);
    }
    expect(tries[0]).toEqual([
      "stackwright: SIGINT received: stopping gracefully; waiting for deployment N on acme-web/uat to finish (its bound: 30m); Ctrl-C again to stop at once",
    ]);
    expect(tries[1]).toEqual(tries[0]);
  }, 600_000);

  test("during the second stack of a fleet: the second Ctrl-C stops at once, and the next up deploys nothing twice", async () => {
    await emulator.hooks.stallNext("acme-web", "uat", 20_000);
    const run = up();
    // The fleet runs acme-intranet first (file order), then acme-web.
    await deploymentIn("acme-intranet", "test", ["Completed"]);
    const id = await deploymentIn("acme-web", "uat", ["Deploying"]);
    await run.waitForOutput((o) => o.includes(`acme-web/uat  deployment ${id} `), "the engine naming it");
    ctrlC(run);
    await run.waitForOutput((o) => o.includes("Ctrl-C again to stop at once"), "the first stop's line");
    // A second key press, not the same one delivered twice (under npm, one Ctrl-C reaches the
    // CLI from the terminal and from npm): pressed after the provider polled the deployment twice more.
    const polls = async () =>
      (await emulator.hooks.requests()).filter((r) => r.method === "GET" && /\/deploys\/\d+$/.test(r.path))
        .length;
    const seen = await polls();
    await waitFor(async () => (await polls()) >= seen + 2, "two more polls of the deployment");
    ctrlC(run);
    expect(await run.exited, run.output()).toBe(130);
    const lines = stopLines(run.output());
    expect(lines).toEqual([
      "stackwright: SIGINT received: stopping gracefully; waiting for deployment N on acme-web/uat to finish (its bound: 30m); Ctrl-C again to stop at once",
      "stackwright: SIGINT received again: stopping at once. The next run recovers the lock.",
    ]);
    expect(engineSaid(run.output(), "cancelling")).toBeLessThanOrEqual(1);
    expect(engineSaid(run.output(), "terminating")).toBeLessThanOrEqual(1);

    const made = await deployments("acme-web", "uat");
    expect(made).toHaveLength(1);
    const again = await upToEnd();
    expect(again.status, again.out).toBe(0);
    // The stalled deployment is adopted, not made again; acme-intranet's is not repeated either.
    expect((await deployments("acme-web", "uat")).map((d) => d.id)).toEqual(made.map((d) => d.id));
    expect(await deployments("acme-intranet", "test")).toHaveLength(1);
  }, 600_000);
});
