/**
 * Kill fuzzing through the real engine: `stackwright up` of a random desired state (one
 * environment: a deployment, a lock, snapshots, restores) is SIGKILLed at a seeded point of its
 * flow, the whole process tree or the provider plugin alone; then `stackwright up` runs again
 * with default flags and no manual step (it removes the lock the killed run left, its owner's pid
 * being dead, and records a restore the killed run left in flight as unknown) and must succeed.
 * Properties on the emulator's records: one deployment, every declared snapshot exactly once,
 * every restore exactly once except one whose request the kill stopped before it reached the
 * platform (recorded as unknown, never run twice), the lock as desired, no token in the state or
 * the output; and the steady state: no lock file of any kind (`.attrs` included), no pending
 * operation, and a further `up` of the same file is `no change (confirmed)` (a preview with no
 * change, proven without the engine) with no warning about pending operations.
 *
 * Cases run in two lanes at once (each its own emulator and project): a case spends most of its
 * time waiting for engines to start.
 *
 * Kill points (the emulator holds a request so the kill lands where it should):
 * - before-write: the resource's create request is held before the server handles it;
 * - after-write: the server committed the create, its answer is held;
 * - during-wait: the first poll of the created object is held;
 * - state-write: no fault; killed a seeded 0-400 ms after the object finished, while the engine
 *   records it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import fc from "fast-check";
import { stringify } from "yaml";
import { z } from "zod";
import { describe, expect } from "vitest";
import { startTestEmulator, type FaultInput, type TestEmulator } from "../helpers/emulator";
import { fixtures } from "../helpers/fixtures";
import { runInProject } from "../helpers/in-process";
import { scratchProject } from "../helpers/run-kms";
import type { ScratchProject } from "../helpers/scratch-project";
import {
  descendants,
  killProcessesIn,
  killTree,
  startStackwright,
  waitFor,
} from "../helpers/stackwright-process";
import { applyChanges, changeArb, EMPTY, ENV, STACK, type Desired } from "./desired";
import { count, fuzzInLanes, runs } from "./harness";
import { platform, tokenLeaks, type Platform } from "./platform";

const FILE = "test/fuzz/engine-kill.test.ts";
const TARGETS = ["deployment", "snapshot", "restore"] as const;
type Target = (typeof TARGETS)[number];
const POINTS = ["before-write", "after-write", "during-wait", "state-write"] as const;

/** A random flow killed at `point` of its `target`'s create (everything else drawn). */
const killCaseAt = (target: Target, point: (typeof POINTS)[number]) =>
  fc
    .record({
      changes: fc.array(changeArb, { minLength: 1, maxLength: 4 }),
      target: fc.constant(target),
      point: fc.constant(point),
      providerOnly: fc.nat({ max: 3 }).map((n) => n === 0),
      delayMs: fc.integer({ min: 0, max: 400 }),
    })
    .map((c) => {
      // Every flow has its target: add what the target needs to the random changes.
      const extra =
        c.target === "deployment"
          ? [{ kind: "trigger" as const }]
          : c.target === "snapshot"
            ? [{ kind: "snapshot" as const, name: "nightly", notes: "before release" }]
            : [
                { kind: "snapshot" as const, name: "nightly", notes: "before release" },
                { kind: "restore" as const, name: "from-a", snapshot: "nightly" },
              ];
      return { ...c, desired: applyChanges(EMPTY, [...c.changes, ...extra], 0) };
    });
type KillCase = ReturnType<typeof killCaseAt> extends fc.Arbitrary<infer T> ? T : never;
/**
 * Every target killed at every point: 12 strata, one case from each per round (`npm test` runs
 * one round; `npm run fuzz` twenty).
 */
const killCases = TARGETS.flatMap((target) => POINTS.map((point) => killCaseAt(target, point)));

const UAT = `/svc/project/${STACK}/environment/${ENV}`;
const CREATE: Record<Target, { method: string; path: string }> = {
  deployment: { method: "POST", path: `${UAT}/deploys` },
  snapshot: { method: "POST", path: `/svc/project/${STACK}/snapshots` },
  restore: { method: "POST", path: `/svc/project/${STACK}/snapshots/*` },
};
const FIRST_POLL: Record<Target, string> = {
  deployment: `${UAT}/deploys/*`,
  snapshot: `/svc/project/${STACK}/snapshots/transfer/*`,
  restore: `/svc/project/${STACK}/snapshots/transfer/*`,
};

