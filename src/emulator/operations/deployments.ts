import { createHash } from "node:crypto";
import type { CreateDeploymentRequest, DeploymentState } from "../../api";
import { isDeploymentInProgress } from "../../api";
import { HttpError } from "../errors";
import { DEPLOYMENT_DEFAULTS, type DeploymentRecord, envKey } from "../model";
import type { Action } from "../permissions";
import type { Scheduler } from "../scheduler";
import { transition, type Transition } from "../state-machine";
import type { Store } from "../store";
import { nowUnix } from "../time";
import { type Access, type Caller, type EnvContext, refuseLocked } from "./access";
import { deploymentLog } from "./log-lines";

/** What a scripted failure says when the hook gave no reason. */
const SCRIPTED_FAILURE = "scripted failure (next-outcome hook)";

/** Deployments: create, start, invalidate, delete, the dashboard's hooks and the worker. */
export class Deployments {
  /** Deployments to hold in Deploying, by environment key: ms (test hook; not kept on disk). */
  private readonly stalls = new Map<string, number>();

  constructor(
    private readonly store: Store,
    private readonly scheduler: Scheduler,
    private readonly access: Access,
  ) {}

  /** Deployment `id` of the environment; one of another environment answers 404. */
  in(ctx: EnvContext, id: number): DeploymentRecord {
    const d = this.store.deployments.get(id);
    if (d === undefined || d.stack !== ctx.stack || d.env !== ctx.env) {
      throw new HttpError(404, `Deployment ${id} not found on '${ctx.stack}/${ctx.env}'`);
    }
    return d;
  }

  create(caller: Caller, stack: string, env: string, body: CreateDeploymentRequest): DeploymentRecord {
    const bypass = body.bypass === true || body.bypass_and_start === true;
    const actions: Action[] = bypass ? ["deploy", "bypass"] : ["deploy"];
    const ctx = this.access.env(caller, stack, env, ...actions);
    refuseLocked(ctx, "create a deployment");
    if (body.bypass_and_start === true) this.refuseBusy(ctx);
    const { sha, pkg } = this.resolveSha(ctx, body);
    const now = nowUnix();
    const state: DeploymentState =
      body.bypass_and_start === true ? "Queued" : bypass ? "Approved" : "Submitted";
    const saved = this.store.tx(() => {
      const d: DeploymentRecord = {
        ...DEPLOYMENT_DEFAULTS,
        id: this.store.nextId("deployment"),
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
        ignore_config_changes: body.ignore_config_changes === true,
        force_full: body.force_full === true,
        bypasser: bypass ? caller.email.toLowerCase() : null,
      };
      const next =
        state === "Queued"
          ? deploymentLog.queued(d)
          : state === "Approved"
            ? deploymentLog.approved()
            : deploymentLog.waiting();
      d.log = [deploymentLog.created(d), next];
      this.store.saveDeployment(d);
      return d;
    });
    if (saved.state === "Queued") this.schedule(saved.id);
    return saved;
  }

  start(caller: Caller, stack: string, env: string, id: number): DeploymentRecord {
    const ctx = this.access.env(caller, stack, env, "deploy");
    const d = this.in(ctx, id);
    refuseLocked(ctx, "start a deployment");
    if (d.state !== "Approved") {
      throw new HttpError(403, `This deployment has not been approved (deployment ${d.id} is ${d.state})`);
    }
    this.refuseBusy(ctx, d.id);
    const now = nowUnix();
    const started = this.store.tx(() =>
      this.move(d, "start", { started: now, changes: this.changes(ctx, d.sha, d.package) }, [
        deploymentLog.queued(d),
      ]),
    );
    this.schedule(started.id);
    return started;
  }

  invalidate(caller: Caller, stack: string, env: string, id: number): DeploymentRecord {
    return this.retire(caller, stack, env, id, "invalidate");
  }

