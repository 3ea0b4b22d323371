/**
 * `SnapshotRestore`: restores a snapshot into an environment and waits (type
 * `pulumi-nodejs:dynamic/stackwright:SnapshotRestore`). Deleting it undoes nothing.
 */
import * as pulumi from "@pulumi/pulumi";
import type { SnapshotMode } from "../src/api";

export { check as checkSnapshotRestore, diff as diffSnapshotRestore } from "./runtime/snapshot-restore";

/* eslint-disable @typescript-eslint/no-require-imports */
/** The dynamic provider of SnapshotRestore. */
export const snapshotRestoreProvider: pulumi.dynamic.ResourceProvider = {
  configure: (req) => require("@stackwright/runtime").v1.configure(req),
  check: (olds, news) => require("@stackwright/runtime").v1.snapshotRestore.check(olds, news),
  diff: (id, olds, news) => require("@stackwright/runtime").v1.snapshotRestore.diff(id, olds, news),
  create: (inputs) => require("@stackwright/runtime").v1.snapshotRestore.create(inputs),
  read: (id, props) => require("@stackwright/runtime").v1.snapshotRestore.read(id, props),
  update: (id, olds, news) => require("@stackwright/runtime").v1.snapshotRestore.update(id, olds, news),
  delete: (id, props) => require("@stackwright/runtime").v1.snapshotRestore.delete(id, props),
};
/* eslint-enable @typescript-eslint/no-require-imports */

/** Inputs of {@link SnapshotRestore}; every one but `timeout_seconds` replaces (a new restore). */
export interface SnapshotRestoreArgs {
  stack: pulumi.Input<string>;
  /** The target environment. */
  environment: pulumi.Input<string>;
  /** The snapshot to restore (e.g. a Snapshot's `snapshot_id`). */
  snapshot_id: pulumi.Input<string>;
  mode: pulumi.Input<SnapshotMode>;
  skip_build?: pulumi.Input<boolean> | undefined;
  backup_existing_data?: pulumi.Input<boolean> | undefined;
  /** Must equal `environment`: a restore overwrites the environment's data. */
  confirm: pulumi.Input<string>;
  /** Change to restore again. */
  trigger?: pulumi.Input<string> | undefined;
  timeout_seconds?: pulumi.Input<number> | undefined;
}

/** A restore of a snapshot into an environment. */
export class SnapshotRestore extends pulumi.dynamic.Resource {
  declare readonly transfer_id: pulumi.Output<string>;
  declare readonly status: pulumi.Output<string>;

  constructor(name: string, args: SnapshotRestoreArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      snapshotRestoreProvider,
      name,
      { ...args, transfer_id: undefined, status: undefined },
      opts,
      "stackwright",
      "SnapshotRestore",
    );
  }
}
