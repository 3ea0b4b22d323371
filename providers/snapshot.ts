/**
 * `Snapshot`: a snapshot of an environment, taken on create and waited for (type
 * `pulumi-nodejs:dynamic/stackwright:Snapshot`). Pass the resource option `retainOnDelete: true`
 * to keep it on the platform when the resource goes away.
 */
import * as pulumi from "@pulumi/pulumi";
import type { SnapshotMode } from "../src/api";
import { markerSeed } from "./identity";

export { check as checkSnapshot, diff as diffSnapshot } from "./runtime/snapshot";

/* eslint-disable @typescript-eslint/no-require-imports */
/** The dynamic provider of Snapshot. */
export const snapshotProvider: pulumi.dynamic.ResourceProvider = {
  configure: (req) => require("@stackwright/runtime").v1.configure(req),
  check: (olds, news) => require("@stackwright/runtime").v1.snapshot.check(olds, news),
  diff: (id, olds, news) => require("@stackwright/runtime").v1.snapshot.diff(id, olds, news),
  create: (inputs) => require("@stackwright/runtime").v1.snapshot.create(inputs),
  read: (id, props) => require("@stackwright/runtime").v1.snapshot.read(id, props),
  update: (id, olds, news) => require("@stackwright/runtime").v1.snapshot.update(id, olds, news),
  delete: (id, props) => require("@stackwright/runtime").v1.snapshot.delete(id, props),
};
/* eslint-enable @typescript-eslint/no-require-imports */

/** Inputs of {@link Snapshot}; every one but `timeout_seconds` replaces (a new snapshot). */
export interface SnapshotArgs {
  stack: pulumi.Input<string>;
  /** The environment the snapshot is taken from. */
  environment: pulumi.Input<string>;
  mode: pulumi.Input<SnapshotMode>;
  include_resampled?: pulumi.Input<boolean> | undefined;
  /** Free text; the provider appends its marker line. */
  notes?: pulumi.Input<string> | undefined;
  /** Bound of the wait in seconds. */
  timeout_seconds?: pulumi.Input<number> | undefined;
}

/** A snapshot of an environment. */
export class Snapshot extends pulumi.dynamic.Resource {
  /** The platform's snapshot id (use it in SnapshotRestore). */
  declare readonly snapshot_id: pulumi.Output<string>;
  declare readonly snapshot_status: pulumi.Output<string>;
  declare readonly size: pulumi.Output<string>;
  declare readonly created: pulumi.Output<string>;
  declare readonly download_link: pulumi.Output<string>;
  declare readonly marker: pulumi.Output<string>;

  constructor(name: string, args: SnapshotArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      snapshotProvider,
      name,
      {
        ...args,
        marker_seed: markerSeed("Snapshot", name),
        marker: undefined,
        snapshot_id: undefined,
        snapshot_status: undefined,
        size: undefined,
        created: undefined,
        download_link: undefined,
      },
      opts,
      "stackwright",
      "Snapshot",
    );
  }
}