  delete(caller: Caller, stack: string, env: string, id: number): void {
    this.retire(caller, stack, env, id, "delete");
  }

  /** A person approves or rejects in the dashboard (test hook): Submitted only. */
  review(
    stack: string,
    env: string,
    id: number,
    verdict: "approve" | "reject",
    reason = "rejected in the dashboard",
  ): DeploymentRecord {
    const d = this.in(this.access.envContext(stack, env), id);
    if (d.state !== "Submitted") {
      throw new HttpError(400, `Cannot ${verdict} deployment ${d.id}: it is ${d.state}, not Submitted`);
    }
    const now = nowUnix();
    return this.store.tx(() =>
      verdict === "approve"
        ? this.move(d, verdict, { approved: now, approver: reviewerOf(this.store, stack) }, [
            deploymentLog.approved(),
          ])
        : this.move(d, verdict, { rejected_reason: reason }, [deploymentLog.rejected(reason)]),
    );
  }

  /** The next deployment that runs in the environment fails with `reason` (test hook). */
  scriptNextOutcome(stack: string, env: string, outcome: "fail", reason = SCRIPTED_FAILURE): void {
    const ctx = this.access.envContext(stack, env);
    this.store.tx(() => this.store.saveEnv({ ...ctx.live, next_outcome: outcome, next_reason: reason }));
  }

  /** Forgets every scripted stall (the reset hook). */
  clearStalls(): void {
    this.stalls.clear();
  }

  /** The next deployment that runs in the environment stays Deploying for `ms` (test hook). */
  stallNext(stack: string, env: string, ms: number): void {
    this.access.envContext(stack, env);
    this.stalls.set(envKey(stack, env), ms);
  }

