import type { CreateSnapshotRequest, RestoreSnapshotRequest, SnapshotMode } from "../../api";
import { isTransferFinished, snapshotModeCovers } from "../../api";
import { HttpError } from "../errors";
import { envKey, type SnapshotRecord, type TransferRecord } from "../model";
import type { Scheduler } from "../scheduler";
import type { Store } from "../store";
import { nowUnix } from "../time";
import { type Access, type Caller, type EnvContext, inStack, refuseLocked } from "./access";
import { transferLog } from "./log-lines";

const MODE_WORDS: Record<SnapshotMode, string> = {
  all: "database and assets",
  db: "database",
  assets: "assets",
};

/** Snapshots and the transfers that create and restore them. */
export class Snapshots {
  /** Scripted stalls of the next transfer per environment (test hook; memory only). */
  private readonly stalls = new Map<string, number>();

  constructor(
    private readonly store: Store,
    private readonly scheduler: Scheduler,
    private readonly access: Access,
  ) {}

  in(stack: string, id: number): SnapshotRecord {
    return inStack(this.store.snapshots, "Snapshot", stack, id);
  }

  transferIn(stack: string, id: number): TransferRecord {
    return inStack(this.store.transfers, "Transfer", stack, id);
  }

  create(caller: Caller, stack: string, body: CreateSnapshotRequest): TransferRecord {
    const role = this.access.stack(caller, stack);
    const ctx = this.access.check(role, stack, body.environment, ["snapshot"], "environment");
    refuseLocked(ctx, "take a snapshot");
    this.refuseTransferRunning(ctx);
    const t = this.store.tx(() => {
      const snap = this.newSnapshot(stack, ctx.env, body.mode, body.notes ?? null, false);
      return this.newTransfer({
        stack,
        env: ctx.env,
        direction: "create",
        mode: body.mode,
        include_resampled: body.include_resampled === true,
        skip_build: false,
        snapshot: null,
        pending_snapshot: snap.id,
      });
    });
    this.schedule(t.id);
    return t;
  }

  restore(caller: Caller, stack: string, id: number, body: RestoreSnapshotRequest): TransferRecord {
    const role = this.access.stack(caller, stack);
    const snap = this.in(stack, id);
    const ctx = this.access.check(role, stack, body.environment, ["restore"], "environment");
    refuseLocked(ctx, "restore a snapshot");
    if (snap.status !== "complete") {
      throw new HttpError(
        400,
        `Snapshot ${snap.id} cannot be restored: its status is '${snap.status}', not 'complete'`,
      );
    }
    if (!snapshotModeCovers(snap.mode, body.mode)) {
      const missing: SnapshotMode = body.mode === "all" ? (snap.mode === "db" ? "assets" : "db") : body.mode;
      throw new HttpError(400, `The snapshot is missing the ${MODE_WORDS[missing]}.`);
    }
    this.refuseTransferRunning(ctx);
    const backup = body.backup_existing_data ?? ctx.production;
    const t = this.store.tx(() => {
      const notes = `Automatic backup before restoring snapshot ${snap.id}`;
      const backupSnap = backup ? this.newSnapshot(stack, ctx.env, body.mode, notes, true) : null;
      return this.newTransfer({
        stack,
        env: ctx.env,
        direction: "restore",
        mode: body.mode,
        include_resampled: false,
        skip_build: body.skip_build === true,
        snapshot: snap.id,
        pending_snapshot: backupSnap?.id ?? null,
      });
    });
    this.schedule(t.id);
    return t;
  }

  delete(caller: Caller, stack: string, id: number): void {
    const role = this.access.stack(caller, stack);
    const snap = this.in(stack, id);
    this.access.check(role, stack, snap.source, ["snapshot"]);
    if (snap.status === "pending") {
      throw new HttpError(
        400,
        `Snapshot ${snap.id} cannot be deleted while it is being created (status 'pending')`,
      );
    }
    this.store.tx(() => this.store.deleteSnapshot(snap.id));
  }

  schedule(id: number): void {
    const t = this.store.transfers.get(id);
    const key = t === undefined ? undefined : envKey(t.stack, t.env);
    const stall = t?.status === "n/a" && key !== undefined ? this.stalls.get(key) : undefined;
    if (stall === undefined || key === undefined) {
      this.scheduler.step(() => this.advance(id));
      return;
    }
    this.stalls.delete(key);
    this.scheduler.after(stall, () => this.advance(id));
  }

