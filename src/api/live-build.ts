/**
 * What an environment's deployment history says about its live build, as pure rules over the
 * deployment documents (list items may lack dates, `is_current_build` or a summary on the real
 * platform, so every field is read defensively): which deployment is the current build, which
 * deployments Stackwright made (the marker its Deployment provider writes into the summary), and
 * whether the environment is in a state to take its live build from (not drifted, failed,
 * deploying or awaiting approval). `promote` and `rollback` use these; the fleet's observe layer
 * can take them over.
 *
 * A deployment is Stackwright's when it carries the marker, or when the state of an `up` records
 * it: an `up` that adopts an existing deployment (`adopt:`, as `stackwright import` writes it)
 * takes it over as it is, and the platform's record of it carries no marker of ours. The caller
 * reads the state and passes the deployments it records.
 */
import { shortSha } from "./resources";
import type { Deployment, DeploymentState } from "./deployment";
import { IN_PROGRESS_DEPLOYMENT_STATES, PENDING_DEPLOYMENT_STATES } from "./deployment";

/**
 * The line Stackwright's Deployment provider appends to a deployment's summary,
 * `[stackwright sw-<20 hex>]` (providers/behaviour/common.ts, `withMarker`): the marker is
 * a hash of the resource's identity and of the desired inputs that made it (ref_type, ref,
 * trigger, ...), so it also names the file state the deployment came from.
 */
/**
 * A deployment whose state is known. Every rule here decides on the state, so the caller states
 * that need where it read the list (the client's `needAttributes(d, ["state"], why)`), and an
 * answer without it is one error that names the endpoint, not a wrong verdict.
 */
export type StatedDeployment = Deployment & { attributes: { state: DeploymentState } };

const MARKER = /\[stackwright (sw-[0-9a-f]{20})\]/;

/** The Stackwright marker of a deployment, or undefined for one made by hand (or elsewhere). */
export function stackwrightMarkerOf(d: Deployment): string | undefined {
  const summary: string | null | undefined = d.attributes.summary;
  const title: string | null | undefined = d.attributes.title;
  return MARKER.exec(summary ?? "")?.[1] ?? MARKER.exec(title ?? "")?.[1];
}

/** A deployment as a stack's state records it: its id, and its sha ("" while it had none). */
export interface RecordedDeployment {
  readonly id: string;
  readonly sha: string;
}

/**
 * True when the deployment is Stackwright's: it carries the marker (Stackwright made it), or it is
 * among `recorded`, the deployments the state of the environment's `up` records (one it adopted).
 * The recorded sha must be the deployment's too when both have one, so that a state written
 * against another platform, whose ids mean other deployments, claims none of this one's. Any other
 * deployment was made by hand or elsewhere.
 */
export function isStackwrightsDeployment(d: Deployment, recorded: readonly RecordedDeployment[]): boolean {
  if (stackwrightMarkerOf(d) !== undefined) return true;
  const sha = shaOf(d);
  return recorded.some((r) => r.id === d.id && (r.sha === "" || sha === "" || r.sha === sha));
}

function createdOf(d: Deployment): number {
  const a = d.attributes;
  const created: number | null | undefined = a.date_created_unix;
  const requested: number | null | undefined = a.date_requested_unix;
  return created ?? requested ?? 0;
}

/** Newest first: by creation time, then by id (ids grow). */
export function newestFirst<D extends Deployment>(deployments: readonly D[]): D[] {
  return [...deployments].sort((a, b) => createdOf(b) - createdOf(a) || Number(b.id) - Number(a.id));
}

/**
 * The deployment the environment runs: the Completed one (with a sha) marked current, else the
 * newest Completed one. (The platform also marks a queued or running deployment current: the build it is
 * becoming, not the one it runs.)
 */
export function currentBuildOf<D extends StatedDeployment>(deployments: readonly D[]): D | undefined {
  // A deployment without a sha (a package not built yet) is never the live build.
  const completed = newestFirst(deployments).filter(
    (d) => d.attributes.state === "Completed" && shaOf(d) !== "",
  );
  const marked = completed.find(
    (d) => (d.attributes.is_current_build as boolean | null | undefined) === true,
  );
  return marked ?? completed[0];
}

