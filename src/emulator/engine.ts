import { createHash } from "node:crypto";
import type {
  CreateDeploymentRequest,
  CreateSnapshotRequest,
  DeploymentState,
  RestoreSnapshotRequest,
  Role,
  SnapshotMode,
} from "../api";
import { isDeploymentInProgress, isTransferFinished, snapshotModeCovers } from "../api";
import { HttpError } from "./errors";
import type {
  DeploymentRecord,
  EnvironmentRecord,
  FetchRecord,
  SnapshotRecord,
  TransferRecord,
} from "./model";
import { envKey } from "./model";
import { type Action, isAllowed } from "./permissions";
import type { Scheduler } from "./scheduler";
import type { SeedEnvironment, SeedUser } from "./seed";
import { transition, type Transition } from "./state-machine";
import type { Store } from "./store";
import { nowUnix } from "./time";

export type Caller = SeedUser & { id: number };

/** The environment an operation works on, resolved and checked. */
export interface EnvContext {
  stack: string;
  env: string;
  seed: SeedEnvironment;
  live: EnvironmentRecord;
  production: boolean;
}

const MODE_WORDS: Record<SnapshotMode, string> = {
  all: "database and assets",
  db: "database",
  assets: "assets",
};

/**
 * The platform's rules: access, the deployment state machine, transfers, fetches and the
 * background workers that move them. Every change goes through the store in one transaction.
 */
export class Engine {
  /** Deployments to hold in Deploying, by environment key: ms (test hook; not kept on disk). */
  private readonly stalls = new Map<string, number>();

  constructor(
    readonly store: Store,
    private readonly scheduler: Scheduler,
  ) {}

  // ---- access -------------------------------------------------------------------------------

  /** The caller's role on a stack; 404 when the stack does not exist or the caller is no member. */
  stackRole(caller: Caller, stack: string): Role {
    const role = this.store.stacks.has(stack) ? this.store.role(stack, caller.email) : undefined;
    if (role === undefined) throw new HttpError(404, `Stack '${stack}' not found`);
    return role;
  }

  envContext(stack: string, env: string): EnvContext {
    const seed = this.store.seedEnvs.get(envKey(stack, env));
    const live = this.store.envs.get(envKey(stack, env));
    if (seed === undefined || live === undefined) {
      throw new HttpError(404, `Environment '${env}' not found in stack '${stack}'`);
    }
    return { stack, env, seed, live, production: seed.usage === "Production" };
  }

  /** Like envContext, for an environment named in a body field: unknown → 400 naming the field. */
  envFromField(stack: string, env: string, field: string): EnvContext {
    if (this.store.seedEnvs.get(envKey(stack, env)) === undefined) {
      const known = this.store.stacks.get(stack)?.environments.map((e) => e.name) ?? [];
      throw new HttpError(
        400,
        `Invalid field '${field}': stack '${stack}' has no environment '${env}' (known: ${known.join(", ")})`,
      );
    }
    return this.envContext(stack, env);
  }

  require(role: Role, action: Action, ctx: EnvContext): void {
    if (!isAllowed(role, action, ctx.production)) {
      const what: Record<Action, string> = {
        deploy: "deploy to",
        bypass: "bypass deployment approval on",
        approve: "approve deployments on",
        snapshot: "manage snapshots of",
        restore: "restore snapshots into",
        lock: "lock or unlock",
      };
      throw new HttpError(
        403,
        `Your role '${role}' may not ${what[action]} ${ctx.production ? "production " : ""}environment '${ctx.stack}/${ctx.env}'`,
      );
    }
  }

  private refuseLocked(ctx: EnvContext, doing: string): void {
    if (ctx.live.locked) {
      const message = ctx.live.lock_message === "" ? "(no message)" : ctx.live.lock_message;
      throw new HttpError(
        409,
        `Environment '${ctx.stack}/${ctx.env}' is locked, cannot ${doing}: ${message}`,
      );
    }
  }

  private refuseBusy(ctx: EnvContext, except?: number): void {
    for (const d of this.store.deployments.values()) {
      if (d.stack === ctx.stack && d.env === ctx.env && d.id !== except && isDeploymentInProgress(d.state)) {
        throw new HttpError(
          409,
          `Cannot start: another deployment is in progress on '${ctx.stack}/${ctx.env}' (deployment ${d.id} is ${d.state})`,
        );
      }
    }
  }

