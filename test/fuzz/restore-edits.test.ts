/**
 * Restore semantics under random edits: random sequences of edits of one file's snapshots and
 * restores (add, remove, a new mode or resampled flag that takes a snapshot anew, notes only, a
 * restore's own settings) run through the providers' lifecycle in process against the real
 * emulator. After every step, the emulator's restore requests are exactly the restores whose
 * entry appeared or whose own settings changed in that step, and its snapshot requests exactly
 * the snapshots that appeared or changed mode or flag: a snapshot taken anew, or a note edited,
 * never runs a restore again.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { TEST_USERS, startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { v1 } from "../../providers/behaviour";
import { count, fuzz, runs, type Counts } from "./harness";
import { up, type Declared, type State } from "./lifecycle";

vi.mock("../../src/client/defaults", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/client/defaults")>();
  const d = real.clientDefaults;
  return {
    ...real,
    clientDefaults: Object.freeze({
      ...d,
      retry: Object.freeze({ ...d.retry, baseDelayMs: 5, maxDelayMs: 40 }),
      poll: Object.freeze({ ...d.poll, firstPollMs: 5, intervalMs: 10, maxIntervalMs: 50 }),
    }),
  };
});

const FILE = "test/fuzz/restore-edits.test.ts";
const STACK = "acme-web";
const ENV = "uat";
const WHERE = `${STACK}/${ENV}`;
const SNAPSHOTS = ["nightly", "weekly"] as const;
const RESTORES = ["from-a", "from-b"] as const;

interface SnapshotEntry {
  mode: "db" | "all";
  include_resampled: boolean;
  notes: string;
}
interface RestoreEntry {
  snapshot: string;
  skip_build: boolean;
  trigger: string;
}
interface Desired {
  snapshots: Record<string, SnapshotEntry>;
  restores: Record<string, RestoreEntry>;
}

type Edit =
  | ({ kind: "snapshot"; name: string } & SnapshotEntry)
  | { kind: "notes"; name: string; notes: string }
  | { kind: "remove-snapshot"; name: string }
  | ({ kind: "restore"; name: string } & RestoreEntry)
  | { kind: "trigger"; name: string; trigger: string }
  | { kind: "remove-restore"; name: string };

const NOTES = ["before release", "before the release", ""] as const;
const editArb: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({
    kind: fc.constant("snapshot" as const),
    name: fc.constantFrom(...SNAPSHOTS),
    mode: fc.constantFrom("db" as const, "all" as const),
    include_resampled: fc.boolean(),
    notes: fc.constantFrom(...NOTES),
  }),
  fc.record({
    kind: fc.constant("notes" as const),
    name: fc.constantFrom(...SNAPSHOTS),
    notes: fc.constantFrom(...NOTES),
  }),
  fc.record({ kind: fc.constant("remove-snapshot" as const), name: fc.constantFrom(...SNAPSHOTS) }),
  fc.record({
    kind: fc.constant("restore" as const),
    name: fc.constantFrom(...RESTORES),
    snapshot: fc.constantFrom(...SNAPSHOTS),
    skip_build: fc.boolean(),
    trigger: fc.constantFrom("t0", "t1"),
  }),
  fc.record({
    kind: fc.constant("trigger" as const),
    name: fc.constantFrom(...RESTORES),
    trigger: fc.constantFrom("t0", "t1", "t2"),
  }),
  fc.record({ kind: fc.constant("remove-restore" as const), name: fc.constantFrom(...RESTORES) }),
);

/** Every case starts from both snapshots, each named by a restore, so most edits meet a restore. */
const START: Edit[] = [
  { kind: "snapshot", name: "nightly", mode: "db", include_resampled: false, notes: "before release" },
  { kind: "snapshot", name: "weekly", mode: "all", include_resampled: false, notes: "" },
  { kind: "restore", name: "from-a", snapshot: "nightly", skip_build: false, trigger: "t0" },
  { kind: "restore", name: "from-b", snapshot: "weekly", skip_build: false, trigger: "t0" },
];
const caseArb = fc
  .array(fc.array(editArb, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 6 })
  .map((steps) => [START, ...steps]);
type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

/** The file after `edits`; a restore whose snapshot is not declared is left out (validate refuses it). */
function applyEdits(prev: Desired, edits: readonly Edit[]): Desired {
  const next: Desired = { snapshots: { ...prev.snapshots }, restores: { ...prev.restores } };
  for (const e of edits) {
    switch (e.kind) {
      case "snapshot":
        next.snapshots[e.name] = { mode: e.mode, include_resampled: e.include_resampled, notes: e.notes };
        break;
      case "notes": {
        const s = next.snapshots[e.name];
        if (s !== undefined) next.snapshots[e.name] = { ...s, notes: e.notes };
        break;
      }
      case "remove-snapshot":
        delete next.snapshots[e.name];
        break;
      case "restore":
        next.restores[e.name] = { snapshot: e.snapshot, skip_build: e.skip_build, trigger: e.trigger };
        break;
      case "trigger": {
        const r = next.restores[e.name];
        if (r !== undefined) next.restores[e.name] = { ...r, trigger: e.trigger };
        break;
      }
      case "remove-restore":
        delete next.restores[e.name];
        break;
    }
  }
  for (const [name, r] of Object.entries(next.restores)) {
    if (next.snapshots[r.snapshot] === undefined) delete next.restores[name];
  }
  return next;
}

