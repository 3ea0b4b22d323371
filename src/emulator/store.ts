import type { DatabaseSync, StatementSync } from "node:sqlite";
import { createHash } from "node:crypto";
import { z } from "zod";
import type { Role } from "../api";
import {
  Counters,
  DeploymentRecord,
  EnvironmentRecord,
  FetchRecord,
  RecordRecord,
  SnapshotRecord,
  TransferRecord,
  envKey,
} from "./model";
import type { Seed, SeedEnvironment, SeedRecord, SeedStack, SeedUser } from "./seed";

const FIRST_IDS = { deployment: 100, snapshot: 10, transfer: 500, fetch: 900 } as const satisfies Counters;

/** Which seed a state file was written for: records of another seed would not fit. */
const SeedStamp = z.object({ hash: z.string() });
type SeedStamp = z.infer<typeof SeedStamp>;

const KINDS = {
  deployment: DeploymentRecord,
  snapshot: SnapshotRecord,
  transfer: TransferRecord,
  fetch: FetchRecord,
  env: EnvironmentRecord,
  record: RecordRecord,
  counters: Counters,
  seed: SeedStamp,
} as const;
type Kind = keyof typeof KINDS;

/**
 * The emulator's world: the static seed plus the changing records, kept in memory and written
 * through to SQLite (WAL) before any response that depends on them is sent.
 */
export class Store {
  readonly seed: Seed;
  readonly users = new Map<string, SeedUser & { id: number }>();
  readonly stacks = new Map<string, SeedStack & { id: number }>();
  readonly seedEnvs = new Map<string, SeedEnvironment>();
  readonly seedRecords = new Map<string, SeedRecord>();

  deployments = new Map<number, DeploymentRecord>();
  snapshots = new Map<number, SnapshotRecord>();
  transfers = new Map<number, TransferRecord>();
  fetches = new Map<number, FetchRecord>();
  envs = new Map<string, EnvironmentRecord>();
  records = new Map<string, RecordRecord>();
  counters: Counters = { ...FIRST_IDS };

  private readonly db: DatabaseSync | null = null;
  private readonly upsert: StatementSync | null = null;
  private readonly remove: StatementSync | null = null;
  private readonly seedHash: string = "";
  private depth = 0;

  constructor(seed: Seed, stateFile?: string) {
    this.seed = seed;
    seed.users.forEach((u, i) => this.users.set(u.email.toLowerCase(), { ...u, id: i + 1 }));
    seed.stacks.forEach((s, i) => {
      this.stacks.set(s.name, { ...s, id: i + 1 });
      for (const e of s.environments) this.seedEnvs.set(envKey(s.name, e.name), e);
    });
    for (const r of seed.records) this.seedRecords.set(recordKey(r.class, r.id), r);

    if (stateFile === undefined) {
      this.initFromSeed();
      return;
    }
    this.seedHash = createHash("sha256").update(JSON.stringify(seed)).digest("hex");
    try {
      // Loaded only when a state file is asked for: node:sqlite prints an experimental warning on load.
      const sqlite = process.getBuiltinModule("node:sqlite");
      this.db = new sqlite.DatabaseSync(stateFile);
      // WAL: a commit is one append to the log; a process killed at any point leaves either the
      // whole transaction or none of it, so a half-written state is never read back.
      this.db.exec("PRAGMA journal_mode = WAL");
      this.db.exec("PRAGMA synchronous = NORMAL");
      this.db.exec("PRAGMA busy_timeout = 5000");
      this.db.exec(
        "CREATE TABLE IF NOT EXISTS entities (kind TEXT NOT NULL, key TEXT NOT NULL, json TEXT NOT NULL, PRIMARY KEY (kind, key)) WITHOUT ROWID",
      );
      this.upsert = this.db.prepare("INSERT OR REPLACE INTO entities (kind, key, json) VALUES (?, ?, ?)");
      this.remove = this.db.prepare("DELETE FROM entities WHERE kind = ? AND key = ?");
      const rows = this.db.prepare("SELECT kind, key, json FROM entities").all();
      if (rows.length === 0) {
        this.initFromSeed();
        this.persistAll();
      } else {
        this.load(rows);
      }
    } catch (err) {
      this.db?.close();
      const message = err instanceof Error ? err.message : String(err);
      throw new Error(`state file ${stateFile}: ${message}`, { cause: err });
    }
  }

  /** Runs `fn` in one transaction: all of its writes reach the file, or none. */
  tx<T>(fn: () => T): T {
    if (this.db === null || this.depth > 0) {
      this.depth++;
      try {
        return fn();
      } finally {
        this.depth--;
      }
    }
    this.db.exec("BEGIN IMMEDIATE");
    this.depth++;
    try {
      const result = fn();
      this.db.exec("COMMIT");
      return result;
    } catch (err) {
      this.db.exec("ROLLBACK");
      throw err;
    } finally {
      this.depth--;
    }
  }

  /** Back to the seed: every changed record is dropped. */
  reset(): void {
    this.tx(() => {
      this.db?.exec("DELETE FROM entities");
      this.initFromSeed();
      this.persistAll();
    });
  }

  close(): void {
    this.db?.close();
  }

  nextId(kind: keyof Counters): number {
    const id = this.counters[kind];
    this.counters = { ...this.counters, [kind]: id + 1 };
    this.write("counters", "all", this.counters);
    return id;
  }

