/**
 * Drift detection without `--refresh`: the program reads the environment's live `build_sha`
 * (a data source, during preview too) and passes it to the Deployment as `observed_sha`. The
 * provider's `diff` compares it with the sha the last reconcile deployed: with `self_heal` that
 * is a planned redeploy (a replacement); without it the helper below logs a warning that names
 * the environment, the desired sha and the live sha.
 */
import * as pulumi from "@pulumi/pulumi";
import { fetchEnvironment } from "../data/environment";
import { Deployment, type DeploymentArgs } from "./resources";

/** Arguments of {@link deploymentWithDriftCheck}: a Deployment's, with plain stack and environment. */
export interface DriftCheckedDeploymentArgs
  extends Omit<DeploymentArgs, "observed_sha" | "stack" | "environment"> {
  stack: string;
  environment: string;
}

/** The text of the drift warning (exported for tests). */
export function driftWarning(
  stack: string,
  environment: string,
  desired: string,
  live: string,
  /** The lock that holds a self-heal back, when that is why this is only a warning. */
  deferredBy?: string,
): string {
  const next =
    deferredBy === undefined
      ? "Set self_heal: true to redeploy, or change trigger."
      : `The environment is locked ("${deferredBy}"): self_heal redeploys once the lock is lifted.`;
  return (
    `Drift on ${stack}/${environment}: the last reconcile deployed ${desired}, but the environment runs ${live} ` +
    `(a deployment made by hand). ${next}`
  );
}

/**
 * Declares a Deployment that also sees hand deployments. Reads the environment once per run
 * (memoised), passes its live `build_sha` as `observed_sha`, and warns about drift when
 * `self_heal` is off or a lock freezes the environment. The warning runs only when the resource
 * keeps its recorded outputs (no create or replacement in this run), judged by the recorded
 * `observed_sha` differing from the live one.
 */
export function deploymentWithDriftCheck(
  name: string,
  args: DriftCheckedDeploymentArgs,
  opts?: pulumi.CustomResourceOptions,
): Deployment {
  const live = pulumi.output(
    fetchEnvironment({ stack: args.stack, environment: args.environment }).then(
      // No build sha from the platform: nothing to compare, so no drift is judged.
      (e) => e.attributes.build_sha ?? undefined,
    ),
  );
  const deployment = new Deployment(name, { ...args, observed_sha: live }, opts);
  pulumi
    .all([
      deployment.sha,
      deployment.state,
      deployment.observed_sha,
      live,
      args.self_heal,
      args.environment_lock,
    ])
    .apply(([sha, state, recordedObservation, liveSha, selfHeal, lock]) => {
      // Self-heal redeploys instead of warning, except while a lock freezes the environment.
      const frozenBy = selfHeal === true && lock !== undefined ? lock : undefined;
      if (
        (selfHeal === true && frozenBy === undefined) ||
        state !== "Completed" ||
        // A deployment without a sha (a package not built yet) is never taken for drift.
        typeof sha !== "string" ||
        sha === ""
      )
        return;
      // No live sha from the platform, or the same one: nothing to warn about.
      if (liveSha === undefined || liveSha === sha) return;
      // After a create or replacement in this very run the outputs record this run's observation.
      if (!pulumi.runtime.isDryRun() && recordedObservation === liveSha) return;
      void pulumi.log.warn(driftWarning(args.stack, args.environment, sha, liveSha, frozenBy), deployment);
    });
  return deployment;
}
