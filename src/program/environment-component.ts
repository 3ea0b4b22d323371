/**
 * One environment of one API stack: its deployment, its lock, the snapshots taken from it and
 * the restores into it, ordered the way an operator would do them by hand.
 */
import { createHash } from "node:crypto";
import * as pulumi from "@pulumi/pulumi";
import type { EnvironmentConfig, StackConfig } from "../config";
import { resolveRestoreSnapshot, verifySpecOf } from "../config";
import {
  deploymentWithDriftCheck,
  EnvironmentLock,
  Snapshot,
  SnapshotRestore,
  type Deployment,
  type DeploymentArgs,
  type SnapshotArgs,
  type SnapshotRestoreArgs,
} from "../../providers";
import { summaryWithOverride, windowOverrideNote } from "./windows";

/** What a person wants to read about an environment after a run. */
export interface EnvironmentOutputs {
  deployment?: {
    id: pulumi.Output<string>;
    state: pulumi.Output<string>;
    /** Null while a package deployment is not built yet. */
    sha: pulumi.Output<string | null>;
    /** Null when the platform sent no link. */
    link: pulumi.Output<string | null>;
  };
  lock?: { message: pulumi.Output<string> };
  snapshots: Record<string, pulumi.Output<string>>;
  restores: Record<string, pulumi.Output<string>>;
}

/** Snapshots by logical name across the stack, so a restore anywhere in the stack can use them. */
export type SnapshotIndex = Map<string, Snapshot>;

/**
 * The environment's snapshots and restores, each named with a digest of the inputs that make a
 * new one: the lock resource fails the preview when one appears while the lock stays. A
 * snapshot's notes make no new one (they apply to the next snapshot taken), so its digest leaves
 * them out, after `#` where the holds of earlier releases (which hashed the notes) had `@`.
 */
export function holdsOf(config: EnvironmentConfig): string[] {
  const digest = (value: unknown) =>
    createHash("sha256").update(JSON.stringify(value)).digest("hex").slice(0, 8);
  const snapshots = Object.entries(config.snapshots).map(
    ([logical, s]) => `snapshot ${logical}#${digest([s.mode, s.include_resampled])}`,
  );
  const restores = Object.entries(config.restores).map(
    ([logical, r]) =>
      `restore ${logical}@${digest([r.snapshot, r.mode, r.skip_build, r.backup_existing_data ?? null, r.confirm, r.trigger ?? ""])}`,
  );
  return [...snapshots, ...restores].sort();
}

/**
 * A YAML block passed on as the arguments of a resource (`Args`), without `key` (a field the
 * program turns into something else). A field of the block that is not an argument fails to
 * compile here, instead of failing the resource's `check` at run time.
 */
function passOn<Args>() {
  return <T extends object, K extends keyof T>(
    block: T & { [Extra in Exclude<keyof T, K | keyof Args>]: never },
    key: K,
  ): Omit<T, K> => {
    const { [key]: _dropped, ...rest } = block;
    return rest;
  };
}

export class EnvironmentComponent extends pulumi.ComponentResource {
  readonly summary: EnvironmentOutputs;
  readonly deployment: Deployment | undefined;
  private readonly restoreArgs: Array<[string, EnvironmentConfig["restores"][string]]>;
  private readonly lock: EnvironmentLock;
  private readonly locked: boolean;
  /** Everything the lock of a locked environment waits for: deployment, snapshots, restores. */
  private readonly work: pulumi.Resource[] = [];
  private releaseLock: (work: pulumi.Resource[]) => void = () => {};
  /**
   * The environment's latest snapshot or restore: the platform runs one transfer per environment
   * at a time (a second answers 409), so each waits for the one declared before it.
   */
  private lastTransfer: pulumi.Resource | undefined = undefined;

  /** What a new transfer on this environment waits for (`dependsOn` entries). */
  private previousTransfer(): pulumi.Resource[] {
    return this.lastTransfer === undefined ? [] : [this.lastTransfer];
  }

