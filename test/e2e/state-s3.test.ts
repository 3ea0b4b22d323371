import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect } from "vitest";
import { readLocks } from "../../src/cli/state/locks";
import { checkpointKey, createStackIfAbsent, openStateStore, type StateStore } from "../../src/state-backend";
import { fixtures } from "../helpers/fixtures";
import { repoRoot, type ScratchProject } from "../helpers/scratch-project";
import { startStackwright, waitFor } from "../helpers/stackwright-process";

// Shared state on a real S3 server (moto, installed by `npm run s3-server`): the stackwright
// command with PULUMI_BACKEND_URL=s3://…, several processes at once, and the stack locks.
const test = fixtures({
  project: { program: path.join(repoRoot, "test", "fixtures", "gate-program", "index.js") },
});

describe("stackwright on an S3 state backend", () => {
  let project: ScratchProject;
  let store: StateStore;
  let env: Record<string, string>;
  const gate = () => path.join(project.dir, "gate-open");

  const configure = async (stack: string, values: Record<string, string>) => {
    const s = await project.stack(stack, env);
    await s.setAllConfig(Object.fromEntries(Object.entries(values).map(([key, value]) => [key, { value }])));
    return s;
  };
  const up = (stack: string, ...flags: string[]) =>
    startStackwright(project.dir, ["up", "--project", project.dir, "--stack", stack, ...flags], env);
  const locksOf = (stack: string) => readLocks(store, "stackwright", stack);

  test.beforeAll(({ s3, project: scratch }) => {
    project = scratch;
    env = { ...project.env, ...s3.env, PULUMI_BACKEND_URL: s3.backendUrl("fleet") };
    // This process reads the bucket too (the locks), with the credentials the s3 fixture set.
    store = openStateStore(env["PULUMI_BACKEND_URL"] ?? "");
  }, 120_000);

  test("keeps the checkpoint in the bucket, leaves no lock and shows no SDK checksum warning", async () => {
    await configure("solo", { message: "hello" });
    const run = up("solo");
    expect(await run.exited, run.output()).toBe(0);
    const checkpoint = await store.read(".pulumi/stacks/stackwright/solo.json");
    expect(checkpoint).toContain("pulumi-nodejs:dynamic/stackwright:Gate");
    expect(await locksOf("solo")).toEqual([]);
    expect(run.output()).not.toContain("checksum");
  }, 120_000);

  test("makes a new stack with one conditional write that a second runner loses, and the engine updates it", async () => {
    const fresh = { store, project: "stackwright", stack: "fresh" };
    expect(await createStackIfAbsent(fresh)).toBe(true);
    const made = await store.read(checkpointKey("stackwright", "fresh"));
    // A runner that missed the first one's write still cannot replace it.
    expect(await store.create(checkpointKey("stackwright", "fresh"), "another runner's")).toBe(false);
    expect(await createStackIfAbsent(fresh)).toBe(false);
    expect(await store.read(checkpointKey("stackwright", "fresh"))).toBe(made);

    await configure("fresh", { message: "fresh" });
    const run = up("fresh");
    expect(await run.exited, run.output()).toBe(0);
    expect(await store.read(checkpointKey("stackwright", "fresh"))).toContain("gate-fresh");
  }, 120_000);

  test("updates two different stacks at once, each under its own lock", async () => {
    fs.rmSync(gate(), { force: true });
    await configure("east", { message: "east", gate: gate() });
    await configure("west", { message: "west", gate: gate() });
    const east = up("east");
    const west = up("west");
    // Both hold their lock at the same moment: neither waited for the other.
    await waitFor(
      async () => (await locksOf("east")).length === 1 && (await locksOf("west")).length === 1,
      "both locks",
    );
    fs.writeFileSync(gate(), "");
    expect(await east.exited, east.output()).toBe(0);
    expect(await west.exited, west.output()).toBe(0);
    for (const name of ["east", "west"]) {
      expect(await store.read(`.pulumi/stacks/stackwright/${name}.json`)).toContain(`gate-${name}`);
    }
  }, 180_000);

  test("refuses a second update of the same stack at once, naming who holds it", async () => {
    fs.rmSync(gate(), { force: true });
    const stack = await configure("busy", { message: "first", gate: gate() });
    const first = up("busy");
    await waitFor(async () => (await locksOf("busy")).length === 1, "the first run's lock");
    const [held] = await locksOf("busy");

    const second = up("busy");
    expect(await second.exited).toBe(3); // exit 3: locked (README, Exit codes)
    const pid = held?.readable === true ? held.pid : -1;
    expect(second.output()).toMatch(
      new RegExp(`stack busy is being updated by ${os.hostname()} pid ${pid} since \\d{4}-\\d\\d-\\d\\dT`),
    );
    expect(second.output()).toContain("--lock-wait is not set");
    expect(second.output()).not.toContain("pulumi cancel");
    expect(second.output()).not.toContain("currently locked");
    // The live run's lock is untouched.
    expect(await locksOf("busy")).toEqual([held]);

    // A run that may wait gets the stack once the first one ends, and both updates are kept.
    await stack.setAllConfig({ message: { value: "second" }, gate: { value: "" } });
    const patient = up("busy", "--lock-wait", "2m");
    await patient.waitForOutput((o) => o.includes("waiting up to"), "the waiting note");
    fs.writeFileSync(gate(), "");
    expect(await first.exited, first.output()).toBe(0);
    expect(await patient.exited, patient.output()).toBe(0);
    const history = await stack.history();
    expect(history.slice(0, 2).map((h) => [h.kind, h.result])).toEqual([
      ["update", "succeeded"],
      ["update", "succeeded"],
    ]);
    expect(await store.read(".pulumi/stacks/stackwright/busy.json")).toContain("gate-second");
    expect(await locksOf("busy")).toEqual([]);
  }, 240_000);
});