/** The stack file for `d`, as an operator writes it. */
function stackFile(d: Desired): string {
  const uat: Record<string, unknown> = {};
  if (d.deployment !== undefined) {
    uat["deployment"] = {
      ref_type: "branch",
      ref: d.deployment.ref,
      approval: "bypass_and_start",
      title: `Deploy ${d.deployment.ref}`,
      ...(d.deployment.trigger === "" ? {} : { trigger: d.deployment.trigger }),
    };
  }
  if (d.lock !== undefined) uat["lock"] = { message: d.lock.message };
  const snapshots = Object.entries(d.snapshots);
  if (snapshots.length > 0) {
    uat["snapshots"] = Object.fromEntries(snapshots.map(([n, s]) => [n, { mode: "db", notes: s.notes }]));
  }
  const restores = Object.entries(d.restores);
  if (restores.length > 0) {
    uat["restores"] = Object.fromEntries(
      restores.map(([n, r]) => [n, { snapshot: r.snapshot, mode: "db", confirm: ENV, trigger: r.trigger }]),
    );
  }
  return stringify({ stack: STACK, environments: { [ENV]: uat } });
}

/** What one lane of cases owns: its emulator, the platform as the properties see it, a project. */
interface Lane {
  readonly emulator: TestEmulator;
  readonly live: Platform;
  readonly project: ScratchProject;
  readonly env: Record<string, string>;
}

const LANES = 2;

/** The file's lanes, stopped at the end of the file. */
const test = fixtures().extend(
  "lanes",
  { scope: "file" },
  async ({ fixtureOptions: _none }, { onCleanup }): Promise<Lane[]> => {
    const lanes: Lane[] = [];
    onCleanup(async () => {
      for (const lane of lanes) {
        await lane.live.close();
        await lane.emulator.close();
        lane.project.remove();
      }
    });
    for (let i = 0; i < LANES; i++) {
      const emulator = await startTestEmulator({ speed: "instant" });
      const project = scratchProject();
      for (const f of fs.readdirSync(path.join(project.dir, "stacks-config"))) {
        if (f.endsWith(".yaml")) fs.rmSync(path.join(project.dir, "stacks-config", f));
      }
      lanes.push({
        emulator,
        live: platform(emulator.url, emulator.hooks, STACK, ENV),
        project,
        env: {
          ...project.env,
          STACKWRIGHT_API_URL: emulator.url,
          STACKWRIGHT_EMAIL: "ops@example.com",
          STACKWRIGHT_API_TOKEN: "demo-token",
        },
      });
    }
    return lanes;
  },
);

/** True once the target's create request reached the emulator's log (answered or failed). */
async function logged({ emulator }: Lane, pattern: RegExp): Promise<boolean> {
  return (await emulator.hooks.requests()).some((r) => pattern.test(`${r.method} ${r.path}`));
}

const CREATE_LOGGED: Record<Target, RegExp> = {
  deployment: /^POST \/svc\/project\/acme-web\/environment\/uat\/deploys$/,
  snapshot: /^POST \/svc\/project\/acme-web\/snapshots$/,
  restore: /^POST \/svc\/project\/acme-web\/snapshots\/\d+$/,
};
/** The request the program sends just before the target's create. */
const BEFORE_CREATE: Record<Target, RegExp> = {
  deployment: /^GET \/svc\/project\/acme-web\/environment\/uat\/deploys(\?.*)?$/,
  snapshot: /^GET \/svc\/project\/acme-web\/snapshots(\?.*)?$/,
  restore: /^GET \/svc\/project\/acme-web\/snapshots\/\d+$/,
};

/** True once the platform holds the target's object (committed, whatever the client saw). */
async function exists({ emulator, live }: Lane, target: Target): Promise<boolean> {
  if (target === "deployment") return (await live.deploymentsByMarker()).size > 0;
  const transfers = await emulator.hooks.transfers(STACK);
  return transfers.some((t) => t.direction === (target === "restore" ? "restore" : "create"));
}

/** True once the target's object finished on the platform. */
async function finished({ emulator }: Lane, target: Target): Promise<boolean> {
  if (target === "deployment") {
    const res = await fetch(`${emulator.url}${UAT}/deploys`, {
      headers: { authorization: `Basic ${Buffer.from("ops@example.com:demo-token").toString("base64")}` },
    });
    const doc = (await res.json()) as { data: { attributes: { state: string; summary: string | null } }[] };
    return doc.data.some(
      (d) => (d.attributes.summary ?? "").includes("[stackwright") && d.attributes.state === "Completed",
    );
  }
  const transfers = await emulator.hooks.transfers(STACK);
  return transfers.some(
    (t) => t.direction === (target === "restore" ? "restore" : "create") && t.status === "Finished",
  );
}

/** How long the emulator holds the request a kill point waits on (far longer than a kill takes). */
const HOLD_MS = 10_000;

