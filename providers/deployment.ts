/**
 * `Deployment`: a deployment of a ref to an environment (type
 * `pulumi-nodejs:dynamic/stackwright:Deployment`).
 *
 * The provider object below is what the SDK serializes into every resource's state. Its methods
 * reach the compiled runtime by package name inside each call and capture nothing, so the
 * serialized text stays a few hundred bytes and carries no client, token or module state.
 */
import * as pulumi from "@pulumi/pulumi";
import type { RefType } from "../src/api";
import { markerSeed } from "./identity";
import type { ApprovalMode } from "./runtime/deployment";

export {
  check as checkDeployment,
  diff as diffDeployment,
  hasDrift,
  DeploymentInputs,
} from "./runtime/deployment";
export type { ApprovalMode } from "./runtime/deployment";

/* eslint-disable @typescript-eslint/no-require-imports */
/** The dynamic provider of Deployment: a shim over `@stackwright/runtime`. */
export const deploymentProvider: pulumi.dynamic.ResourceProvider = {
  configure: (req) => require("@stackwright/runtime").v1.configure(req),
  check: (olds, news) => require("@stackwright/runtime").v1.deployment.check(olds, news),
  diff: (id, olds, news) => require("@stackwright/runtime").v1.deployment.diff(id, olds, news),
  create: (inputs) => require("@stackwright/runtime").v1.deployment.create(inputs),
  read: (id, props) => require("@stackwright/runtime").v1.deployment.read(id, props),
  update: (id, olds, news) => require("@stackwright/runtime").v1.deployment.update(id, olds, news),
  delete: (id, props) => require("@stackwright/runtime").v1.deployment.delete(id, props),
};
/* eslint-enable @typescript-eslint/no-require-imports */

/** Inputs of {@link Deployment}; names are the API's and the YAML's. */
export interface DeploymentArgs {
  /** The API stack (project) name. Replaces when changed. */
  stack: pulumi.Input<string>;
  /** The environment name. Replaces when changed. */
  environment: pulumi.Input<string>;
  /** What to deploy. Replaces when changed. */
  ref_type: pulumi.Input<RefType>;
  /** Branch, tag, sha or package; empty for promote_from_uat and redeploy. Replaces when changed. */
  ref?: pulumi.Input<string> | undefined;
  /** Title; a change never redeploys. */
  title?: pulumi.Input<string> | undefined;
  /** Summary; a change never redeploys. The provider appends its marker line. */
  summary?: pulumi.Input<string> | undefined;
  /** `bypass_and_start` (default), `bypass` (then start), `request` (a person approves). */
  approval?: pulumi.Input<ApprovalMode> | undefined;
  /** Fetch the repository before creating the deployment. */
  fetch_first?: pulumi.Input<boolean> | undefined;
  /** Wait for a finished state (default true). */
  wait?: pulumi.Input<boolean> | undefined;
  /** Bound of the wait in seconds (default: the client's poll timeout, 30 min). */
  timeout_seconds?: pulumi.Input<number> | undefined;
  /** Redeploy when the environment drifted (a hand deployment); otherwise only warn. */
  self_heal?: pulumi.Input<boolean> | undefined;
  /** Change to redeploy the same ref. Replaces when changed. */
  trigger?: pulumi.Input<string> | undefined;
  /** The API's `locked` flag (others cannot delete or change the deployment). */
  locked?: pulumi.Input<boolean> | undefined;
  /** Id of an existing deployment to claim instead of creating one. Replaces when changed. */
  adopt?: pulumi.Input<string> | undefined;
  /** The environment's live build sha, read during the run (see deploymentWithDriftCheck). */
  observed_sha?: pulumi.Input<string> | undefined;
  /**
   * The message of the lock the desired state keeps on this environment, if any. A deployment
   * that would change while the lock was already there and stays fails in preview, naming it.
   */
  environment_lock?: pulumi.Input<string> | undefined;
}

/** A deployment of a ref to an environment; see design §3. */
export class Deployment extends pulumi.dynamic.Resource {
  /** The platform's deployment id. */
  declare readonly deployment_id: pulumi.Output<string>;
  /** Last state seen (Completed, Submitted, ...). */
  declare readonly state: pulumi.Output<string>;
  /** The deployed commit. */
  declare readonly sha: pulumi.Output<string>;
  declare readonly short_sha: pulumi.Output<string>;
  /** Link to the deployment. */
  declare readonly link: pulumi.Output<string>;
  declare readonly is_current_build: pulumi.Output<boolean>;
  /** The marker embedded in the summary (crash safety). */
  declare readonly marker: pulumi.Output<string>;
  /** The observed live sha recorded at the last create or update. */
  declare readonly observed_sha: pulumi.Output<string | undefined>;
  declare readonly stack: pulumi.Output<string>;
  declare readonly environment: pulumi.Output<string>;

  constructor(name: string, args: DeploymentArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      deploymentProvider,
      name,
      {
        ...args,
        observed_sha: args.observed_sha,
        marker_seed: markerSeed("Deployment", name),
        marker: undefined,
        deployment_id: undefined,
        state: undefined,
        sha: undefined,
        short_sha: undefined,
        link: undefined,
        is_current_build: undefined,
      },
      opts,
      "stackwright",
      "Deployment",
    );
  }
}