/** The full sha a deployment deployed ("" when the platform has none yet, e.g. an unbuilt package). */
export function shaOf(d: Deployment): string {
  const sha: string | null | undefined = d.attributes.sha;
  return sha ?? "";
}

/** Why an environment's live build should not be taken as what was tested. */
export type LiveBuildProblemKind = "drifted" | "failed" | "deploying" | "awaiting-approval";

export interface LiveBuildProblem {
  readonly kind: LiveBuildProblemKind;
  /** One sentence, naming the environment and the deployment. */
  readonly text: string;
}

/** The live build of an environment and what stands against taking it as tested. */
export interface LiveBuild {
  /** The current build's deployment, when the history has one. */
  readonly deployment: StatedDeployment | undefined;
  /** The sha the environment runs (its `build_sha`). */
  readonly sha: string;
  readonly problems: readonly LiveBuildProblem[];
}

const states = (list: readonly DeploymentState[]) => new Set<DeploymentState>(list);
const IN_PROGRESS = states(IN_PROGRESS_DEPLOYMENT_STATES);
const PENDING = states(PENDING_DEPLOYMENT_STATES);

function label(d: Deployment): string {
  const title: string | null | undefined = d.attributes.title;
  return `deployment ${d.id}${title ? ` "${title}"` : ""}`;
}

/**
 * The live build of `environment` (`where`, e.g. `acme-web/uat`, names it in the texts) from its
 * `build_sha` ("" when the platform does not say) and its deployments: drifted when the
 * environment runs something its current build does not say, or a build that is not Stackwright's
 * (no marker, and not among `recorded`: see {@link isStackwrightsDeployment}); failed when a
 * deployment newer than the current build failed; deploying when one is queued or running;
 * awaiting approval when one newer than the current build waits for a person or a start.
 */
export function liveBuildOf(
  where: string,
  buildSha: string,
  deployments: readonly StatedDeployment[],
  recorded: readonly RecordedDeployment[] = [],
): LiveBuild {
  const current = currentBuildOf(deployments);
  const problems: LiveBuildProblem[] = [];
  const newer = newestFirst(deployments).filter(
    (d) => current === undefined || createdOf(d) > createdOf(current) || Number(d.id) > Number(current.id),
  );
  const running = deployments.find((d) => IN_PROGRESS.has(d.attributes.state));
  if (running !== undefined) {
    problems.push({
      kind: "deploying",
      text: `${where} is deploying (${label(running)} is ${running.attributes.state})`,
    });
  }
  const pending = newer.find((d) => PENDING.has(d.attributes.state));
  if (pending !== undefined) {
    problems.push({
      kind: "awaiting-approval",
      text: `${where} has ${label(pending)} waiting for approval or a start (${pending.attributes.state})`,
    });
  }
  const failed = newer.find((d) => d.attributes.state === "Failed");
  if (failed !== undefined) {
    problems.push({
      kind: "failed",
      text: `${where}'s newest deployment failed (${label(failed)}), so its live build is not what was last tried`,
    });
  }
  if (current === undefined) {
    problems.push({
      kind: "drifted",
      text: `${where} runs ${shortSha(buildSha)}, but no completed deployment in its history says so`,
    });
  } else if (buildSha !== "" && shaOf(current) !== buildSha) {
    problems.push({
      kind: "drifted",
      text: `${where} runs ${shortSha(buildSha)}, but its current build (${label(current)}) is ${shortSha(shaOf(current))}`,
    });
  } else if (!isStackwrightsDeployment(current, recorded)) {
    problems.push({
      kind: "drifted",
      text: `${where}'s live build ${shortSha(shaOf(current))} (${label(current)}) was deployed by hand, not by Stackwright`,
    });
  }
  return {
    deployment: current,
    sha: buildSha !== "" ? buildSha : current === undefined ? "" : shaOf(current),
    problems,
  };
}
