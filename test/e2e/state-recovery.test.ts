import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect } from "vitest";
import { openOwnStack, targetApiConfig } from "../../src/cli/fleet/open-target";
import { readLocks } from "../../src/cli/state/locks";
import { openStateStore, type StateStore } from "../../src/state-backend/store";
import { basicAuth, TEST_USERS, type TestEmulator } from "../helpers/emulator";
import { fixtures } from "../helpers/fixtures";
import { runInProject } from "../helpers/in-process";
import type { TestS3Server } from "../helpers/s3-server";
import { repoRoot, type ScratchProject } from "../helpers/scratch-project";
import {
  killTree,
  startStackwright,
  waitFor,
  type Finished,
  type StackwrightProcess,
} from "../helpers/stackwright-process";

// No stale locks: `stackwright up` killed with SIGKILL (a runner that vanished) or stopped with
// SIGINT (a cancelled CI job) in the middle of a deployment, then run again with no manual step.
const DEPLOYS = "/svc/project/acme-web/environment/uat/deploys";
const USER = TEST_USERS.stackManager;

// One emulator and one project for both backends: each backend's cases start from a reset
// platform, and name stacks of their own (`killed-create-s3`), so neither sees the other's.
const test = fixtures({
  project: { program: path.join(repoRoot, "test", "fixtures", "providers-program", "index.js") },
});

interface World {
  readonly emulator: TestEmulator;
  readonly project: ScratchProject;
  readonly store: StateStore;
  readonly env: Record<string, string>;
  /** `stackwright up` of `stack` as a process of its own (to be killed or interrupted). */
  up(stack: string): StackwrightProcess;
  /** The same `up` run to its end in the test's process. */
  rerun(stack: string): Promise<Finished>;
  deployments(): Promise<{ id: string; summary: string }[]>;
}

function makeWorld(emulator: TestEmulator, project: ScratchProject, s3: TestS3Server | undefined): World {
  const env =
    s3 === undefined
      ? project.env
      : { ...project.env, ...s3.env, PULUMI_BACKEND_URL: s3.backendUrl("recovery") };
  return {
    emulator,
    project,
    env,
    store: openStateStore(env["PULUMI_BACKEND_URL"] ?? ""),
    up: (stack) => startStackwright(project.dir, ["up", "--project", project.dir, "--stack", stack], env),
    rerun: (stack) => runInProject(project.dir, ["up", "--project", project.dir, "--stack", stack], env),
    async deployments() {
      const res = await fetch(`${emulator.url}${DEPLOYS}`, {
        headers: { authorization: basicAuth(USER.email, USER.token) },
      });
      const doc = (await res.json()) as {
        data: { id: string | number; attributes: { summary: string | null } }[];
      };
      return doc.data.map((d) => ({ id: String(d.id), summary: d.attributes.summary ?? "" }));
    },
  };
}

/** A stack of the world wired to its emulator, the token as a secret (one `pulumi config set-all`). */
async function newStack(world: World, name: string): Promise<void> {
  const stack = await world.project.stack(name, world.env);
  await stack.setAllConfig({
    "stackwright:apiUrl": { value: world.emulator.url },
    "stackwright:email": { value: USER.email },
    "stackwright:apiToken": { value: USER.token, secret: true },
  });
}

async function clearFaults(world: World): Promise<void> {
  await fetch(`${world.emulator.url}/_emulator/faults`, { method: "DELETE" });
}

/** Deployments that Stackwright made (their summary carries its marker). */
const marked = (list: { summary: string }[]) => list.filter((d) => d.summary.includes("[stackwright "));

/**
 * Runs up again and expects it to finish the job: exit 0, one marked deployment, no lock. The
 * rerun is an ordinary `up` (the killed run's pid is what makes its lock stale), so it runs in
 * the test's process.
 */
async function rerunRecovers(world: World, stack: string): Promise<string> {
  const { status, out } = await world.rerun(stack);
  expect(status, `exit ${String(status)}:\n${out}`).toBe(0);
  expect(marked(await world.deployments())).toHaveLength(1);
  expect(await readLocks(world.store, "stackwright", stack)).toEqual([]);
  return out;
}

