import type { EnvironmentConfig } from "./schema";

/**
 * Lock rules of design.md §3 that need the live state, so the config layer cannot enforce them
 * while loading: a locked environment refuses new deployments, snapshots and restores (the API
 * answers 409). A lock that is being added or removed in the same change is fine: the program
 * orders unlock → deploy, or deploy → lock. Only an environment that is locked before and after
 * the change, and whose deployment, snapshots or restores change, can never apply.
 */

/** What the program knows about one environment before applying a change. */
export interface EnvironmentChange {
  /** The environment is locked on the platform now (from the previous state or a data source). */
  readonly lockedNow: boolean;
  /** The desired deployment differs from the deployed one (a create or a replace is planned). */
  readonly deploymentChanges: boolean;
  /** Logical names of snapshots that will be taken in this change. */
  readonly newSnapshots?: readonly string[];
  /** Logical names of restores that will run in this change. */
  readonly newRestores?: readonly string[];
}

/** One reason why a planned change cannot apply on a locked environment. */
export interface LockViolation {
  readonly stack: string;
  readonly environment: string;
  /** What would be refused: `deployment`, `snapshots.<name>` or `restores.<name>`. */
  readonly path: string;
  /** A message naming the lock, for a preview failure. */
  readonly message: string;
}

/**
 * Returns the planned changes that a lock kept in place would refuse. Empty when the environment
 * is unlocked now, or when the config removes the lock (the program unlocks first), or when
 * nothing that a lock refuses changes.
 */
export function lockViolations(
  stack: string,
  environment: string,
  desired: EnvironmentConfig,
  change: EnvironmentChange,
): LockViolation[] {
  if (!change.lockedNow || desired.lock === undefined) return [];
  const lock = desired.lock.message === "" ? "a lock" : `a lock ("${desired.lock.message}")`;
  const where = `environment '${environment}' of stack '${stack}'`;
  const advice = "remove the lock in the same change, or revert this change until the lock is lifted";
  const violations: LockViolation[] = [];
  if (change.deploymentChanges) {
    violations.push({
      stack,
      environment,
      path: "deployment",
      message: `${where} keeps ${lock}, so its deployment cannot change; ${advice}`,
    });
  }
  for (const name of change.newSnapshots ?? []) {
    violations.push({
      stack,
      environment,
      path: `snapshots.${name}`,
      message: `${where} keeps ${lock}, so snapshot '${name}' cannot be taken; ${advice}`,
    });
  }
  for (const name of change.newRestores ?? []) {
    violations.push({
      stack,
      environment,
      path: `restores.${name}`,
      message: `${where} keeps ${lock}, so restore '${name}' cannot run; ${advice}`,
    });
  }
  return violations;
}
