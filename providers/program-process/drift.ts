/**
 * Drift detection without `--refresh`: the program reads the environment's live `build_sha`
 * (a data source, during preview too) and passes it to the Deployment as `observed_sha`. The
 * provider's `diff` compares it with the sha the last reconcile deployed: with `self_heal` that
 * is a planned redeploy (a replacement); without it the helper below logs a warning that names
 * the environment, the desired sha, the live sha and the deployment that put it there (its id,
 * title, ref, deployer and time, as far as the environment's deployment history tells).
 */
import * as pulumi from "@pulumi/pulumi";
import { newestFirst, shaOf, type Deployment as ApiDeployment } from "../../src/api";
import { terminalText } from "../../src/safe-text";
import { fetchDeployments } from "../data/deployments";
import { fetchEnvironment } from "../data/environment";
import { Deployment, type DeploymentArgs } from "./resources";

/** Arguments of {@link deploymentWithDriftCheck}: a Deployment's, with plain stack and environment. */
export interface DriftCheckedDeploymentArgs
  extends Omit<DeploymentArgs, "observed_sha" | "environment_url" | "stack" | "environment"> {
  stack: string;
  environment: string;
}

/**
 * The deployment that put `liveSha` there, as far as the environment's history tells: the newest
 * completed one with that sha (undefined when none has it).
 */
export function liveDeploymentOf(
  deployments: readonly ApiDeployment[],
  liveSha: string,
): ApiDeployment | undefined {
  return newestFirst(deployments).find((d) => d.attributes.state === "Completed" && shaOf(d) === liveSha);
}

/**
 * What the warning says of the hand deployment: its id and title, the ref it came from, who made
 * it and when, each only as far as the platform's answer has it (list items of the real platform
 * may come without dates or deployer).
 */
export function describeHandDeployment(d: ApiDeployment): string {
  const a = d.attributes;
  const title: string | null | undefined = a.title;
  const refType: string | null | undefined = a.ref_type;
  const refName: string | null | undefined = a.ref_name;
  const email: string | null | undefined = a.deployer?.email;
  const dates = [a.date_updated_unix, a.date_started_unix, a.date_created_unix].filter(
    (t): t is number => typeof t === "number" && t > 0,
  );
  const ref =
    refName === undefined || refName === null || refName === "" || refType === "sha"
      ? undefined
      : `${refType === undefined || refType === null || refType === "" ? "" : `${refType} `}${refName}`;
  const when =
    dates.length === 0
      ? undefined
      : `${new Date(Math.max(...dates) * 1000).toISOString().slice(0, 16).replace("T", " ")} UTC`;
  const parts = [
    `deployment ${d.id}${title === undefined || title === null || title === "" ? "" : ` "${title}"`}`,
    ...(ref === undefined ? [] : [`from ${ref}`]),
    ...(email === undefined || email === null || email === "" ? [] : [`by ${email}`]),
    ...(when === undefined ? [] : [`at ${when}`]),
  ];
  // Title, ref and deployer are the platform's: the warning reaches terminals, summaries and chat.
  return terminalText(parts.join(", "));
}

/** The text of the drift warning (exported for tests). */
export function driftWarning(
  stack: string,
  environment: string,
  desired: string,
  live: string,
  /** The lock that holds a self-heal back, when that is why this is only a warning. */
  deferredBy?: string,
  /** The deployment that put `live` there ({@link describeHandDeployment}), when the history has it. */
  liveDeployment?: string,
): string {
  const next =
    deferredBy === undefined
      ? "Set self_heal: true to redeploy, or change trigger."
      : `The environment is locked ("${deferredBy}"): self_heal redeploys once the lock is lifted.`;
  const which = liveDeployment === undefined ? "" : `: ${liveDeployment}`;
  return (
    `Drift on ${stack}/${environment}: the last reconcile deployed ${desired}, but the environment runs ${live} ` +
    `(a deployment made by hand${which}). ${next}`
  );
}

/**
 * Names the hand deployment: reads the environment's deployments (a data source, memoised; only
 * when drift is found, so a clean run reads nothing more) and describes the one that put
 * `liveSha` there. A failed read leaves it unnamed: the warning stands without it.
 */
async function handDeploymentText(
  stack: string,
  environment: string,
  liveSha: string,
): Promise<string | undefined> {
  try {
    const found = liveDeploymentOf(await fetchDeployments({ stack, environment }), liveSha);
    return found === undefined ? undefined : describeHandDeployment(found);
  } catch {
    return undefined;
  }
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
  const environment = fetchEnvironment({ stack: args.stack, environment: args.environment });
  // No build sha from the platform: nothing to compare, so no drift is judged.
  const live = pulumi.output(environment.then((e) => e.attributes.build_sha ?? undefined));
  // The URL a `verify:` path check joins, from the same read (no request of the provider's own).
  const url =
    args.verify === undefined
      ? undefined
      : pulumi.output(environment.then((e) => e.attributes.url ?? undefined));
  const deployment = new Deployment(
    name,
    { ...args, observed_sha: live, ...(url === undefined ? {} : { environment_url: url }) },
    opts,
  );
  pulumi
    .all([
      deployment.sha,
      deployment.state,
      deployment.observed_sha,
      live,
      args.self_heal,
      args.environment_lock,
      deployment.verification,
    ])
    .apply(([sha, state, recordedObservation, liveSha, selfHeal, lock, verification]) => {
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
      // Stackwright itself rolled back to it after a failed verification; the run says so.
      if (verification?.rolled_back_to?.sha === liveSha) return;
      // After a create or replacement in this very run the outputs record this run's observation.
      if (!pulumi.runtime.isDryRun() && recordedObservation === liveSha) return;
      // The run waits for the read and the warning, as it waits for any call to the engine.
      const done = pulumi.runtime.rpcKeepAlive();
      void handDeploymentText(args.stack, args.environment, liveSha)
        .then((which) =>
          pulumi.log.warn(
            driftWarning(args.stack, args.environment, sha, liveSha, frozenBy, which),
            deployment,
          ),
        )
        .finally(done);
    });
  return deployment;
}
