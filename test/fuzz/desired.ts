/**
 * The desired state the provider-level fuzz walks through (one environment, `acme-web/uat`, as
 * the program declares it: a lock resource always, a deployment, snapshots and restores), the
 * random changes between two desired states, and the resources the program would declare.
 */
import fc from "fast-check";
import { EnvironmentSchema, type EnvironmentConfig } from "../../src/config";
import { holdsOf } from "../../src/program/environment-component";
import type { Declared, State } from "./lifecycle";

export const STACK = "acme-web";
export const ENV = "uat";
const WHERE = `${STACK}/${ENV}`;

export interface Desired {
  deployment?: { ref: string; trigger: string };
  lock?: { message: string };
  snapshots: Record<string, { notes: string }>;
  restores: Record<string, { snapshot: string; trigger: string }>;
}

export const EMPTY: Desired = { snapshots: {}, restores: {} };

const SNAPSHOTS = ["nightly", "weekly"] as const;
const RESTORES = ["from-a", "from-b"] as const;

/** One change to the desired state, as a person would make it in the YAML. */
export type Change =
  | { kind: "ref"; ref: string }
  | { kind: "trigger" }
  | { kind: "lock"; message: string }
  | { kind: "unlock" }
  | { kind: "snapshot"; name: string; notes: string }
  | { kind: "restore"; name: string; snapshot: string }
  | { kind: "remove-deployment" }
  | { kind: "remove-snapshot"; name: string }
  | { kind: "remove-restore"; name: string };

export const changeArb: fc.Arbitrary<Change> = fc.oneof(
  fc.record({ kind: fc.constant("ref" as const), ref: fc.constantFrom("main", "release/2026-11", "hotfix") }),
  fc.record({ kind: fc.constant("trigger" as const) }),
  fc.record({ kind: fc.constant("lock" as const), message: fc.constantFrom("Change freeze", "Audit") }),
  fc.record({ kind: fc.constant("unlock" as const) }),
  fc.record({
    kind: fc.constant("snapshot" as const),
    name: fc.constantFrom(...SNAPSHOTS),
    notes: fc.constantFrom("before release", "weekly"),
  }),
  fc.record({
    kind: fc.constant("restore" as const),
    name: fc.constantFrom(...RESTORES),
    snapshot: fc.constantFrom(...SNAPSHOTS),
  }),
  fc.record({ kind: fc.constant("remove-deployment" as const) }),
  fc.record({ kind: fc.constant("remove-snapshot" as const), name: fc.constantFrom(...SNAPSHOTS) }),
  fc.record({ kind: fc.constant("remove-restore" as const), name: fc.constantFrom(...RESTORES) }),
);

/**
 * The next desired state: `changes` applied to `prev`, then made valid the way the docs tell a
 * person to (`docs/stacks-config.md`): a restore needs its snapshot declared; work on a locked
 * environment (a new deployment, snapshot or restore) lifts the lock in the same change.
 */
export function applyChanges(prev: Desired, changes: readonly Change[], step: number): Desired {
  const next: Desired = {
    ...(prev.deployment === undefined ? {} : { deployment: { ...prev.deployment } }),
    ...(prev.lock === undefined ? {} : { lock: { ...prev.lock } }),
    snapshots: { ...prev.snapshots },
    restores: { ...prev.restores },
  };
  for (const c of changes) {
    switch (c.kind) {
      case "ref":
        next.deployment = { ref: c.ref, trigger: next.deployment?.trigger ?? "" };
        break;
      case "trigger":
        next.deployment = { ref: next.deployment?.ref ?? "main", trigger: `t${step}` };
        break;
      case "lock":
        next.lock = { message: c.message };
        break;
      case "unlock":
        delete next.lock;
        break;
      case "snapshot":
        next.snapshots[c.name] = { notes: c.notes };
        break;
      case "restore":
        next.restores[c.name] = { snapshot: c.snapshot, trigger: `t${step}` };
        break;
      case "remove-deployment":
        delete next.deployment;
        break;
      case "remove-snapshot":
        delete next.snapshots[c.name];
        break;
      case "remove-restore":
        delete next.restores[c.name];
        break;
    }
  }
  for (const [name, r] of Object.entries(next.restores)) {
    if (next.snapshots[r.snapshot] === undefined) delete next.restores[name];
  }
  if (prev.lock !== undefined && next.lock !== undefined && newWork(prev, next)) delete next.lock;
  return next;
}