const snapshotKey = (n: string) => `Snapshot::${WHERE}/${n}`;
const restoreKey = (n: string) => `SnapshotRestore::${WHERE}/${n}`;

/** The resources the program declares for `d` (src/program/environment-component.ts), in order. */
function declare(d: Desired): Declared[] {
  const snapshots: Declared[] = Object.entries(d.snapshots).map(([n, s]) => ({
    name: snapshotKey(n),
    type: "snapshot",
    inputs: () => ({
      stack: STACK,
      environment: ENV,
      mode: s.mode,
      include_resampled: s.include_resampled,
      ...(s.notes === "" ? {} : { notes: s.notes }),
      marker_seed: `fuzz/fuzz/${snapshotKey(n).replace("::", "/")}`,
    }),
  }));
  const restores: Declared[] = Object.entries(d.restores).map(([n, r]) => ({
    name: restoreKey(n),
    type: "snapshotRestore",
    inputs: (state) => ({
      stack: STACK,
      environment: ENV,
      snapshot: r.snapshot,
      snapshot_id: String(state.get(snapshotKey(r.snapshot))?.outs["snapshot_id"] ?? ""),
      mode: "db",
      skip_build: r.skip_build,
      confirm: ENV,
      trigger: r.trigger,
    }),
  }));
  return [...snapshots, ...restores];
}

/** Restores the step must run: entries that appeared or whose own settings changed. */
function restoresDue(prev: Desired, next: Desired): number {
  return Object.entries(next.restores).filter(
    ([n, r]) => JSON.stringify(prev.restores[n]) !== JSON.stringify(r),
  ).length;
}

/** Snapshots the step must take: entries that appeared or whose mode or flag changed. */
function snapshotsDue(prev: Desired, next: Desired): number {
  return Object.entries(next.snapshots).filter(([n, s]) => {
    const before = prev.snapshots[n];
    return before === undefined || before.mode !== s.mode || before.include_resampled !== s.include_resampled;
  }).length;
}

let emulator: TestEmulator;
beforeAll(async () => {
  emulator = await startTestEmulator({ speed: "instant" });
  const values: Record<string, string> = {
    "stackwright:apiUrl": emulator.url,
    "stackwright:email": TEST_USERS.stackManager.email,
    "stackwright:apiToken": TEST_USERS.stackManager.token,
  };
  await v1.configure({ config: { get: (key) => values[key] } });
});
afterAll(async () => {
  await emulator?.close();
});

async function runCase(c: Case, counts: Counts): Promise<void> {
  await emulator.hooks.reset();
  const state: State = new Map();
  let desired: Desired = { snapshots: {}, restores: {} };
  const requests = async (direction: string) =>
    (await emulator.hooks.transfers(STACK)).filter((t) => t.direction === direction).length;
  let restoresExpected = await requests("restore");
  let snapshotsExpected = await requests("create");
  /** The snapshot id each restore ran with, by restore entry, while the entry stays the same. */
  const ranWith = new Map<string, unknown>();
  const spy = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
  try {
    for (const [i, edits] of c.entries()) {
      const next = applyEdits(desired, edits);
      count(counts, "steps");
      const due = restoresDue(desired, next);
      count(counts, "restores due", due);
      restoresExpected += due;
      snapshotsExpected += snapshotsDue(desired, next);
      await up(state, declare(next));
      expect(await requests("restore"), `restore requests after step ${i}`).toBe(restoresExpected);
      expect(await requests("create"), `snapshot requests after step ${i}`).toBe(snapshotsExpected);
      for (const [n, r] of Object.entries(next.restores)) {
        const outs = state.get(restoreKey(n))?.outs ?? {};
        const key = `${n}:${JSON.stringify(r)}`;
        if (!ranWith.has(key)) ranWith.set(key, outs["restored_snapshot_id"]);
        expect(outs["restored_snapshot_id"], `restore ${n} keeps the id it ran with`).toBe(ranWith.get(key));
        if (outs["snapshot_id"] !== outs["restored_snapshot_id"])
          count(counts, "snapshots taken anew under a restore");
      }
      for (const key of [...ranWith.keys()]) {
        const [n] = key.split(":");
        if (`${n}:${JSON.stringify(next.restores[n ?? ""])}` !== key) ranWith.delete(key);
      }
      desired = next;
    }
  } finally {
    spy.mockRestore();
  }
}

describe("restores under random edits of a file's snapshots and restores", () => {
  it("a notes edit of the snapshot a restore names runs neither a snapshot nor the restore", async () => {
    await runCase(
      [
        [
          {
            kind: "snapshot",
            name: "nightly",
            mode: "db",
            include_resampled: false,
            notes: "before release",
          },
          { kind: "restore", name: "from-a", snapshot: "nightly", skip_build: false, trigger: "t0" },
        ],
        [{ kind: "notes", name: "nightly", notes: "before the release" }],
      ],
      {},
    );
  });

  it(
    "run a restore only when its entry appears or one of its own settings changes",
    async () => {
      await fuzz("restore edits", caseArb, runCase, { bounded: 40, file: FILE });
    },
    runs(40) * 5_000,
  );
});
