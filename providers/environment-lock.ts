/**
 * `EnvironmentLock`: the environment is locked while this resource exists (type
 * `pulumi-nodejs:dynamic/stackwright:EnvironmentLock`). The provider is a capture-free shim over
 * `@stackwright/runtime`.
 */
import * as pulumi from "@pulumi/pulumi";

export { check as checkEnvironmentLock, diff as diffEnvironmentLock } from "./runtime/environment-lock";

/* eslint-disable @typescript-eslint/no-require-imports */
/** The dynamic provider of EnvironmentLock. No read: the API has no endpoint to read a lock. */
export const environmentLockProvider: pulumi.dynamic.ResourceProvider = {
  configure: (req) => require("@stackwright/runtime").v1.configure(req),
  check: (olds, news) => require("@stackwright/runtime").v1.environmentLock.check(olds, news),
  diff: (id, olds, news) => require("@stackwright/runtime").v1.environmentLock.diff(id, olds, news),
  create: (inputs) => require("@stackwright/runtime").v1.environmentLock.create(inputs),
  update: (id, olds, news) => require("@stackwright/runtime").v1.environmentLock.update(id, olds, news),
  delete: (id, props) => require("@stackwright/runtime").v1.environmentLock.delete(id, props),
};
/* eslint-enable @typescript-eslint/no-require-imports */

/** Inputs of {@link EnvironmentLock}. */
export interface EnvironmentLockArgs {
  /** Replaces when changed. */
  stack: pulumi.Input<string>;
  /** Replaces when changed. */
  environment: pulumi.Input<string>;
  /** Why the environment is locked; a change re-locks in place. */
  message?: pulumi.Input<string> | undefined;
  /**
   * Whether the environment should be locked (default true). `false` unlocks it in place, as an
   * update that can be ordered before the environment's deployment; an environment this resource
   * never locked is not touched.
   */
  locked?: pulumi.Input<boolean> | undefined;
  /**
   * The environment's snapshots and restores, each named with the inputs that make a new one. A
   * name that appears while the lock stays fails the preview, naming the lock: the platform would
   * refuse that work.
   */
  holds?: pulumi.Input<pulumi.Input<string>[]> | undefined;
}

/** An environment's lock as Stackwright manages it: no deployments or snapshots while locked. */
export class EnvironmentLock extends pulumi.dynamic.Resource {
  declare readonly locked: pulumi.Output<boolean>;
  declare readonly lock_message: pulumi.Output<string>;

  constructor(name: string, args: EnvironmentLockArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      environmentLockProvider,
      name,
      { ...args, locked: args.locked ?? true, lock_message: undefined },
      opts,
      "stackwright",
      "EnvironmentLock",
    );
  }
}