  deploymentIn(ctx: EnvContext, id: number): DeploymentRecord {
    const d = this.store.deployments.get(id);
    if (d === undefined || d.stack !== ctx.stack || d.env !== ctx.env) {
      throw new HttpError(404, `Deployment ${id} not found on '${ctx.stack}/${ctx.env}'`);
    }
    return d;
  }

  private move(
    d: DeploymentRecord,
    via: Transition,
    extra: Partial<DeploymentRecord> = {},
  ): DeploymentRecord {
    const result = transition(d.state, via);
    if (!result.ok) throw new HttpError(400, `${result.message}: deployment ${d.id}`);
    const next: DeploymentRecord = { ...d, ...extra, state: result.to, updated: nowUnix() };
    this.store.saveDeployment(next);
    return next;
  }

  // ---- deployments --------------------------------------------------------------------------

  private resolveSha(ctx: EnvContext, body: CreateDeploymentRequest): { sha: string; pkg: string | null } {
    const ref = body.ref ?? "";
    const stack = this.store.stacks.get(ctx.stack);
    switch (body.ref_type) {
      case "sha": {
        if (!/^[0-9a-f]{7,40}$/.test(ref)) {
          throw new HttpError(
            400,
            `Invalid field 'ref': '${ref}' is not a commit hash (7 to 40 lowercase hex digits)`,
          );
        }
        if (ref.length === 40) return { sha: ref, pkg: null };
        const known = Object.values(stack?.refs ?? {}).find((s) => s.startsWith(ref));
        return { sha: known ?? (ref + hash(ref)).slice(0, 40), pkg: null };
      }
      case "branch":
      case "tag":
        return { sha: stack?.refs[ref] ?? hash(`${ctx.stack}:${body.ref_type}:${ref}`), pkg: null };
      case "promote_from_uat": {
        const uat = stack?.environments.find((e) => e.usage === "UAT");
        if (uat === undefined) {
          throw new HttpError(
            400,
            `Invalid field 'ref_type': stack '${ctx.stack}' has no UAT environment to promote from`,
          );
        }
        return { sha: this.envContext(ctx.stack, uat.name).live.build_sha, pkg: null };
      }
      case "redeploy":
        return { sha: ctx.live.build_sha, pkg: ctx.live.build_package };
      case "package":
        return { sha: ctx.live.build_sha, pkg: ref };
    }
  }

  private changes(ctx: EnvContext, sha: string, pkg: string | null): DeploymentRecord["changes"] {
    const changes: DeploymentRecord["changes"] = {
      "Code version": { from: ctx.live.build_sha.slice(0, 7), to: sha.slice(0, 7) },
    };
    if (pkg !== null || ctx.live.build_package !== null) {
      changes["Package"] = { from: ctx.live.build_package ?? "", to: pkg ?? "" };
    }
    return changes;
  }

  createDeployment(
    caller: Caller,
    stack: string,
    env: string,
    body: CreateDeploymentRequest,
  ): DeploymentRecord {
    const role = this.stackRole(caller, stack);
    const ctx = this.envContext(stack, env);
    this.require(role, "deploy", ctx);
    const bypass = body.bypass === true || body.bypass_and_start === true;
    if (bypass) this.require(role, "bypass", ctx);
    this.refuseLocked(ctx, "create a deployment");
    if (body.bypass_and_start === true) this.refuseBusy(ctx);
    const { sha, pkg } = this.resolveSha(ctx, body);
    const now = nowUnix();
    const state: DeploymentState =
      body.bypass_and_start === true ? "Queued" : bypass ? "Approved" : "Submitted";
    const d: DeploymentRecord = {
      id: 0,
      stack,
      env,
      state,
      ref_type: body.ref_type,
      ref: body.ref ?? "",
      sha,
      package: pkg,
      title: body.title ?? "",
      summary: body.summary ?? "",
      deployer: caller.email.toLowerCase(),
      locked: body.locked === true,
      changes: this.changes(ctx, sha, pkg),
      created: now,
      requested: now,
      approved: bypass ? now : 0,
      started: state === "Queued" ? now : 0,
      updated: now,
      failure: null,
    };
    const saved = this.store.tx(() => {
      const withId = { ...d, id: this.store.nextId("deployment") };
      this.store.saveDeployment(withId);
      return withId;
    });
    if (saved.state === "Queued") this.scheduleDeployment(saved.id);
    return saved;
  }

