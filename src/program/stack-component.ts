/** One API stack (one file of stacks-config/): its environments and its record actions. */
import * as pulumi from "@pulumi/pulumi";
import type { StackConfig } from "../config";
import { RecordAction } from "../../providers";
import { EnvironmentComponent, type EnvironmentOutputs, type SnapshotIndex } from "./environment-component";

export class StackComponent extends pulumi.ComponentResource {
  readonly environments: Record<string, EnvironmentOutputs> = {};

  constructor(stack: StackConfig, opts?: pulumi.ComponentResourceOptions) {
    super("stackwright:index:Stack", stack.stack, {}, opts);
    const snapshots: SnapshotIndex = new Map();
    const components = Object.entries(stack.environments).map(
      ([name, config]) => new EnvironmentComponent(stack, name, config, snapshots, { parent: this }),
    );
    for (const component of components) component.declareRestores(snapshots);
    for (const component of components) this.environments[component.environment] = component.summary;
    for (const record of stack.records) {
      new RecordAction(
        `${stack.stack}/${record.class}/${record.id}/${record.method}`,
        { class_name: record.class, record_id: record.id, method: record.method, trigger: record.trigger },
        { parent: this },
      );
    }
    this.registerOutputs({});
  }
}
