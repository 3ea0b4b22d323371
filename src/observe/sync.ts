/**
 * The sync state of one environment, from what the file asks, what the last `up` recorded and
 * what the platform answered. Pure: every input is already read.
 */
import {
  FAILED_DEPLOYMENT_STATES,
  IN_PROGRESS_DEPLOYMENT_STATES,
  PENDING_DEPLOYMENT_STATES,
  type Deployment,
  type DeploymentState,
  type StatedDeployment,
  type Verification,
  failureText,
} from "../api";
import type { DriftKind, EnvironmentStatus, ObservedDeployment, SyncState } from "./model";

/** What the last `up` deployed, as the stack's checkpoint records it. */
export interface Applied {
  readonly ref_type: string;
  readonly ref: string;
  readonly sha: string;
  readonly deployment_id: string;
}

export interface SyncInput {
  readonly desired: { readonly ref_type: string; readonly ref: string } | undefined;
  readonly applied: Applied | undefined;
  /** What the checks found after the last up's deployment (none without `verify:`). */
  readonly verification?: Verification | undefined;
  /** The environment's build sha. */
  readonly liveSha: string;
  /** Every deployment of the environment the platform lists (each with its state: it decides). */
  readonly deployments: readonly StatedDeployment[];
}

export interface SyncVerdict {
  readonly sync: SyncState;
  readonly reason: string | null;
  readonly drift: EnvironmentStatus["drift"];
  readonly newest: StatedDeployment | undefined;
  /** The deployment that put the live sha there (the newest completed one with that sha). */
  readonly liveDeployment: StatedDeployment | undefined;
}

const among = (states: readonly DeploymentState[], state: DeploymentState) => states.includes(state);

/** Newest first, by numeric id (the platform numbers deployments in creation order). */
export function newestFirst<D extends Deployment>(deployments: readonly D[]): D[] {
  return [...deployments].sort((a, b) => Number(b.id) - Number(a.id));
}

export function isoOf(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString();
}

/**
 * When a deployment last changed state: the newest of its dates, or null when it has none (list
 * items of the real platform may come without dates; 0 is no date either, never 1970).
 */
export function deploymentInstant(d: Deployment): string | null {
  const a = d.attributes;
  const dates = [a.date_updated_unix, a.date_started_unix, a.date_created_unix].filter(
    (t): t is number => typeof t === "number" && t > 0,
  );
  return dates.length === 0 ? null : isoOf(Math.max(...dates));
}

/** The deployment as the status shows it. */
export function observedDeployment(d: Deployment): ObservedDeployment {
  const a = d.attributes;
  // Only shown: what the platform leaves out or sends as null shows as "-".
  const email = a.deployer?.email;
  return {
    id: d.id,
    sha: a.sha ?? "-",
    short_sha: a.short_sha ?? a.sha?.slice(0, 7) ?? "-",
    title: a.title ?? "",
    state: a.state ?? "-",
    deployer:
      email === undefined || email === null || email === "" ? null : { name: a.deployer?.name ?? "", email },
    at: deploymentInstant(d),
    link: d.links?.self ?? null,
  };
}

/** Who made a deployment, when the platform says. */
function emailOf(d: Deployment | undefined): string | undefined {
  const email = d?.attributes.deployer?.email;
  return typeof email === "string" && email !== "" ? email : undefined;
}

const describeRef = (r: { ref_type: string; ref: string }) =>
  r.ref === "" ? r.ref_type : `${r.ref_type} ${r.ref}`;
const short = (sha: string) => sha.slice(0, 7);

export function syncOf(input: SyncInput): SyncVerdict {
  const sorted = newestFirst(input.deployments);
  const newest = sorted[0];
  // A deployment without a sha (a package not built yet) is never the live build.
  const liveDeployment = sorted.find(
    (d) =>
      typeof d.attributes.sha === "string" &&
      d.attributes.sha !== "" &&
      d.attributes.sha === input.liveSha &&
      d.attributes.state === "Completed",
  );
  const base = { newest, liveDeployment };
  const verdict = (sync: SyncState, reason: string | null, drift: EnvironmentStatus["drift"] = null) => ({
    ...base,
    sync,
    reason,
    drift,
  });
  const driftOf = (kind: DriftKind, from: Deployment | undefined) => ({
    kind,
    since: from === undefined ? null : deploymentInstant(from),
    by: emailOf(from) ?? null,
  });
  if (input.desired === undefined) return verdict("not managed", "the file asks for no deployment here");
  if (newest !== undefined && among(IN_PROGRESS_DEPLOYMENT_STATES, newest.attributes.state)) {
    return verdict("deploying", `deployment ${newest.id} is ${newest.attributes.state}`);
  }
  if (newest !== undefined && among(PENDING_DEPLOYMENT_STATES, newest.attributes.state)) {
    return verdict(
      "awaiting approval",
      `deployment ${newest.id} is ${newest.attributes.state}: it waits for ${newest.attributes.state === "Approved" ? "a start" : "an approval"}`,
    );
  }
  if (
    newest !== undefined &&
    among(FAILED_DEPLOYMENT_STATES, newest.attributes.state) &&
    newest.attributes.state !== "Deleted"
  ) {
    return verdict(
      "failed",
      `deployment ${newest.id} ${newest.attributes.state === "Failed" ? "failed" : `is ${newest.attributes.state}`}`,
      driftOf("failed", newest),
    );
  }
  const applied = input.applied;
  if (applied === undefined) {
    return verdict(
      "not yet deployed",
      `no up has deployed ${describeRef(input.desired)} here yet`,
      driftOf("not deployed", undefined),
    );
  }
  if (applied.ref_type !== input.desired.ref_type || applied.ref !== input.desired.ref) {
    return verdict(
      "drifted",
      `the file asks for ${describeRef(input.desired)}; the last up deployed ${describeRef(applied)}`,
      driftOf("desired changed", liveDeployment),
    );
  }
  const checked = input.verification;
  if (
    checked !== undefined &&
    (applied.sha === "" || checked.sha === applied.sha || checked.rolled_back_to?.sha === applied.sha)
  ) {
    const to = checked.rolled_back_to;
    if (checked.result === "rolled_back" && to !== null && input.liveSha === to.sha) {
      return verdict(
        "rolled back",
        `${short(checked.sha)} failed verification (${failureText(checked)}); rolled back to ${short(to.sha)} ` +
          `(deployment ${to.deployment_id}, ${to.result}); the file still pins the build that failed`,
      );
    }
    if (checked.result === "failed" && input.liveSha === checked.sha) {
      return verdict("verify failed", `${short(checked.sha)} failed verification: ${failureText(checked)}`);
    }
  }
  if (applied.sha !== "" && input.liveSha !== applied.sha) {
    const by = emailOf(liveDeployment);
    return verdict(
      "drifted",
      `the environment runs ${short(input.liveSha)}, the last up deployed ${short(applied.sha)}` +
        (by === undefined ? "" : ` (deployed by ${by})`),
      driftOf("hand deployment", liveDeployment),
    );
  }
  return verdict("in sync", null);
}