/** True when `next` asks for a deployment, snapshot or restore that `prev` did not have. */
function newWork(prev: Desired, next: Desired): boolean {
  const d = next.deployment;
  const deploys =
    d !== undefined && (prev.deployment?.ref !== d.ref || prev.deployment.trigger !== d.trigger);
  const holds = (x: Desired) => holdsOf(environmentConfig(x));
  const before = holds(prev);
  return deploys || holds(next).some((h) => !before.includes(h));
}

/** The environment's config as the YAML loader would give it (defaults applied). */
function environmentConfig(d: Desired): EnvironmentConfig {
  return EnvironmentSchema.parse({
    snapshots: Object.fromEntries(
      Object.entries(d.snapshots).map(([n, s]) => [n, { mode: "db", notes: s.notes }]),
    ),
    restores: Object.fromEntries(
      Object.entries(d.restores).map(([n, r]) => [
        n,
        { snapshot: r.snapshot, mode: "db", confirm: ENV, trigger: r.trigger },
      ]),
    ),
  });
}

/** Marker seeds as the resource classes make them (project/stack/type/name). */
function markerSeedOf(key: string): string {
  return `fuzz/fuzz/${key.replace("::", "/")}`;
}

/** State keys of the resources (type and name, as a URN tells them apart). */
export const names = {
  lock: `EnvironmentLock::${WHERE}`,
  deployment: `Deployment::${WHERE}`,
  snapshot: (n: string) => `Snapshot::${WHERE}/${n}`,
  restore: (n: string) => `SnapshotRestore::${WHERE}/${n}`,
};

/**
 * The resources the program declares for `d`, in the order it runs them: unlock first, then the
 * deployment, snapshots and restores; or all of that, then lock.
 */
export function declare(d: Desired, timeoutSeconds: number): Declared[] {
  const config = environmentConfig(d);
  const lock: Declared = {
    name: names.lock,
    type: "environmentLock",
    inputs: () => ({
      stack: STACK,
      environment: ENV,
      message: d.lock?.message ?? "",
      locked: d.lock !== undefined,
      holds: holdsOf(config),
    }),
  };
  const work: Declared[] = [];
  if (d.deployment !== undefined) {
    const { ref, trigger } = d.deployment;
    work.push({
      name: names.deployment,
      type: "deployment",
      inputs: () => ({
        stack: STACK,
        environment: ENV,
        ref_type: "branch",
        ref,
        title: `Deploy ${ref}`,
        approval: "bypass_and_start",
        trigger,
        timeout_seconds: timeoutSeconds,
        ...(d.lock === undefined ? {} : { environment_lock: d.lock.message }),
        marker_seed: markerSeedOf(names.deployment),
      }),
    });
  }
  for (const [n, s] of Object.entries(d.snapshots)) {
    work.push({
      name: names.snapshot(n),
      type: "snapshot",
      inputs: () => ({
        stack: STACK,
        environment: ENV,
        mode: "db",
        notes: s.notes,
        timeout_seconds: timeoutSeconds,
        marker_seed: markerSeedOf(names.snapshot(n)),
      }),
    });
  }
  for (const [n, r] of Object.entries(d.restores)) {
    work.push({
      name: names.restore(n),
      type: "snapshotRestore",
      inputs: (state: ReadonlyMap<string, { outs: Record<string, unknown> }>) => ({
        stack: STACK,
        environment: ENV,
        snapshot: r.snapshot,
        snapshot_id: String(state.get(names.snapshot(r.snapshot))?.outs["snapshot_id"] ?? ""),
        mode: "db",
        confirm: ENV,
        trigger: r.trigger,
        timeout_seconds: timeoutSeconds,
      }),
    });
  }
  return d.lock === undefined ? [lock, ...work] : [...work, lock];
}

/** The snapshot id a restore of `d` points at, from the state. */
export function restoreTargets(d: Desired, state: State): Map<string, string> {
  const out = new Map<string, string>();
  for (const [n, r] of Object.entries(d.restores)) {
    const id = state.get(names.snapshot(r.snapshot))?.outs["snapshot_id"];
    if (typeof id === "string") out.set(n, `${id}@${r.trigger}`);
  }
  return out;
}