  /** A deployment made by hand in the dashboard: created and completed at once (drift). */
  handDeploy(
    stack: string,
    env: string,
    sha: string,
    from: { ref_type: "sha" | "branch" | "tag"; ref: string } = { ref_type: "sha", ref: sha },
  ): DeploymentRecord {
    const ctx = this.access.envContext(stack, env);
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
        ...DEPLOYMENT_DEFAULTS,
        id: this.store.nextId("deployment"),
        stack,
        env,
        state: "Completed",
        ref_type: from.ref_type,
        ref: from.ref,
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
      };
      d.log = [deploymentLog.created(d), deploymentLog.byHand(d), deploymentLog.finished(d)];
      this.store.saveDeployment(d);
      this.store.saveEnv({ ...ctx.live, build_sha: sha, build_package: null, current_build: d.id });
      return d;
    });
  }

  schedule(id: number): void {
    this.scheduler.step(() => this.advance(id));
  }

  /**
   * One worker step: Queued → Deploying (fetching), then building the sha, deploying it, and
   * Completed, or Failed with the reason a hook scripted. Each step adds its line to the log.
   */
  advance(id: number): void {
    const d = this.store.deployments.get(id);
    if (d === undefined) return;
    if (d.state === "Queued") {
      this.store.tx(() => {
        const ctx = this.access.envContext(d.stack, d.env);
        const failure = ctx.live.next_outcome === "fail" ? (ctx.live.next_reason ?? SCRIPTED_FAILURE) : null;
        if (failure !== null) this.store.saveEnv({ ...ctx.live, next_outcome: null, next_reason: null });
        const repository = this.store.stacks.get(d.stack)?.repository_url ?? "";
        this.move(d, "run", { failure, progress: 0 }, [deploymentLog.fetching(d, repository)]);
      });
      const stall = this.stalls.get(envKey(d.stack, d.env));
      this.stalls.delete(envKey(d.stack, d.env));
      if (stall === undefined) this.schedule(id);
      else this.scheduler.after(stall, () => this.advance(id));
    } else if (d.state === "Deploying" && d.progress < 2) {
      // Building a package gives it its sha (null until then, as on the platform).
      const built = d.progress === 0 && d.sha === null ? { ...d, sha: packageSha(d) } : d;
      const line = d.progress === 0 ? deploymentLog.building(built) : deploymentLog.deploying(built);
      this.store.tx(() => this.save(d, { progress: d.progress + 1, sha: built.sha }, [line]));
      this.schedule(id);
    } else if (d.state === "Deploying") {
      this.store.tx(() => {
        if (d.failure !== null) {
          this.move(d, "fail", {}, [deploymentLog.failed(d.failure)]);
          return;
        }
        const done = this.move(d, "complete", {}, [deploymentLog.finished(d)]);
        const ctx = this.access.envContext(d.stack, d.env);
        this.store.saveEnv({
          ...ctx.live,
          build_sha: done.sha ?? ctx.live.build_sha,
          build_package: done.package,
          current_build: done.id,
        });
      });
    } else if (d.state === "Aborting") {
      this.store.tx(() => this.move(d, "fail", { failure: "aborted" }, [deploymentLog.failed("aborted")]));
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
    const ctx = this.access.env(caller, stack, env, "deploy");
    const d = this.in(ctx, id);
    if (d.locked && d.deployer !== caller.email.toLowerCase()) {
      throw new HttpError(403, `Deployment ${d.id} is locked by ${d.deployer}; only they may ${via} it`);
    }
    return this.store.tx(() =>
      this.move(d, via, {}, via === "invalidate" ? [deploymentLog.invalidated()] : []),
    );
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

  /** Moves `d` by `via` (400 when the state machine refuses), adding `lines` to its log. */
  private move(
    d: DeploymentRecord,
    via: Transition,
    extra: Partial<DeploymentRecord>,
    lines: readonly string[],
  ): DeploymentRecord {
    const result = transition(d.state, via);
    if (!result.ok) throw new HttpError(400, `${result.message}: deployment ${d.id}`);
    return this.save(d, { ...extra, state: result.to }, lines);
  }

  private save(
    d: DeploymentRecord,
    extra: Partial<DeploymentRecord>,
    lines: readonly string[],
  ): DeploymentRecord {
    const next: DeploymentRecord = { ...d, ...extra, log: [...d.log, ...lines], updated: nowUnix() };
    this.store.saveDeployment(next);
    return next;
  }

  private resolveSha(
    ctx: EnvContext,
    body: CreateDeploymentRequest,
  ): { sha: string | null; pkg: string | null } {
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
        return { sha: this.access.envContext(ctx.stack, uat.name).live.build_sha, pkg: null };
      }
      case "redeploy":
        return { sha: ctx.live.build_sha, pkg: ctx.live.build_package };
      case "package":
        // The package is built once the deployment runs: until then the platform knows no sha.
        return { sha: null, pkg: ref };
    }
  }

  private changes(ctx: EnvContext, sha: string | null, pkg: string | null): DeploymentRecord["changes"] {
    const changes: DeploymentRecord["changes"] =
      sha === null ? {} : { "Code version": { from: ctx.live.build_sha.slice(0, 7), to: sha.slice(0, 7) } };
    if (pkg !== null || ctx.live.build_package !== null) {
      changes["Package"] = { from: ctx.live.build_package ?? "", to: pkg ?? "" };
    }
    return changes;
  }
}

function hash(text: string): string {
  return createHash("sha1").update(text).digest("hex");
}

/** The sha a package deployment gets when the worker builds it: stable for the package. */
function packageSha(d: DeploymentRecord): string {
  return hash(`${d.stack}:package:${d.package ?? d.ref}`);
}

/** Who approves in the dashboard: the stack's first manager, as the hand deployment's person. */
function reviewerOf(store: Store, stack: string): string | null {
  const s = store.stacks.get(stack);
  const person =
    s?.members.find((m) => m.role === "Stack Manager" || m.role === "Release Manager") ?? s?.members[0];
  return person?.email.toLowerCase() ?? null;
}