  constructor(
    private readonly stack: StackConfig,
    readonly environment: string,
    config: EnvironmentConfig,
    snapshots: SnapshotIndex,
    opts?: pulumi.ComponentResourceOptions,
  ) {
    const name = `${stack.stack}/${environment}`;
    super("stackwright:index:Environment", name, {}, opts);
    const child = { parent: this };
    const where = { stack: stack.stack, environment };

    // One lock resource per environment, unlocked where the desired state has no lock, so that an
    // unlock is an update ordered before the deployment rather than a delete run last.
    // A lock waits for the environment's work, known once the restores are declared.
    const lockAfter = new Promise<pulumi.Resource[]>((resolve) => {
      this.releaseLock = resolve;
    });
    const lock = new EnvironmentLock(
      name,
      {
        ...where,
        message: config.lock?.message ?? "",
        locked: config.lock !== undefined,
        holds: holdsOf(config),
      },
      config.lock === undefined ? child : { ...child, dependsOn: lockAfter },
    );
    // Unlock, then deploy, snapshot and restore; or deploy, snapshot and restore, then lock.
    const afterUnlock = config.lock === undefined ? { ...child, dependsOn: [lock] } : child;

    // The YAML's deployment is the resource's arguments, but for the wait bound (`timeout`,
    // already in seconds) and the lock the environment keeps (a change under it fails the preview).
    const d = config.deployment;
    this.deployment =
      d === undefined
        ? undefined
        : deploymentWithDriftCheck(
            name,
            {
              ...where,
              ...passOn<DeploymentArgs>()(d, "timeout"),
              // With --override-window where windows are closed, the reason is recorded here.
              summary: summaryWithOverride(d.summary, windowOverrideNote(stack, config)),
              timeout_seconds: d.timeout,
              environment_lock: config.lock?.message,
              verify: verifySpecOf(stack, config),
            },
            afterUnlock,
          );

    const taken: Record<string, pulumi.Output<string>> = {};
    for (const [logical, s] of Object.entries(config.snapshots)) {
      const snapshot = new Snapshot(
        `${name}/${logical}`,
        { ...where, ...passOn<SnapshotArgs>()(s, "retain") },
        {
          ...child,
          dependsOn: [...(config.lock === undefined ? [lock] : []), ...this.previousTransfer()],
          retainOnDelete: s.retain,
        },
      );
      this.lastTransfer = snapshot;
      snapshots.set(logical, snapshot);
      this.work.push(snapshot);
      taken[logical] = snapshot.snapshot_id;
    }

    this.restoreArgs = Object.entries(config.restores);
    this.lock = lock;
    this.locked = config.lock !== undefined;
    this.summary = {
      ...(this.deployment === undefined
        ? {}
        : {
            deployment: {
              id: this.deployment.deployment_id,
              state: this.deployment.state,
              sha: this.deployment.sha,
              link: this.deployment.link,
            },
          }),
      ...(config.lock === undefined ? {} : { lock: { message: lock.lock_message } }),
      snapshots: taken,
      restores: {},
    };
    this.registerOutputs({});
  }

  /**
   * Declares the restores once every snapshot of the stack exists, so that a restore of a
   * snapshot declared on another environment depends on it (snapshot before restore).
   */
  declareRestores(snapshots: SnapshotIndex): void {
    const name = `${this.stack.stack}/${this.environment}`;
    for (const [logical, r] of this.restoreArgs) {
      const ref = resolveRestoreSnapshot(this.stack, r);
      const snapshot = ref.kind === "declared" ? snapshots.get(ref.name) : undefined;
      const restore = new SnapshotRestore(
        `${name}/${logical}`,
        {
          stack: this.stack.stack,
          environment: this.environment,
          ...passOn<SnapshotRestoreArgs>()(r, "snapshot"),
          // The restore's own setting is the snapshot as the file names it; the id it stands for
          // follows a declared snapshot taken anew without running the restore again.
          snapshot: r.snapshot,
          snapshot_id: snapshot === undefined ? (ref.kind === "id" ? ref.id : "") : snapshot.snapshot_id,
        },
        // After this environment's deployment: restoring data under a build about to change
        // would be undone by the deployment's own build step. After the unlock, if any, and
        // after the environment's previous transfer.
        {
          parent: this,
          dependsOn: [
            ...(this.deployment === undefined ? [] : [this.deployment]),
            ...(this.locked ? [] : [this.lock]),
            ...this.previousTransfer(),
          ],
        },
      );
      this.lastTransfer = restore;
      this.work.push(restore);
      this.summary.restores[logical] = restore.status;
    }
    this.releaseLock([...(this.deployment === undefined ? [] : [this.deployment]), ...this.work]);
  }
}