async function scriptPoint({ emulator }: Lane, c: KillCase): Promise<void> {
  const hold = (f: Omit<FaultInput, "count">) => emulator.hooks.fault({ ...f, count: 1 });
  const create = CREATE[c.target];
  if (c.point === "before-write") await hold({ ...create, kind: "latency", latency_ms: HOLD_MS });
  if (c.point === "after-write")
    await hold({ ...create, kind: "latency", latency_ms: HOLD_MS, phase: "after" });
  if (c.point === "during-wait") {
    await hold({ method: "GET", path: FIRST_POLL[c.target], kind: "latency", latency_ms: HOLD_MS });
  }
}

async function reachedPoint(lane: Lane, c: KillCase): Promise<boolean> {
  switch (c.point) {
    case "before-write":
      return logged(lane, BEFORE_CREATE[c.target]);
    case "after-write":
      return exists(lane, c.target);
    case "during-wait":
      return logged(lane, CREATE_LOGGED[c.target]);
    case "state-write":
      return finished(lane, c.target);
  }
}

/** The provider plugin below the CLI (the process that runs the dynamic providers). */
function providerPids(root: number): number[] {
  return descendants(root).filter((pid) => {
    try {
      // Ours (providers/plugin-host) in a Stackwright project; the SDK's anywhere else.
      const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
      return cmdline.includes("plugin-host/main.js") || cmdline.includes("dynamic-provider");
    } catch {
      return false;
    }
  });
}

/** The restores the state records, by whether their outcome is known (a transfer id) or not. */
function recordedRestores(stateText: string): { known: string[]; unknown: number } {
  const resources = z
    .object({
      checkpoint: z.object({
        latest: z.object({ resources: z.array(z.object({ type: z.string(), id: z.string().optional() })) }),
      }),
    })
    .parse(JSON.parse(stateText)).checkpoint.latest.resources;
  const ids = resources.filter((r) => r.type.endsWith(":SnapshotRestore")).map((r) => r.id ?? "");
  return {
    known: ids.filter((id) => id !== "unknown"),
    unknown: ids.filter((id) => id === "unknown").length,
  };
}

