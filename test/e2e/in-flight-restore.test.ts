/**
 * A restore in flight whose provider host and `stackwright` process are killed while the engine
 * lives on (`pkill -9 node`): the engine sees the create fail and drops its pending operation, so
 * only Stackwright's own record of the create in flight (src/cli/state/in-flight.ts) tells the next
 * `up` that the restore may have run. The next `up` must record it with an unknown outcome and
 * never send it again.
 */
import * as fs from "node:fs";
import { describe, expect } from "vitest";
import { inFlightKey } from "../../src/state-backend";
import { openStateStore } from "../../src/state-backend/store";
import { fixtures, type InProcessEmulator } from "../helpers/fixtures";
import { runInProject } from "../helpers/in-process";
import type { ScratchProject } from "../helpers/scratch-project";
import {
  commandLine,
  descendants,
  hasEnded,
  startStackwright,
  waitFor,
} from "../helpers/stackwright-process";

const STACK_FILE = `stack: acme-web
environments:
  uat:
    snapshots:
      nightly:
        mode: db
        notes: before release
    restores:
      from-nightly:
        snapshot: nightly
        mode: db
        confirm: uat
        trigger: t0
`;

const test = fixtures({ project: { stacksConfig: { "web.yaml": STACK_FILE } } });

describe("a restore whose provider host and CLI are killed while the engine lives on", () => {
  let emulator: InProcessEmulator;
  let project: ScratchProject;
  let env: Record<string, string>;

  test.beforeAll(({ emulatorInProcess, project: scratch }) => {
    [emulator, project] = [emulatorInProcess, scratch];
    env = { ...project.env, ...emulator.env };
  }, 120_000);

  const restores = async () =>
    (await emulator.hooks.transfers("acme-web")).filter((t) => t.direction === "restore");

  test("is recorded with an unknown outcome by the next up and never sent again", async () => {
    // The platform starts the restore, its answer is held: the create is in flight.
    await emulator.hooks.fault({
      method: "POST",
      path: "/svc/project/acme-web/snapshots/*",
      kind: "latency",
      latency_ms: 30_000,
      phase: "after",
      count: 1,
    });
    const run = startStackwright(project.dir, ["up", "--project", project.dir], env);
    await waitFor(
      async () => (await restores()).length === 1,
      "the restore to start on the platform",
      60_000,
    );
    const below = descendants(run.pid);
    const engine = below.find((pid) => / up --yes /.test(commandLine(pid)));
    const host = below.find((pid) => commandLine(pid).includes("plugin-host/main.js --shared"));
    expect(engine, below.map(commandLine).join("\n")).toBeDefined();
    expect(host).toBeDefined();
    if (engine === undefined || host === undefined) return;
    // The CLI frozen (as if it had just died, but its end of the engine's output pipe still open),
    // the provider host killed: the engine sees the create fail and records that in the state.
    process.kill(run.pid, "SIGSTOP");
    process.kill(host, "SIGKILL");
    const restoreUrn = "SnapshotRestore::acme-web/uat/from-nightly";
    await waitFor(
      () => !fs.readFileSync(project.stateFile("dev.acme-web"), "utf8").includes(restoreUrn),
      "the engine to drop the restore's pending operation",
      60_000,
    );
    process.kill(engine, "SIGKILL");
    process.kill(run.pid, "SIGKILL");
    await run.exited;
    await waitFor(() => hasEnded(engine) && hasEnded(host), "the engine and the host to end", 20_000);
    await emulator.hooks.clearFaults();

    // What Stackwright left: the create recorded in flight.
    const store = openStateStore(env["PULUMI_BACKEND_URL"] ?? "");
    expect(await store.read(inFlightKey("stackwright", "dev.acme-web"))).toContain("from-nightly");

    // The killed run is a process of its own; the runs after it need none (the test's process).
    const again = await runInProject(project.dir, ["up", "--project", project.dir], env);
    expect(again.status, again.out).toBe(0);
    expect(again.out).toMatch(
      /SnapshotRestore acme-web\/uat\/from-nightly was in flight when an earlier run stopped/,
    );
    expect(await restores()).toHaveLength(1);
    expect(fs.readFileSync(project.stateFile("dev.acme-web"), "utf8")).toMatch(/"id":\s*"unknown"/);
    expect(await store.read(inFlightKey("stackwright", "dev.acme-web"))).toBeUndefined();

    // A third run changes nothing and sends nothing.
    const third = await runInProject(project.dir, ["up", "--project", project.dir], env);
    expect(third.status, third.out).toBe(0);
    expect(await restores()).toHaveLength(1);
  }, 240_000);
});
