/** The contract of `Deployment`: a deployment of a ref to an environment. */
import { z } from "zod";
import {
  ApprovalMode,
  BuildVerdict,
  DeploymentAttributes,
  RefType,
  Verification,
  VerifySpec,
  checkRef,
} from "../../src/api";
import { MARKER_INPUTS, NumericId, PathName, TimeoutSeconds, defineContract } from "./contract";

export const deploymentContract = defineContract({
  type: "Deployment",
  kind: "deployment",
  inputs: z
    .strictObject({
      /** The API stack (project) name. Replaces when changed. */
      stack: PathName,
      /** The environment name. Replaces when changed. */
      environment: PathName,
      /** What to deploy. Replaces when changed. */
      ref_type: RefType,
      /** Branch, tag, sha or package; empty for promote_from_uat and redeploy. Replaces when changed. */
      ref: z.string().optional(),
      /** Title; a change never redeploys. */
      title: z.string().optional(),
      /** Summary; a change never redeploys. The provider appends its marker line. */
      summary: z.string().optional(),
      /** `bypass_and_start` (default), `bypass` (then start), `request` (a person approves). */
      approval: ApprovalMode.optional(),
      /** Fetch the repository before creating the deployment. */
      fetch_first: z.boolean().optional(),
      /** Wait for a finished state (default true). */
      wait: z.boolean().optional(),
      /** Bound of the wait in seconds (default: the client's poll timeout, 30 min). */
      timeout_seconds: TimeoutSeconds.optional(),
      /** Redeploy when the environment drifted (a hand deployment); otherwise only warn. */
      self_heal: z.boolean().optional(),
      /** Change to redeploy the same ref. Replaces when changed. */
      trigger: z.string().optional(),
      /** The API's `locked` flag (others cannot delete or change the deployment). */
      locked: z.boolean().optional(),
      /** Id of an existing deployment to claim instead of creating one. Replaces when changed. */
      adopt: NumericId.optional(),
      /** The environment's live build sha, read during the run (see deploymentWithDriftCheck). */
      observed_sha: z.string().optional(),
      /**
       * The message of the lock the desired state keeps on this environment, if any. A deployment
       * that would change while the lock was already there and stays fails in preview, naming it.
       */
      environment_lock: z.string().optional(),
      /**
       * The checks to run once the deployment is Completed (`verify:`); a change alone never
       * redeploys (the next deployment is checked with it).
       */
      verify: VerifySpec.optional(),
      /** The environment's URL, read during the run with `observed_sha` (a `path` check joins it). */
      environment_url: z.string().optional(),
      ...MARKER_INPUTS,
    })
    // An adopted deployment may leave out the ref its type names.
    .superRefine((v, ctx) => checkRef(v, ctx, { refMayBeOmitted: v.adopt !== undefined })),
  outputs: DeploymentAttributes.pick({ state: true }).extend({
    /** Null while a package deployment is not built yet (the platform sends no sha then). */
    sha: DeploymentAttributes.shape.sha.nullable(),
    short_sha: DeploymentAttributes.shape.short_sha.nullable(),
    /** Null when the platform did not say. */
    is_current_build: DeploymentAttributes.shape.is_current_build.nullable(),
    /** The platform's deployment id. */
    deployment_id: z.string(),
    /** Link to the deployment; null when the platform sent none. */
    link: z.string().nullable(),
    /** The marker embedded in the summary (crash safety). */
    marker: z.string(),
    /**
     * What the checks of `verify` found about this deployment; null without `verify`. A run that
     * makes no deployment keeps the record of the one it verified.
     */
    verification: Verification.nullable(),
    /**
     * The verdicts on the builds this environment ran, newest first, one per sha and bounded: a
     * replacement starts from its predecessor's, so a rollback never goes back to a build that
     * failed verification before. Absent from states written before it was kept.
     */
    verdicts: z.array(BuildVerdict).optional(),
  }),
  replaceKeys: ["stack", "environment", "ref_type", "ref", "trigger", "adopt"],
});