let caseNo = 0;
async function runKillCase(c: KillCase, lane: Lane, counts: Record<string, number>): Promise<void> {
  const { emulator, live, project, env } = lane;
  await emulator.hooks.reset();
  // A target of its own per case (the API settings come from the lane's variables), so that its
  // per-file stack (target.API stack) is new and the fingerprint shortcut judges it as CI's runs would.
  const targetName = `kill-${caseNo++}`;
  const stackName = `${targetName}.${STACK}`;
  // No demo target: sealed with the run's KMS key, as a production target would be.
  project.writeTargetSettings(targetName, "config: {}\n");
  fs.writeFileSync(path.join(project.dir, "stacks-config", `${STACK}.yaml`), stackFile(c.desired));
  await scriptPoint(lane, c);
  const args = ["up", "--project", project.dir, "--target", targetName, STACK];
  const first = startStackwright(project.dir, args, env);
  let killed = false;
  let ended = false;
  void first.exited.then(() => (ended = true));
  await waitFor(
    async () => ended || (await reachedPoint(lane, c)),
    `the kill point ${c.point} of ${c.target}`,
    60_000,
  ).catch((error: unknown) => {
    killTree(first.pid);
    throw error;
  });
  if (ended) count(counts, "runs that ended before their kill point");
  await new Promise((r) => setTimeout(r, c.point === "state-write" ? c.delayMs : 100));
  if (c.providerOnly) {
    const pids = providerPids(first.pid);
    for (const pid of pids) process.kill(pid, "SIGKILL");
    killed = pids.length > 0;
    if (!killed) killTree(first.pid);
  } else {
    killTree(first.pid);
  }
  await first.exited;
  // A killed (or ended) run's engine and plugins are reparented once its CLI is gone: wait for them.
  await killProcessesIn(project.dir);
  count(counts, c.providerOnly && killed ? "provider kills" : "tree kills");
  await emulator.hooks.clearFaults();

  // The rerun, with the flags a CI rerun has (no --lock-wait): the killed run's lock is removed
  // because its owner is gone, a restore it left in flight is recorded, not run again.
  // (Found here: a killed engine left as a zombie answered kill(pid, 0), so its lock looked live;
  // pidIsAlive now counts a zombie as gone.) The killed run is a process of its own; the runs
  // after it need none, and run in the test's process (test/helpers/in-process.ts).
  const second = await runInProject(project.dir, args, env);
  expect(second.status, `the rerun failed:\n${second.out}`).toBe(0);
  if (second.out.includes("removed a stale lock")) count(counts, "stale locks recovered");
  if (second.out.includes("a run killed while writing it left it unreadable"))
    count(counts, "torn attributes files removed");

  // The platform's records.
  const deployments = [...(await live.deploymentsByMarker()).values()];
  expect(
    deployments.map((ids) => ids.length),
    "one deployment per marker",
  ).toEqual(c.desired.deployment === undefined ? [] : [1]);
  const snapshots = await live.snapshotsByMarker();
  expect(
    [...snapshots.values()].map((ids) => ids.length),
    "every declared snapshot once",
  ).toEqual(Object.keys(c.desired.snapshots).map(() => 1));
  // Restores: each recorded one ran once (its transfer is on the platform, no two share one); a
  // restore the kill caught in flight is recorded as unknown and not run again, so it ran once if
  // its request reached the platform (after-write and later) and never if the kill came first.
  const state = fs.readFileSync(project.stateFile(stackName), "utf8");
  const recorded = recordedRestores(state);
  const onPlatform = (await emulator.hooks.transfers(STACK)).filter(
    (t) => t.direction === "restore" && t.env === ENV,
  );
  expect(recorded.known.length + recorded.unknown, "every declared restore recorded").toBe(
    Object.keys(c.desired.restores).length,
  );
  // A scripted kill point holds the target's request, so only a target restore can be caught;
  // a state-write kill lands at an unscripted moment after the target finished, when the engine
  // may have gone on to restores (of the snapshot it just took), any of which may be caught.
  const unscripted = c.point === "state-write";
  const restoresDeclared = Object.keys(c.desired.restores).length;
  expect(recorded.unknown, "only a restore the kill caught is unknown").toBeLessThanOrEqual(
    unscripted ? restoresDeclared : c.target === "restore" ? 1 : 0,
  );
  expect(new Set(recorded.known).size, "no two restores share a transfer").toBe(recorded.known.length);
  for (const id of recorded.known) {
    expect(
      onPlatform.map((t) => String(t.id)),
      `restore transfer ${id} on the platform`,
    ).toContain(id);
  }
  if (unscripted) {
    // A caught restore's request may or may not have reached the platform; it ran at most once.
    expect(
      onPlatform.length,
      "every restore ran exactly once (or, caught by the kill, at most once)",
    ).toBeGreaterThanOrEqual(recorded.known.length);
    expect(onPlatform.length).toBeLessThanOrEqual(recorded.known.length + recorded.unknown);
  } else {
    const reached = c.point === "before-write" ? 0 : recorded.unknown;
    expect(onPlatform.length, "every restore ran exactly once (or, caught by the kill, at most once)").toBe(
      recorded.known.length + reached,
    );
  }
  if (recorded.unknown > 0) {
    count(counts, "restores caught in flight, recorded as unknown");
    // Said by the rerun (a killed run's pending create), or by the first run itself when only its
    // provider process died.
    expect(first.output() + second.out).toMatch(/SnapshotRestore \S+ was in flight when/);
  }
  expect(await live.lock()).toEqual({
    locked: c.desired.lock !== undefined,
    lock_message: c.desired.lock?.message ?? "",
  });

  // The steady state: no lock file of any kind, no pending operation, and the next up of the
  // unchanged file is confirmed without the engine, with no warning about pending operations.
  const locks = path.join(project.stateDir, ".pulumi", "locks", "organization", "stackwright", stackName);
  expect(fs.existsSync(locks) ? fs.readdirSync(locks) : [], "lock files after the rerun").toEqual([]);
  expect(pendingOperations(state), "pending operations after the rerun").toEqual([]);
  const third = await runInProject(project.dir, args, env);
  expect(third.status, third.out).toBe(0);
  expect(third.out, "the up after the rerun").toMatch(
    new RegExp(`^${stackName.replace(".", "\\.")}\\s+ok\\s+no change \\(confirmed\\)`, "m"),
  );
  expect(third.out).not.toMatch(/pending operations? from previous deployment/);
  if (second.out.includes("cleared the pending create")) count(counts, "pending creates cleared");

  // A confirmed up is a preview with no change: the rerun's own engine (or its quiet preview,
  // after a kill) proved it, and the same inputs, state and live reads since were checked.
  expect(tokenLeaks([state, first.output(), second.out, third.out])).toEqual([]);
}

/** The URNs of the pending operations a checkpoint holds. */
function pendingOperations(stateText: string): string[] {
  return (
    z
      .object({
        checkpoint: z.object({
          latest: z.object({
            pending_operations: z.array(z.object({ resource: z.object({ urn: z.string() }) })).nullish(),
          }),
        }),
      })
      .parse(JSON.parse(stateText))
      .checkpoint.latest.pending_operations?.map((op) => op.resource.urn) ?? []
  );
}

describe("stackwright up killed at a random point of a random flow", () => {
  test(
    "succeeds on the rerun with nothing lost, nothing doubled and no manual step",
    async ({ lanes }) => {
      await fuzzInLanes("engine kill", killCases, lanes, runKillCase, {
        bounded: 1,
        file: FILE,
      });
    },
    runs(killCases.length) * 90_000,
  );
});