  saveDeployment(d: DeploymentRecord): void {
    this.deployments.set(d.id, d);
    this.write("deployment", String(d.id), d);
  }
  saveSnapshot(s: SnapshotRecord): void {
    this.snapshots.set(s.id, s);
    this.write("snapshot", String(s.id), s);
  }
  deleteSnapshot(id: number): void {
    this.snapshots.delete(id);
    this.remove?.run("snapshot", String(id));
  }
  saveTransfer(t: TransferRecord): void {
    this.transfers.set(t.id, t);
    this.write("transfer", String(t.id), t);
  }
  saveFetch(f: FetchRecord): void {
    this.fetches.set(f.id, f);
    this.write("fetch", String(f.id), f);
  }
  saveEnv(e: EnvironmentRecord): void {
    const key = envKey(e.stack, e.env);
    this.envs.set(key, e);
    this.write("env", key, e);
  }
  saveRecord(r: RecordRecord): void {
    const key = recordKey(r.class, r.id);
    this.records.set(key, r);
    this.write("record", key, r);
  }

  user(email: string): (SeedUser & { id: number }) | undefined {
    return this.users.get(email.toLowerCase());
  }

  /** The caller's role on a stack, or undefined when not a member. */
  role(stack: string, email: string): Role | undefined {
    const s = this.stacks.get(stack);
    return s?.members.find((m) => m.email.toLowerCase() === email.toLowerCase())?.role;
  }

  private write(kind: Kind, key: string, value: unknown): void {
    this.upsert?.run(kind, key, JSON.stringify(value));
  }

  private initFromSeed(): void {
    this.deployments = new Map();
    this.snapshots = new Map();
    this.transfers = new Map();
    this.fetches = new Map();
    this.envs = new Map();
    this.records = new Map();
    this.counters = { ...FIRST_IDS };
    for (const s of this.seed.stacks) {
      for (const e of s.environments) {
        let current: number | null = null;
        let t = s.created_unix;
        for (const d of e.deployments) {
          t += 3600;
          const id = this.counters.deployment;
          this.counters.deployment++;
          const finished = d.state !== "New" && d.state !== "Submitted";
          this.deployments.set(id, {
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
            created: d.created_unix ?? t,
            requested: d.created_unix ?? t,
            approved: finished ? (d.created_unix ?? t) : 0,
            started: finished ? (d.created_unix ?? t) : 0,
            updated: d.created_unix ?? t,
            failure: null,
          });
          if (d.state === "Completed") current = id;
        }
        this.envs.set(envKey(s.name, e.name), {
          stack: s.name,
          env: e.name,
          build_sha: e.build_sha,
          build_package: e.build_package,
          locked: e.lock !== undefined,
          lock_message: e.lock?.message ?? "",
          next_outcome: null,
          current_build: current,
        });
      }
      s.snapshots.forEach((snap, i) => {
        const id = this.counters.snapshot;
        this.counters.snapshot++;
        this.snapshots.set(id, {
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
    for (const r of this.seed.records) {
      this.records.set(recordKey(r.class, r.id), { class: r.class, id: r.id, fields: { ...r.fields } });
    }
  }

  private persistAll(): void {
    if (this.db === null) return;
    this.tx(() => {
      this.write("seed", "stamp", { hash: this.seedHash } satisfies SeedStamp);
      this.write("counters", "all", this.counters);
      for (const d of this.deployments.values()) this.write("deployment", String(d.id), d);
      for (const s of this.snapshots.values()) this.write("snapshot", String(s.id), s);
      for (const e of this.envs.values()) this.write("env", envKey(e.stack, e.env), e);
      for (const r of this.records.values()) this.write("record", recordKey(r.class, r.id), r);
    });
  }

  private load(rows: Record<string, unknown>[]): void {
    this.initFromSeed();
    // Seed-derived records are replaced by what the file holds.
    this.deployments = new Map();
    this.snapshots = new Map();
    let seen = false;
    for (const row of rows) {
      const kind = String(row["kind"]) as Kind;
      const schema: z.ZodType | undefined = KINDS[kind];
      if (schema === undefined) throw new Error(`state file: unknown record kind '${kind}'`);
      const parsed = schema.safeParse(JSON.parse(String(row["json"])));
      if (!parsed.success) {
        throw new Error(`state file: ${kind} ${String(row["key"])} is invalid: ${parsed.error.message}`);
      }
      const v: unknown = parsed.data;
      switch (kind) {
        case "deployment":
          this.deployments.set((v as DeploymentRecord).id, v as DeploymentRecord);
          break;
        case "snapshot":
          this.snapshots.set((v as SnapshotRecord).id, v as SnapshotRecord);
          break;
        case "transfer":
          this.transfers.set((v as TransferRecord).id, v as TransferRecord);
          break;
        case "fetch":
          this.fetches.set((v as FetchRecord).id, v as FetchRecord);
          break;
        case "env": {
          const e = v as EnvironmentRecord;
          this.envs.set(envKey(e.stack, e.env), e);
          break;
        }
        case "record": {
          const r = v as RecordRecord;
          this.records.set(recordKey(r.class, r.id), r);
          break;
        }
        case "counters":
          this.counters = v as Counters;
          break;
        case "seed":
          seen = true;
          if ((v as SeedStamp).hash !== this.seedHash) {
            throw new Error(
              "it was written for a different seed; start with the seed it was made from, or delete the file to start afresh",
            );
          }
          break;
      }
    }
    if (!seen) throw new Error("it carries no seed stamp; it was not written by this emulator");
  }
}

export function recordKey(cls: string, id: number): string {
  return `${cls}#${id}`;
}