  startDeployment(caller: Caller, stack: string, env: string, id: number): DeploymentRecord {
    const role = this.stackRole(caller, stack);
    const ctx = this.envContext(stack, env);
    this.require(role, "deploy", ctx);
    const d = this.deploymentIn(ctx, id);
    this.refuseLocked(ctx, "start a deployment");
    if (d.state !== "Approved") {
      throw new HttpError(403, `This deployment has not been approved (deployment ${d.id} is ${d.state})`);
    }
    this.refuseBusy(ctx, d.id);
    const now = nowUnix();
    const started = this.store.tx(() =>
      this.move(d, "start", { started: now, changes: this.changes(ctx, d.sha, d.package) }),
    );
    this.scheduleDeployment(started.id);
    return started;
  }

  private refuseLockedByOther(caller: Caller, d: DeploymentRecord, doing: string): void {
    if (d.locked && d.deployer !== caller.email.toLowerCase()) {
      throw new HttpError(403, `Deployment ${d.id} is locked by ${d.deployer}; only they may ${doing} it`);
    }
  }

  /** Invalidate or (soft) delete: the same checks, then the transition named after the action. */
  private retire(
    caller: Caller,
    stack: string,
    env: string,
    id: number,
    via: "invalidate" | "delete",
  ): DeploymentRecord {
    const role = this.stackRole(caller, stack);
    const ctx = this.envContext(stack, env);
    this.require(role, "deploy", ctx);
    const d = this.deploymentIn(ctx, id);
    this.refuseLockedByOther(caller, d, via);
    return this.store.tx(() => this.move(d, via));
  }

  invalidateDeployment(caller: Caller, stack: string, env: string, id: number): DeploymentRecord {
    return this.retire(caller, stack, env, id, "invalidate");
  }

  deleteDeployment(caller: Caller, stack: string, env: string, id: number): void {
    this.retire(caller, stack, env, id, "delete");
  }

  /** A person approves or rejects in the dashboard (test hook): Submitted only. */
  review(stack: string, env: string, id: number, verdict: "approve" | "reject"): DeploymentRecord {
    const ctx = this.envContext(stack, env);
    const d = this.deploymentIn(ctx, id);
    if (d.state !== "Submitted") {
      throw new HttpError(400, `Cannot ${verdict} deployment ${d.id}: it is ${d.state}, not Submitted`);
    }
    const now = nowUnix();
    return this.store.tx(() => this.move(d, verdict, verdict === "approve" ? { approved: now } : {}));
  }

  scriptNextOutcome(stack: string, env: string, outcome: "fail"): void {
    const ctx = this.envContext(stack, env);
    this.store.tx(() => this.store.saveEnv({ ...ctx.live, next_outcome: outcome }));
  }

  /** Forgets every scripted stall (the reset hook). */
  clearStalls(): void {
    this.stalls.clear();
  }

  /** The next deployment that runs in the environment stays Deploying for `ms` (test hook). */
  stallNext(stack: string, env: string, ms: number): void {
    this.envContext(stack, env);
    this.stalls.set(envKey(stack, env), ms);
  }

  /** A deployment made by hand in the dashboard: created and completed at once (drift). */
  handDeploy(stack: string, env: string, sha: string): DeploymentRecord {
    const ctx = this.envContext(stack, env);
    this.refuseBusy(ctx);
    const s = this.store.stacks.get(stack);
    const person =
      s?.members.find((m) => m.role === "Stack Manager" || m.role === "Release Manager") ?? s?.members[0];
    const deployer = (
      person?.email ??
      this.store.seed.users[0]?.email ??
      "dashboard@example.com"
    ).toLowerCase();
    const now = nowUnix();
    return this.store.tx(() => {
      const d: DeploymentRecord = {
        id: this.store.nextId("deployment"),
        stack,
        env,
        state: "Completed",
        ref_type: "sha",
        ref: sha,
        sha,
        package: null,
        title: "Deployed by hand in the dashboard",
        summary: "",
        deployer,
        locked: false,
        changes: this.changes(ctx, sha, null),
        created: now,
        requested: now,
        approved: now,
        started: now,
        updated: now,
        failure: null,
      };
      this.store.saveDeployment(d);
      this.store.saveEnv({ ...ctx.live, build_sha: sha, build_package: null, current_build: d.id });
      return d;
    });
  }

