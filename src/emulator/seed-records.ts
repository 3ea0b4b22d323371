import type {
  Counters,
  DeploymentRecord,
  EnvironmentRecord,
  FetchRecord,
  RecordRecord,
  SnapshotRecord,
  TransferRecord,
} from "./model";
import { DEPLOYMENT_DEFAULTS, envKey } from "./model";
import { logUpTo } from "./operations/log-lines";
import type { Seed, SeedStack } from "./seed";

/** The first id of each kind: a fresh world numbers its deployments from 100, and so on. */
export const FIRST_IDS = {
  deployment: 100,
  snapshot: 10,
  transfer: 500,
  fetch: 900,
} as const satisfies Counters;

/** Every changing record of the emulator, keyed as the store keeps them. */
export interface World {
  deployments: Map<number, DeploymentRecord>;
  snapshots: Map<number, SnapshotRecord>;
  transfers: Map<number, TransferRecord>;
  fetches: Map<number, FetchRecord>;
  envs: Map<string, EnvironmentRecord>;
  records: Map<string, RecordRecord>;
  counters: Counters;
}

/** Key of a generic record in maps. */
export function recordKey(cls: string, id: number): string {
  return `${cls}#${id}`;
}

/** The world a seed describes: its deployments, environments, snapshots and records, numbered. */
export function worldFromSeed(seed: Seed): World {
  const world: World = {
    deployments: new Map(),
    snapshots: new Map(),
    transfers: new Map(),
    fetches: new Map(),
    envs: new Map(),
    records: new Map(),
    counters: { ...FIRST_IDS },
  };
  for (const s of seed.stacks) {
    addEnvironments(world, s);
    addSnapshots(world, s);
  }
  for (const r of seed.records) {
    world.records.set(recordKey(r.class, r.id), { class: r.class, id: r.id, fields: { ...r.fields } });
  }
  return world;
}

/** Each environment's seed deployments (an hour apart unless dated) and its live state. */
function addEnvironments(world: World, s: SeedStack): void {
  for (const e of s.environments) {
    let current: number | null = null;
    let t = s.created_unix;
    for (const d of e.deployments) {
      t += 3600;
      const at = d.created_unix ?? t;
      const id = world.counters.deployment++;
      const finished = d.state !== "New" && d.state !== "Submitted";
      const record: DeploymentRecord = {
        ...DEPLOYMENT_DEFAULTS,
        id,
        stack: s.name,
        env: e.name,
        state: d.state,
        ref_type: d.ref_type,
        ref: d.ref ?? (d.ref_type === "sha" ? d.sha : ""),
        sha: d.sha,
        package: null,
        title: d.title,
        summary: d.summary,
        deployer: d.deployer.toLowerCase(),
        locked: false,
        changes: {},
        created: at,
        requested: at,
        approved: finished ? at : 0,
        started: finished ? at : 0,
        updated: at,
        failure: d.state === "Failed" ? "failed (seed)" : null,
        rejected_reason: d.state === "Rejected" ? "rejected in the dashboard" : null,
      };
      record.log = logUpTo(record, s.repository_url);
      world.deployments.set(id, record);
      if (d.state === "Completed") current = id;
    }
    world.envs.set(envKey(s.name, e.name), {
      stack: s.name,
      env: e.name,
      build_sha: e.build_sha,
      build_package: e.build_package,
      locked: e.lock !== undefined,
      lock_message: e.lock?.message ?? "",
      next_outcome: null,
      next_reason: null,
      next_transfer_failure: null,
      current_build: current,
    });
  }
}

/** The stack's seed snapshots, complete, a day apart unless dated. */
function addSnapshots(world: World, s: SeedStack): void {
  s.snapshots.forEach((snap, i) => {
    const id = world.counters.snapshot++;
    world.snapshots.set(id, {
      id,
      stack: s.name,
      source: snap.source,
      mode: snap.mode,
      status: "complete",
      created: snap.created_unix ?? s.created_unix + 86_400 * (i + 1),
      size: snap.size,
      notes: snap.notes,
      is_backup: snap.is_backup,
      is_manual_upload: snap.is_manual_upload,
    });
  });
}