  /** The next transfer that starts in the environment stays `n/a` for `ms` (test hook). */
  stallNext(stack: string, env: string, ms: number): void {
    this.access.envContext(stack, env);
    this.stalls.set(envKey(stack, env), ms);
  }

  /** Forgets every scripted stall (the reset hook). */
  clearStalls(): void {
    this.stalls.clear();
  }

  /**
   * One worker step: n/a → Started → Running → Finished, or Failed with the reason a hook
   * scripted (taken when the transfer starts). Each step adds its line to the log.
   */
  advance(id: number): void {
    const t = this.store.transfers.get(id);
    if (t === undefined || isTransferFinished(t.status)) return;
    this.store.tx(() => {
      if (t.status === "n/a") {
        const ctx = this.access.envContext(t.stack, t.env);
        const failure = ctx.live.next_transfer_failure;
        if (failure !== null) this.store.saveEnv({ ...ctx.live, next_transfer_failure: null });
        this.save(t, { status: "Started", failure }, transferLog.started(t));
      } else if (t.status === "Started") {
        // A restore with a backup writes the backup first.
        if (t.direction === "restore") this.completeSnapshot(t.pending_snapshot);
        this.save(t, { status: "Running" }, transferLog.running(t));
      } else if (t.failure !== null) {
        if (t.direction === "create") this.failSnapshot(t.pending_snapshot);
        this.save(t, { status: "Failed" }, transferLog.failed(t.failure));
      } else if (t.direction === "create") {
        const size = this.completeSnapshot(t.pending_snapshot);
        this.save(t, { status: "Finished", snapshot: t.pending_snapshot }, transferLog.complete(t, size));
      } else {
        this.save(t, { status: "Finished" }, transferLog.complete(t, null));
      }
    });
    const after = this.store.transfers.get(id);
    if (after !== undefined && !isTransferFinished(after.status)) this.schedule(id);
  }

  private save(t: TransferRecord, extra: Partial<TransferRecord>, line: string): void {
    this.store.saveTransfer({ ...t, ...extra, log: [...t.log, line] });
  }

  private refuseTransferRunning(ctx: EnvContext): void {
    for (const t of this.store.transfers.values()) {
      if (t.stack === ctx.stack && t.env === ctx.env && !isTransferFinished(t.status)) {
        throw new HttpError(
          409,
          `Another transfer is in progress on '${ctx.stack}/${ctx.env}' (transfer ${t.id} is ${t.status}); one transfer per environment at a time`,
        );
      }
    }
  }

  private newSnapshot(
    stack: string,
    source: string,
    mode: SnapshotMode,
    notes: string | null,
    backup: boolean,
  ): SnapshotRecord {
    const s: SnapshotRecord = {
      id: this.store.nextId("snapshot"),
      stack,
      source,
      mode,
      status: "pending",
      created: nowUnix(),
      size: 0,
      notes,
      is_backup: backup,
      is_manual_upload: false,
    };
    this.store.saveSnapshot(s);
    return s;
  }

  private newTransfer(
    fields: Omit<TransferRecord, "id" | "status" | "created" | "failure" | "log">,
  ): TransferRecord {
    const transfer: TransferRecord = {
      ...fields,
      id: this.store.nextId("transfer"),
      status: "n/a",
      created: nowUnix(),
      failure: null,
      log: [],
    };
    transfer.log = [transferLog.queued(transfer, fields.snapshot)];
    this.store.saveTransfer(transfer);
    return transfer;
  }

  /** The next transfer on the environment fails with `reason` (test hook). */
  scriptNextFailure(stack: string, env: string, reason: string): void {
    const ctx = this.access.envContext(stack, env);
    this.store.tx(() => this.store.saveEnv({ ...ctx.live, next_transfer_failure: reason }));
  }

  /** Marks the pending snapshot complete with its size; returns the size. */
  private completeSnapshot(id: number | null): number | null {
    if (id === null) return null;
    const s = this.store.snapshots.get(id);
    if (s === undefined || s.status !== "pending") return null;
    const size = { all: 73_400_320, db: 5_242_880, assets: 68_157_440 }[s.mode] + (s.id % 997) * 1024;
    this.store.saveSnapshot({ ...s, status: "complete", size });
    return size;
  }

  private failSnapshot(id: number | null): void {
    const s = id === null ? undefined : this.store.snapshots.get(id);
    if (s !== undefined && s.status === "pending") this.store.saveSnapshot({ ...s, status: "failed" });
  }
}