describe.for(["file", "s3"] as const)("stackwright up stopped mid-deployment (%s backend)", (backend) => {
  let world: World;
  /** This backend's stack `name`. */
  const stackName = (name: string) => (backend === "file" ? name : `${name}-${backend}`);
  if (backend === "s3") {
    // This process reads the bucket too (the locks), with the credentials the s3 fixture set.
    test.beforeAll(({ emulatorInProcess, project, s3 }) => {
      world = makeWorld(emulatorInProcess, project, s3);
    }, 120_000);
  } else {
    test.beforeAll(({ emulatorInProcess, project }) => {
      world = makeWorld(emulatorInProcess, project, undefined);
    });
  }

  test("recovers the lock of a run killed while the create request was in flight", async () => {
    const stack = stackName("killed-create");
    await world.emulator.hooks.reset();
    await newStack(world, stack);
    const before = marked(await world.deployments()).length;
    // The platform takes the deployment, then its answer is slow: the kill lands before it.
    await world.emulator.hooks.fault({
      method: "POST",
      path: DEPLOYS,
      kind: "latency",
      latency_ms: 30_000,
      count: 1,
      phase: "after",
    });
    const run = world.up(stack);
    await waitFor(
      async () => marked(await world.deployments()).length > before,
      "the deployment on the platform",
    );
    killTree(run.pid);
    await run.exited;
    expect(await readLocks(world.store, "stackwright", stack)).toHaveLength(1);
    expect(run.output()).not.toContain("created (Queued)");
    await clearFaults(world);

    const out = await rerunRecovers(world, stack);
    expect(out).toMatch(
      new RegExp(
        `removed a stale lock: stack ${stack} is being updated by .+ pid \\d+ since .+, but pid \\d+ no longer runs`,
      ),
    );
  }, 180_000);

  // The create case above covers the S3 backend's lock; this one runs on the file backend only.
  if (backend === "file") {
    test("recovers a run killed while it waited for the deployment: its lock, and the attributes file it was writing", async () => {
      await world.emulator.hooks.reset();
      await newStack(world, "killed-wait");
      await world.emulator.hooks.fault({
        method: "GET",
        path: `${DEPLOYS}/*`,
        kind: "latency",
        latency_ms: 30_000,
        count: 1,
      });
      const run = world.up("killed-wait");
      await run.waitForOutput(
        (o) => o.includes("created (Queued)"),
        "the deployment created, its wait begun",
      );
      killTree(run.pid);
      await run.exited;
      await clearFaults(world);

      expect(await readLocks(world.store, "stackwright", "killed-wait")).toHaveLength(1);
      // Pulumi's file backend writes a blob's attributes file in place, after creating it empty: a
      // kill between the two leaves it so, and every read of the checkpoint failed with `EOF`.
      const attributes = `${world.project.stateFile("killed-wait")}.attrs`;
      expect(fs.existsSync(attributes)).toBe(true);
      fs.writeFileSync(attributes, "");
      const out = await rerunRecovers(world, "killed-wait");
      expect(out).toContain("removed a stale lock");
      expect(out).toContain(
        "removed .pulumi/stacks/stackwright/killed-wait.json.attrs: a run killed while writing it left it unreadable",
      );
    }, 180_000);

    test("reads a --stack stack's own settings after a kill tore its state's attributes file", async () => {
      await newStack(world, "torn-settings");
      fs.writeFileSync(`${world.project.stateFile("torn-settings")}.attrs`, "");
      // No API variable: the settings come from the stack's own config, through `pulumi config`.
      const env = Object.fromEntries(
        Object.entries(world.env).filter(([name]) => !name.startsWith("STACKWRIGHT_API_")),
      );
      const target = await openOwnStack(world.project.dir, "torn-settings", {}, env);
      const said: string[] = [];
      const settings = await targetApiConfig(target, (line) => said.push(line));
      expect(settings("stackwright:apiUrl")).toBe(world.emulator.url);
      expect(said).toEqual([
        "stackwright: removed .pulumi/stacks/stackwright/torn-settings.json.attrs: a run killed while writing it left it unreadable, and no engine could read the stack's state",
      ]);
    }, 60_000);
  }

  test("stops gracefully on SIGINT, releases the lock, and a rerun finishes", async () => {
    const stack = stackName("interrupted");
    await world.emulator.hooks.reset();
    await newStack(world, stack);
    // The first poll answers after 3 s: the signal lands while the deployment is in flight.
    await world.emulator.hooks.fault({
      method: "GET",
      path: `${DEPLOYS}/*`,
      kind: "latency",
      latency_ms: 3_000,
      count: 1,
    });
    const run = world.up(stack);
    await run.waitForOutput((o) => o.includes("created (Queued)"), "the deployment created, its wait begun");
    process.kill(run.pid, "SIGINT");
    expect(await run.exited, run.output()).toBe(130);
    expect(run.output()).toContain("SIGINT received: stopping gracefully");
    expect(run.output()).toContain("Completed");
    expect(await readLocks(world.store, "stackwright", stack)).toEqual([]);
    await clearFaults(world);

    const out = await rerunRecovers(world, stack);
    expect(out).not.toContain("removed a stale lock");
  }, 180_000);
});
