import type { Role } from "../../api";
import { HttpError } from "../errors";
import type { EnvironmentRecord } from "../model";
import { envKey } from "../model";
import { type Action, isAllowed } from "../permissions";
import type { SeedEnvironment, SeedUser } from "../seed";
import type { Store } from "../store";

export type Caller = SeedUser & { id: number };

/** The environment an operation works on, resolved and checked. */
export interface EnvContext {
  stack: string;
  env: string;
  seed: SeedEnvironment;
  live: EnvironmentRecord;
  production: boolean;
}

const ACTION_WORDS: Record<Action, string> = {
  deploy: "deploy to",
  bypass: "bypass deployment approval on",
  approve: "approve deployments on",
  snapshot: "manage snapshots of",
  restore: "restore snapshots into",
  lock: "lock or unlock",
};

/**
 * Who may do what, checked in one place and always in the same order: membership of the stack
 * (404, exactly as for a stack that does not exist, so a non-member learns nothing), then the
 * environment (404), then the caller's role for the action (403 naming role, action and place).
 */
export class Access {
  constructor(private readonly store: Store) {}

  /** The caller's role on a stack; 404 when the stack does not exist or the caller is no member. */
  stack(caller: Caller, stack: string): Role {
    const role = this.store.stacks.has(stack) ? this.store.role(stack, caller.email) : undefined;
    if (role === undefined) throw new HttpError(404, `Stack '${stack}' not found`);
    return role;
  }

  /** Membership, then the environment, then (when actions are named) the role for each. */
  env(caller: Caller, stack: string, env: string, ...actions: Action[]): EnvContext {
    return this.check(this.stack(caller, stack), stack, env, actions);
  }

  /**
   * The environment, then the role for each action, for a caller whose membership is known.
   * `field` names the body field that named the environment: an unknown one is then a 400.
   */
  check(role: Role, stack: string, env: string, actions: readonly Action[], field?: string): EnvContext {
    const ctx = field === undefined ? this.envContext(stack, env) : this.envFromField(stack, env, field);
    for (const action of actions) this.require(role, action, ctx);
    return ctx;
  }

  /** The environment `env` of `stack` (no caller involved: hooks and workers use it too). */
  envContext(stack: string, env: string): EnvContext {
    const seed = this.store.seedEnvs.get(envKey(stack, env));
    const live = this.store.envs.get(envKey(stack, env));
    if (seed === undefined || live === undefined) {
      throw new HttpError(404, `Environment '${env}' not found in stack '${stack}'`);
    }
    return { stack, env, seed, live, production: seed.usage === "Production" };
  }

  /** Like envContext, for an environment named in a body field: unknown → 400 naming the field. */
  private envFromField(stack: string, env: string, field: string): EnvContext {
    if (this.store.seedEnvs.get(envKey(stack, env)) === undefined) {
      const known = this.store.stacks.get(stack)?.environments.map((e) => e.name) ?? [];
      throw new HttpError(
        400,
        `Invalid field '${field}': stack '${stack}' has no environment '${env}' (known: ${known.join(", ")})`,
      );
    }
    return this.envContext(stack, env);
  }

  /** 403 unless `role` may do `action` on the environment. */
  private require(role: Role, action: Action, ctx: EnvContext): void {
    if (!isAllowed(role, action, ctx.production)) {
      throw new HttpError(
        403,
        `Your role '${role}' may not ${ACTION_WORDS[action]} ${ctx.production ? "production " : ""}environment '${ctx.stack}/${ctx.env}'`,
      );
    }
  }
}

/** 409 when the environment is locked: `doing` says what was refused. */
export function refuseLocked(ctx: EnvContext, doing: string): void {
  if (ctx.live.locked) {
    const message = ctx.live.lock_message === "" ? "(no message)" : ctx.live.lock_message;
    throw new HttpError(409, `Environment '${ctx.stack}/${ctx.env}' is locked, cannot ${doing}: ${message}`);
  }
}

/** The record `id` of `stack`; one of another stack answers 404 exactly like an unknown one. */
export function inStack<T extends { stack: string }>(
  records: ReadonlyMap<number, T>,
  what: string,
  stack: string,
  id: number,
): T {
  const record = records.get(id);
  if (record === undefined || record.stack !== stack) {
    throw new HttpError(404, `${what} ${id} not found in stack '${stack}'`);
  }
  return record;
}
