/**
 * After `kill -9` of an `up` while its deployment was queued, the next `up` recovers and leaves
 * the steady state: no lock file of any kind (the removed lock's `.attrs` companion included), no
 * pending operation, and the `up` after it is confirmed without the engine, with no warning about
 * pending operations (issue 27: the rerun left the pending create and the `.attrs` file, and no
 * later `up` was ever confirmed). `stackwright refresh` clears a pending create it has resolved.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect } from "vitest";
import { lockDirectory } from "../../src/cli/state/locks";
import { fixtures, type InProcessEmulator } from "../helpers/fixtures";
import { runInProject } from "../helpers/in-process";
import type { ScratchProject } from "../helpers/scratch-project";
import { killProcessesIn, killTree, startStackwright, waitFor } from "../helpers/stackwright-process";

const STACK = "dev.acme-web";
const FILE = `stack: acme-web
environments:
  uat:
    deployment:
      ref_type: branch
      ref: main
      approval: bypass_and_start
`;
const UAT = "/svc/project/acme-web/environment/uat";

interface Checkpoint {
  checkpoint: {
    latest: {
      resources: { urn: string; type: string }[];
      pending_operations?: { type: string; resource: { urn: string; type: string } }[] | null;
    };
  };
}

const test = fixtures({ project: { stacksConfig: { "acme-web.yaml": FILE } } });

describe("an up killed while its deployment is queued", () => {
  let emulator: InProcessEmulator;
  let project: ScratchProject;
  let env: Record<string, string>;
  // The killed run is a process of its own; the runs after it need none (the test's process).
  const run = (args: string[]) => runInProject(project.dir, args, env);
  const checkpoint = (): Checkpoint =>
    JSON.parse(fs.readFileSync(project.stateFile(STACK), "utf8")) as Checkpoint;
  const pending = () =>
    (checkpoint().checkpoint.latest.pending_operations ?? []).map((op) => op.resource.urn);
  const lockFiles = () => {
    const dir = path.join(project.stateDir, ...lockDirectory("stackwright", STACK).split("/"));
    return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
  };
  const row = (out: string) => out.match(/^dev\.acme-web\s+(\S+)\s+(.+?)\s{2,}[\d.]+ s(?:\s{2,}(.*))?$/m);

  test.beforeAll(({ emulatorInProcess, project: scratch }) => {
    [emulator, project] = [emulatorInProcess, scratch];
    env = { ...project.env, ...emulator.env };
  }, 120_000);

  test("is recovered by the next up into the steady state, and the up after it is confirmed", async () => {
    // The deployment is queued on the platform; the first poll of it is held, then the run killed.
    await emulator.hooks.fault({
      method: "GET",
      path: `${UAT}/deploys/*`,
      kind: "latency",
      latency_ms: 20_000,
      count: 1,
    });
    const first = startStackwright(project.dir, ["up", "--project", project.dir], env);
    await waitFor(
      async () =>
        (await emulator.hooks.requests()).some((r) => r.method === "POST" && r.path === `${UAT}/deploys`),
      "the deployment to be created",
      120_000,
    );
    killTree(first.pid);
    await first.exited;
    await killProcessesIn(project.dir);
    await emulator.hooks.clearFaults();
    expect(pending(), "the killed run's pending create").toHaveLength(1);
    expect(lockFiles().sort()).toEqual(expect.arrayContaining([expect.stringMatching(/\.json\.attrs$/)]));

    const rerun = await run(["up", "--project", project.dir]);
    expect(rerun.status, rerun.out).toBe(0);
    expect(rerun.out).toContain("removed a stale lock");
    expect(lockFiles(), "lock files after the rerun").toEqual([]);
    expect(pending(), "pending operations after the rerun").toEqual([]);
    expect(rerun.out).toMatch(
      /cleared the pending create of Deployment acme-web\/uat that an earlier run left/,
    );
    expect(row(rerun.out)?.[3], "why the engine ran").toMatch(/the last up did not finish/);

    const after = await run(["up", "--project", project.dir]);
    expect(after.status, after.out).toBe(0);
    expect(row(after.out)?.slice(1, 3), after.out).toEqual(["ok", "no change (confirmed)"]);
    expect(after.out).not.toMatch(/pending operations? from previous deployment/);
  }, 480_000);

  test("says in the closing table why the engine ran when the up is not confirmed", async () => {
    fs.appendFileSync(path.join(project.dir, "stacks-config", "acme-web.yaml"), "      title: Deploy main\n");
    const changed = await run(["up", "--project", project.dir]);
    expect(changed.status, changed.out).toBe(0);
    expect(row(changed.out)?.[3]).toBe("inputs changed: file");
  }, 480_000);

  test("refresh clears a pending create whose resource the state records", async () => {
    // A pending create of the recorded deployment, as a run killed while replacing it leaves one.
    const text = checkpoint();
    const deployment = text.checkpoint.latest.resources.find((r) => r.type.endsWith(":Deployment"));
    expect(deployment).toBeDefined();
    if (deployment === undefined) return;
    text.checkpoint.latest.pending_operations = [{ type: "creating", resource: deployment }];
    fs.writeFileSync(project.stateFile(STACK), JSON.stringify(text));

    const refresh = await run(["refresh", "--project", project.dir]);
    expect(refresh.status, refresh.out).toBe(0);
    expect(refresh.out).toMatch(/cleared the pending create of Deployment acme-web\/uat/);
    expect(pending()).toEqual([]);
  }, 480_000);
});
