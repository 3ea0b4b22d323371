/**
 * `RecordAction`: runs a method on a record of the generic record server (type
 * `pulumi-nodejs:dynamic/stackwright:RecordAction`). Change `trigger` to run it again.
 */
import * as pulumi from "@pulumi/pulumi";

export { check as checkRecordAction, diff as diffRecordAction } from "./runtime/record-action";

/* eslint-disable @typescript-eslint/no-require-imports */
/** The dynamic provider of RecordAction. */
export const recordActionProvider: pulumi.dynamic.ResourceProvider = {
  configure: (req) => require("@stackwright/runtime").v1.configure(req),
  check: (olds, news) => require("@stackwright/runtime").v1.recordAction.check(olds, news),
  diff: (id, olds, news) => require("@stackwright/runtime").v1.recordAction.diff(id, olds, news),
  create: (inputs) => require("@stackwright/runtime").v1.recordAction.create(inputs),
  delete: (id, props) => require("@stackwright/runtime").v1.recordAction.delete(id, props),
};
/* eslint-enable @typescript-eslint/no-require-imports */

/** Inputs of {@link RecordAction}; every one replaces (runs the method again). */
export interface RecordActionArgs {
  /** The model class, e.g. `Page`. */
  class_name: pulumi.Input<string>;
  /** The record's id. */
  record_id: pulumi.Input<string | number>;
  /** The method, e.g. `publish`. */
  method: pulumi.Input<string>;
  trigger?: pulumi.Input<string> | undefined;
}

/** A method run on a record. */
export class RecordAction extends pulumi.dynamic.Resource {
  /** What the method returned. */
  declare readonly result: pulumi.Output<string>;

  constructor(name: string, args: RecordActionArgs, opts?: pulumi.CustomResourceOptions) {
    super(recordActionProvider, name, { ...args, result: undefined }, opts, "stackwright", "RecordAction");
  }
}