  private scheduleDeployment(id: number): void {
    this.scheduler.step(() => this.advanceDeployment(id));
  }

  /** One worker step: Queued → Deploying → Completed (or Failed when scripted). */
  advanceDeployment(id: number): void {
    const d = this.store.deployments.get(id);
    if (d === undefined) return;
    if (d.state === "Queued") {
      this.store.tx(() => {
        const ctx = this.envContext(d.stack, d.env);
        const fail = ctx.live.next_outcome === "fail";
        if (fail) this.store.saveEnv({ ...ctx.live, next_outcome: null });
        this.move(d, "run", fail ? { failure: "scripted failure (next-outcome hook)" } : {});
      });
      const stall = this.stalls.get(envKey(d.stack, d.env));
      this.stalls.delete(envKey(d.stack, d.env));
      if (stall === undefined) this.scheduleDeployment(id);
      else this.scheduler.after(stall, () => this.advanceDeployment(id));
    } else if (d.state === "Deploying") {
      this.store.tx(() => {
        if (d.failure !== null) {
          this.move(d, "fail");
          return;
        }
        const done = this.move(d, "complete");
        const ctx = this.envContext(d.stack, d.env);
        this.store.saveEnv({
          ...ctx.live,
          build_sha: done.sha,
          build_package: done.package,
          current_build: done.id,
        });
      });
    } else if (d.state === "Aborting") {
      this.store.tx(() => this.move(d, "fail", { failure: "aborted" }));
    }
  }

  // ---- locks --------------------------------------------------------------------------------

  lock(caller: Caller, stack: string, env: string, message: string): void {
    const role = this.stackRole(caller, stack);
    const ctx = this.envContext(stack, env);
    this.require(role, "lock", ctx);
    this.store.tx(() => this.store.saveEnv({ ...ctx.live, locked: true, lock_message: message }));
  }

  unlock(caller: Caller, stack: string, env: string): void {
    const role = this.stackRole(caller, stack);
    const ctx = this.envContext(stack, env);
    this.require(role, "lock", ctx);
    this.store.tx(() => this.store.saveEnv({ ...ctx.live, locked: false, lock_message: "" }));
  }

  // ---- snapshots and transfers --------------------------------------------------------------

  /** The record `id` of `stack`; one of another stack answers 404 exactly like an unknown one. */
  private inStack<T extends { stack: string }>(
    records: ReadonlyMap<number, T>,
    what: string,
    stack: string,
    id: number,
  ): T {
    const record = records.get(id);
    if (record === undefined || record.stack !== stack)
      throw new HttpError(404, `${what} ${id} not found in stack '${stack}'`);
    return record;
  }

  snapshotIn(stack: string, id: number): SnapshotRecord {
    return this.inStack(this.store.snapshots, "Snapshot", stack, id);
  }

