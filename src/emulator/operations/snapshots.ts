import type { CreateSnapshotRequest, RestoreSnapshotRequest, SnapshotMode } from "../../api";
import { isTransferFinished, snapshotModeCovers } from "../../api";
import { HttpError } from "../errors";
import type { SnapshotRecord, TransferRecord } from "../model";
import type { Scheduler } from "../scheduler";
import type { Store } from "../store";
import { nowUnix } from "../time";
import { type Access, type Caller, type EnvContext, inStack, refuseLocked } from "./access";

const MODE_WORDS: Record<SnapshotMode, string> = {
  all: "database and assets",
  db: "database",
  assets: "assets",
};

/** Snapshots and the transfers that create and restore them. */
export class Snapshots {
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
    this.scheduler.step(() => this.advance(id));
  }

  /** One worker step: n/a → Started → Running → Finished. */
  advance(id: number): void {
    const t = this.store.transfers.get(id);
    if (t === undefined || isTransferFinished(t.status)) return;
    this.store.tx(() => {
      if (t.status === "n/a") {
        this.store.saveTransfer({ ...t, status: "Started" });
      } else if (t.status === "Started") {
        // A restore with a backup writes the backup first.
        if (t.direction === "restore") this.completeSnapshot(t.pending_snapshot);
        this.store.saveTransfer({ ...t, status: "Running" });
      } else if (t.direction === "create") {
        this.completeSnapshot(t.pending_snapshot);
        this.store.saveTransfer({ ...t, status: "Finished", snapshot: t.pending_snapshot });
      } else {
        this.store.saveTransfer({ ...t, status: "Finished" });
      }
    });
    const after = this.store.transfers.get(id);
    if (after !== undefined && !isTransferFinished(after.status)) this.schedule(id);
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

  private newTransfer(fields: Omit<TransferRecord, "id" | "status" | "created">): TransferRecord {
    const transfer: TransferRecord = {
      ...fields,
      id: this.store.nextId("transfer"),
      status: "n/a",
      created: nowUnix(),
    };
    this.store.saveTransfer(transfer);
    return transfer;
  }

  private completeSnapshot(id: number | null): void {
    if (id === null) return;
    const s = this.store.snapshots.get(id);
    if (s === undefined || s.status !== "pending") return;
    const size = { all: 73_400_320, db: 5_242_880, assets: 68_157_440 }[s.mode] + (s.id % 997) * 1024;
    this.store.saveSnapshot({ ...s, status: "complete", size });
  }
}
