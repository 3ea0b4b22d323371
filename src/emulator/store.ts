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
import { type World, recordKey, worldFromSeed } from "./seed-records";
import { StateFile, type StateRow } from "./state-file";

export { recordKey } from "./seed-records";

/** Which seed a state file was written for: records of another seed would not fit. */
const SeedStamp = z.object({ hash: z.string() });

/** The kinds of entity a state file holds. */
type Kind = "deployment" | "snapshot" | "transfer" | "fetch" | "env" | "record" | "counters" | "seed";

/**
 * The emulator's world: the static seed plus the changing records, kept in memory and written
 * through to the state file (when there is one) before any response that depends on them is sent.
 */
export class Store implements World {
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
  counters: Counters;

  private readonly file: StateFile | null = null;
  /** A digest of the seed: stamps the state file, and keys download links (the seed holds tokens). */
  readonly seedHash: string;
  private depth = 0;

  constructor(seed: Seed, stateFile?: string) {
    this.seed = seed;
    seed.users.forEach((u, i) => this.users.set(u.email.toLowerCase(), { ...u, id: i + 1 }));
    seed.stacks.forEach((s, i) => {
      this.stacks.set(s.name, { ...s, id: i + 1 });
      for (const e of s.environments) this.seedEnvs.set(envKey(s.name, e.name), e);
    });
    for (const r of seed.records) this.seedRecords.set(recordKey(r.class, r.id), r);
    this.counters = this.adopt(worldFromSeed(seed));
    this.seedHash = createHash("sha256").update(JSON.stringify(seed)).digest("hex");
    if (stateFile === undefined) return;

    try {
      this.file = new StateFile(stateFile);
      const rows = this.file.rows();
      if (rows.length === 0) this.persistAll();
      else this.load(rows);
    } catch (err) {
      this.file?.close();
      const message = err instanceof Error ? err.message : String(err);
      throw new Error(`state file ${stateFile}: ${message}`, { cause: err });
    }
  }

  /** Runs `fn` in one transaction: all of its writes reach the file, or none. */
  tx<T>(fn: () => T): T {
    this.depth++;
    try {
      return this.file === null || this.depth > 1 ? fn() : this.file.transaction(fn);
    } finally {
      this.depth--;
    }
  }

  /** Back to the seed: every changed record is dropped. */
  reset(): void {
    this.tx(() => {
      this.file?.clear();
      this.counters = this.adopt(worldFromSeed(this.seed));
      this.persistAll();
    });
  }

  close(): void {
    this.file?.close();
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
    this.file?.delete("snapshot", String(id));
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
    this.file?.write(kind, key, value);
  }

  /** Takes the world's records as the store's own; returns its counters. */
  private adopt(world: World): Counters {
    this.deployments = world.deployments;
    this.snapshots = world.snapshots;
    this.transfers = world.transfers;
    this.fetches = world.fetches;
    this.envs = world.envs;
    this.records = world.records;
    return world.counters;
  }

  private persistAll(): void {
    this.tx(() => {
      this.write("seed", "stamp", { hash: this.seedHash });
      this.write("counters", "all", this.counters);
      for (const d of this.deployments.values()) this.write("deployment", String(d.id), d);
      for (const s of this.snapshots.values()) this.write("snapshot", String(s.id), s);
      for (const e of this.envs.values()) this.write("env", envKey(e.stack, e.env), e);
      for (const r of this.records.values()) this.write("record", recordKey(r.class, r.id), r);
    });
  }

  /** Replaces the seed's deployments and snapshots (and any other record) by what the file holds. */
  private load(rows: StateRow[]): void {
    this.deployments = new Map();
    this.snapshots = new Map();
    let stamped = false;
    for (const row of rows) {
      const json: unknown = JSON.parse(row.json);
      const parse = <T>(schema: z.ZodType<T>): T => {
        const parsed = schema.safeParse(json);
        if (!parsed.success) {
          throw new Error(`state file: ${row.kind} ${row.key} is invalid: ${parsed.error.message}`);
        }
        return parsed.data;
      };
      switch (row.kind) {
        case "deployment": {
          const d = parse(DeploymentRecord);
          this.deployments.set(d.id, d);
          break;
        }
        case "snapshot": {
          const s = parse(SnapshotRecord);
          this.snapshots.set(s.id, s);
          break;
        }
        case "transfer": {
          const t = parse(TransferRecord);
          this.transfers.set(t.id, t);
          break;
        }
        case "fetch": {
          const f = parse(FetchRecord);
          this.fetches.set(f.id, f);
          break;
        }
        case "env": {
          const e = parse(EnvironmentRecord);
          this.envs.set(envKey(e.stack, e.env), e);
          break;
        }
        case "record": {
          const r = parse(RecordRecord);
          this.records.set(recordKey(r.class, r.id), r);
          break;
        }
        case "counters":
          this.counters = parse(Counters);
          break;
        case "seed":
          stamped = true;
          if (parse(SeedStamp).hash !== this.seedHash) {
            throw new Error(
              "it was written for a different seed; start with the seed it was made from, or delete the file to start afresh",
            );
          }
          break;
        default:
          throw new Error(`state file: unknown record kind '${row.kind}'`);
      }
    }
    if (!stamped) throw new Error("it carries no seed stamp; it was not written by this emulator");
  }
}