  transferIn(stack: string, id: number): TransferRecord {
    return this.inStack(this.store.transfers, "Transfer", stack, id);
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
  ) {
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

  createSnapshot(caller: Caller, stack: string, body: CreateSnapshotRequest): TransferRecord {
    const role = this.stackRole(caller, stack);
    const ctx = this.envFromField(stack, body.environment, "environment");
    this.require(role, "snapshot", ctx);
    this.refuseLocked(ctx, "take a snapshot");
    this.refuseTransferRunning(ctx);
    const t = this.store.tx(() => {
      const snap = this.newSnapshot(stack, ctx.env, body.mode, body.notes ?? null, false);
      const transfer: TransferRecord = {
        id: this.store.nextId("transfer"),
        stack,
        env: ctx.env,
        direction: "create",
        mode: body.mode,
        status: "n/a",
        include_resampled: body.include_resampled === true,
        skip_build: false,
        snapshot: null,
        pending_snapshot: snap.id,
        created: nowUnix(),
      };
      this.store.saveTransfer(transfer);
      return transfer;
    });
    this.scheduleTransfer(t.id);
    return t;
  }

  restoreSnapshot(caller: Caller, stack: string, id: number, body: RestoreSnapshotRequest): TransferRecord {
    const role = this.stackRole(caller, stack);
    const snap = this.snapshotIn(stack, id);
    const ctx = this.envFromField(stack, body.environment, "environment");
    this.require(role, "restore", ctx);
    this.refuseLocked(ctx, "restore a snapshot");
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
      const backupSnap = backup
        ? this.newSnapshot(
            stack,
            ctx.env,
            body.mode,
            `Automatic backup before restoring snapshot ${snap.id}`,
            true,
          )
        : null;
      const transfer: TransferRecord = {
        id: this.store.nextId("transfer"),
        stack,
        env: ctx.env,
        direction: "restore",
        mode: body.mode,
        status: "n/a",
        include_resampled: false,
        skip_build: body.skip_build === true,
        snapshot: snap.id,
        pending_snapshot: backupSnap?.id ?? null,
        created: nowUnix(),
      };
      this.store.saveTransfer(transfer);
      return transfer;
    });
    this.scheduleTransfer(t.id);
    return t;
  }

  deleteSnapshot(caller: Caller, stack: string, id: number): void {
    const role = this.stackRole(caller, stack);
    const snap = this.snapshotIn(stack, id);
    this.require(role, "snapshot", this.envContext(stack, snap.source));
    if (snap.status === "pending") {
      throw new HttpError(
        400,
        `Snapshot ${snap.id} cannot be deleted while it is being created (status 'pending')`,
      );
    }
    this.store.tx(() => this.store.deleteSnapshot(snap.id));
  }

  private scheduleTransfer(id: number): void {
    this.scheduler.step(() => this.advanceTransfer(id));
  }

  /** One worker step: n/a → Started → Running → Finished. */
  advanceTransfer(id: number): void {
    const t = this.store.transfers.get(id);
    if (t === undefined || isTransferFinished(t.status)) return;
    this.store.tx(() => {
      if (t.status === "n/a") {
        this.store.saveTransfer({ ...t, status: "Started" });
      } else if (t.status === "Started") {
        // A restore with a backup writes the backup first.
        if (t.direction === "restore") this.completeSnapshot(t.pending_snapshot);
        this.store.saveTransfer({ ...t, status: "Running" });
      } else {
        if (t.direction === "create") {
          this.completeSnapshot(t.pending_snapshot);
          this.store.saveTransfer({ ...t, status: "Finished", snapshot: t.pending_snapshot });
        } else {
          this.store.saveTransfer({ ...t, status: "Finished" });
        }
      }
    });
    const after = this.store.transfers.get(id);
    if (after !== undefined && !isTransferFinished(after.status)) this.scheduleTransfer(id);
  }

  private completeSnapshot(id: number | null): void {
    if (id === null) return;
    const s = this.store.snapshots.get(id);
    if (s === undefined || s.status !== "pending") return;
    const size = { all: 73_400_320, db: 5_242_880, assets: 68_157_440 }[s.mode] + (s.id % 997) * 1024;
    this.store.saveSnapshot({ ...s, status: "complete", size });
  }

  // ---- git fetches --------------------------------------------------------------------------

  createFetch(caller: Caller, stack: string): FetchRecord {
    this.stackRole(caller, stack);
    const f = this.store.tx(() => {
      const fetch: FetchRecord = { id: this.store.nextId("fetch"), stack, status: "n/a", created: nowUnix() };
      this.store.saveFetch(fetch);
      return fetch;
    });
    this.scheduler.step(() => this.advanceFetch(f.id));
    return f;
  }

  fetchIn(stack: string, id: number): FetchRecord {
    return this.inStack(this.store.fetches, "Fetch", stack, id);
  }

  /** One worker step: n/a → Started → Complete. */
  advanceFetch(id: number): void {
    const f = this.store.fetches.get(id);
    if (f === undefined || f.status === "Complete" || f.status === "Failed") return;
    const next = f.status === "n/a" ? "Started" : "Complete";
    this.store.tx(() => this.store.saveFetch({ ...f, status: next }));
    if (next !== "Complete") this.scheduler.step(() => this.advanceFetch(id));
  }

  /** After a restart: pick up every unfinished deployment, transfer and fetch where it stopped. */
  resume(): void {
    for (const d of this.store.deployments.values()) {
      if (isDeploymentInProgress(d.state)) this.scheduleDeployment(d.id);
    }
    for (const t of this.store.transfers.values()) {
      if (!isTransferFinished(t.status)) this.scheduleTransfer(t.id);
    }
    for (const f of this.store.fetches.values()) {
      if (f.status !== "Complete" && f.status !== "Failed")
        this.scheduler.step(() => this.advanceFetch(f.id));
    }
  }
}

function hash(text: string): string {
  return createHash("sha1").update(text).digest("hex");
}
