/**
 * `verify:` after a deployment: the Deployment provider runs the checks once the deployment it
 * made or adopted is Completed, records the verdict in its outputs, and with `on_failure:
 * rollback` redeploys the build that ran before (through the API) and verifies that too.
 */
import {
  FAILED_DEPLOYMENT_STATES,
  type BuildVerdict,
  type Deployment,
  type Verification,
  type VerifySpec,
  formatDuration,
  newestFirst,
  rollbackMarker,
  rolledBackFrom,
  shownCheckUrl,
} from "../../src/api";
import { environmentDispatcher, type StackwrightClient } from "../../src/client";
import { terminalText } from "../../src/safe-text";
import { answerText, checkTarget, runVerification } from "../shared/verify";
import { progress } from "./common";

const DISPATCHER_SETTINGS = { connectTimeoutMs: 10_000, keepAliveTimeoutMs: 4_000, maxConnections: 4 };

/** Where a deployment runs, for messages and API paths. */
export interface Place {
  readonly stack: string;
  readonly environment: string;
  /** The environment's URL as the run read it, when it did. */
  readonly url?: string | undefined;
}

const FAILED: readonly string[] = FAILED_DEPLOYMENT_STATES;
const whereOf = (p: Place) => `${p.stack}/${p.environment}`;
const short = (sha: string) => sha.slice(0, 7);

/** Runs the checks of `spec` against the deployment `d` (Completed, with its sha). */
export async function verifyBuild(
  client: StackwrightClient,
  place: Place,
  spec: VerifySpec,
  d: { readonly id: string; readonly sha: string },
): Promise<Verification> {
  const where = whereOf(place);
  const needsUrl = spec.checks.some((c) => c.path !== undefined);
  const siteUrl =
    !needsUrl || (place.url !== undefined && place.url !== "")
      ? place.url
      : ((await client.environments.get(place.stack, place.environment)).attributes.url ?? undefined);
  const dispatcher = environmentDispatcher(process.env, DISPATCHER_SETTINGS);
  progress(`verifying deployment ${d.id} (${short(d.sha)}) on ${where}: ${spec.checks.length} check(s)`);
  try {
    return await runVerification({
      spec,
      siteUrl,
      deployment: d,
      dispatcher,
      onRound: (attempt, failing) => {
        const check = spec.checks[failing.index];
        progress(
          terminalText(
            `verify ${where}: attempt ${attempt}: GET ${failing.answer.url} ${answerText(failing.answer, check)}; ` +
              `trying again in ${formatDuration(spec.interval_seconds)}`,
          ),
        );
      },
    });
  } finally {
    await dispatcher.close().catch(() => undefined);
  }
}

/** The one line of a failed verification: the check, what came back, how long and how often. */
export function failureLine(place: Place, spec: VerifySpec, v: Verification, siteUrl?: string): string {
  const check = v.failed_check === null ? undefined : spec.checks[v.failed_check.index];
  const url =
    v.answer?.url ??
    (check === undefined ? "(no check)" : shownCheckUrl(checkTarget(check, siteUrl) ?? check.path ?? ""));
  const answered = v.answer === null ? "failed" : answerText(v.answer, check);
  const elapsed = Math.max(0, Math.round((Date.parse(v.finished_at) - Date.parse(v.started_at)) / 1000));
  const attempts = `${v.attempts} attempt${v.attempts === 1 ? "" : "s"}`;
  return terminalText(
    `${whereOf(place)}: verify failed: GET ${url} ${answered} (expected ${v.failed_check?.expected ?? "?"}) ` +
      `after ${formatDuration(elapsed)}, ${attempts}`,
  );
}

/**
 * The builds of the environment known to have failed verification: those the record of verdicts
 * says failed, and those a rollback went back from (the platform's own record, the marker in the
 * rollback deployment's summary) unless the record says how that build did since.
 */
export function failedShas(
  deployments: readonly Deployment[],
  verdicts: readonly BuildVerdict[],
): Set<string> {
  const known = new Map<string, BuildVerdict["result"]>();
  for (const v of verdicts) if (!known.has(v.sha)) known.set(v.sha, v.result);
  const failed = new Set([...known].filter(([, result]) => result === "failed").map(([sha]) => sha));
  const byId = new Map(deployments.map((d) => [d.id, d]));
  for (const d of deployments) {
    const from = rolledBackFrom(d);
    const sha = from === undefined ? undefined : byId.get(from)?.attributes.sha;
    if (typeof sha === "string" && sha !== "" && !known.has(sha)) failed.add(sha);
  }
  return failed;
}

/** The build a rollback goes back to, if any, and the builds passed over because they failed. */
export interface RollbackChoice {
  readonly target: Deployment | undefined;
  /** Shas of completed builds left out because they failed verification, newest first. */
  readonly skipped: readonly string[];
}

/**
 * The build to go back to: never one that failed verification (see {@link failedShas}), nor the
 * failed one; the build the environment ran when this run began (`before`, its live sha then) if
 * it qualifies, else the newest Completed deployment of another sha that passed or was never
 * checked.
 */
export function previousBuild(
  deployments: readonly Deployment[],
  failed: { readonly id: string; readonly sha: string },
  before: string | undefined,
  verdicts: readonly BuildVerdict[] = [],
): RollbackChoice {
  const order = (d: Deployment) => [d.attributes.date_created_unix ?? 0, Number(d.id) || 0] as const;
  const completed = deployments
    .filter((d) => d.id !== failed.id && d.attributes.state === "Completed")
    .filter(
      (d) =>
        typeof d.attributes.sha === "string" && d.attributes.sha !== "" && d.attributes.sha !== failed.sha,
    )
    .sort((a, b) => {
      const [ca, ia] = order(a);
      const [cb, ib] = order(b);
      return cb - ca || ib - ia;
    });
  const bad = failedShas(deployments, verdicts);
  const candidates = completed.filter((d) => !bad.has(d.attributes.sha ?? ""));
  const skipped = [...new Set(completed.map((d) => d.attributes.sha ?? "").filter((sha) => bad.has(sha)))];
  return { target: candidates.find((d) => d.attributes.sha === before) ?? candidates[0], skipped };
}

/** What a rollback did: the verification with `rolled_back_to`, and a clause for the line. */
export interface RollbackOutcome {
  readonly verification: Verification;
  readonly said: string;
}

/**
 * Redeploys the build that ran before (see {@link previousBuild}), waits for it and verifies it.
 * Any failure of its own is said in `said` (the run fails either way: the file pins the build
 * that failed). The rollback deployment carries the marker of the failed one
 * ({@link rollbackMarker}): a retried create finds it rather than making a second, and so does the
 * next run when this one is stopped before the state records the outcome ({@link resumeRollback}).
 */
export async function rollBack(
  client: StackwrightClient,
  place: Place,
  spec: VerifySpec,
  failed: Verification,
  before: string | undefined,
  verdicts: readonly BuildVerdict[],
  timeoutMs: number | undefined,
): Promise<RollbackOutcome> {
  const where = whereOf(place);
  let choice: RollbackChoice;
  try {
    choice = previousBuild(
      await client.deployments.list(place.stack, place.environment),
      { id: failed.deployment_id, sha: failed.sha },
      before,
      verdicts,
    );
  } catch (error) {
    return {
      verification: failed,
      said: `rollback failed: the deployments could not be listed (${message(error)})`,
    };
  }
  const target = choice.target;
  const sha = target?.attributes.sha;
  if (target === undefined || typeof sha !== "string") {
    const why =
      choice.skipped.length === 0
        ? "no earlier completed build of another sha"
        : `every earlier completed build of another sha failed verification (${choice.skipped.map(short).join(", ")})`;
    return { verification: failed, said: `nothing rolled back: ${why}` };
  }
  progress(`rolling ${where} back to ${short(sha)} (the build of deployment ${target.id})`);
  const marker = rollbackMarker(failed.deployment_id);
  let created: Deployment;
  try {
    created = await client.deployments.create(
      place.stack,
      place.environment,
      {
        ref_type: "sha",
        ref: sha,
        title: `Rollback to ${short(sha)}: verification of ${short(failed.sha)} failed`,
        summary: `Stackwright rolled back deployment ${failed.deployment_id} (${failed.sha}), whose verification failed.\n${marker}`,
        bypass_and_start: true,
      },
      // A retried create takes the rollback it made, never an earlier one that failed.
      { marker, accept: (d) => rollbackOf([d], failed.deployment_id) !== undefined },
    );
  } catch (error) {
    return { verification: failed, said: `rollback to ${short(sha)} failed: ${message(error)}` };
  }
  return finishRollback(client, place, spec, failed, created, sha, timeoutMs);
}

/**
 * Takes over the rollback deployment `rollback` that a stopped run made after `failed` (its
 * deployment, Completed) failed verification: waits for it and verifies it, never deploying the
 * failed build or a second rollback. What the stopped run's checks answered was not recorded:
 * the verdict keeps no check nor answer, and counts the one round of checks a verdict needs.
 */
export async function resumeRollback(
  client: StackwrightClient,
  place: Place,
  spec: VerifySpec,
  failed: Deployment & { readonly attributes: { readonly sha: string } },
  rollback: Deployment,
  timeoutMs: number | undefined,
): Promise<RollbackOutcome> {
  progress(
    `found rollback deployment ${rollback.id} on ${whereOf(place)}, made by a run that stopped after ` +
      `deployment ${failed.id} (${short(failed.attributes.sha)}) failed verification; taking it over`,
  );
  // The checks ran between the end of the failed deployment and the rollback's creation.
  const rolledBack = rollback.attributes.date_created_unix ?? Math.floor(Date.now() / 1000);
  const completed = Math.min(failed.attributes.date_updated_unix ?? rolledBack, rolledBack);
  const iso = (unix: number) => new Date(unix * 1000).toISOString();
  const verdict: Verification = {
    result: "failed",
    deployment_id: failed.id,
    sha: failed.attributes.sha,
    started_at: iso(completed),
    finished_at: iso(rolledBack),
    attempts: 1,
    failed_check: null,
    answer: null,
    rolled_back_to: null,
  };
  const outcome = await finishRollback(
    client,
    place,
    spec,
    verdict,
    rollback,
    rollback.attributes.sha ?? "",
    timeoutMs,
  );
  return {
    verification: outcome.verification,
    said:
      `build ${short(failed.attributes.sha)} failed verification in a run that stopped while rolling back; ` +
      `${outcome.said}; not deploying ${short(failed.attributes.sha)} again until the file changes`,
  };
}

/** Waits for the rollback deployment `created` (of `sha`) and verifies what it deployed. */
async function finishRollback(
  client: StackwrightClient,
  place: Place,
  spec: VerifySpec,
  failed: Verification,
  created: Deployment,
  sha: string,
  timeoutMs: number | undefined,
): Promise<RollbackOutcome> {
  let redeployed: Deployment;
  try {
    redeployed = await client.waitForDeployment(place.stack, place.environment, created.id, {
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    });
  } catch (error) {
    return { verification: failed, said: `rollback to ${short(sha)} failed: ${message(error)}` };
  }
  const redeployedSha = redeployed.attributes.sha ?? sha;
  if (redeployed.attributes.state !== "Completed") {
    return {
      verification: {
        ...failed,
        rolled_back_to: { deployment_id: redeployed.id, sha: redeployedSha, result: "unverified" },
      },
      said: `rollback to ${short(redeployedSha)} failed: deployment ${redeployed.id} ended ${redeployed.attributes.state ?? "in an unknown state"}`,
    };
  }
  const again = await verifyBuild(client, place, spec, { id: redeployed.id, sha: redeployedSha });
  const result = again.result === "passed" ? "passed" : "failed";
  return {
    verification: {
      ...failed,
      result: "rolled_back",
      rolled_back_to: { deployment_id: redeployed.id, sha: redeployedSha, result },
    },
    said:
      result === "passed"
        ? `rolled back to ${short(redeployedSha)} (deployment ${redeployed.id}, verified)`
        : `rolled back to ${short(redeployedSha)} (deployment ${redeployed.id}), which failed verification too`,
  };
}

/**
 * The rollback deployment made after `failedId` failed verification that is still to be waited
 * for or done, if any: one that ended Failed, Invalid, Rejected or Deleted is history, and the
 * next rollback is a new one.
 */
export function rollbackOf(deployments: readonly Deployment[], failedId: string): Deployment | undefined {
  return newestFirst(deployments.filter((d) => rolledBackFrom(d) === failedId)).find(
    (d) => !FAILED.includes(d.attributes.state ?? ""),
  );
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The one line of a later run that keeps the file's build off the environment: it failed
 * verification and was rolled back, and the file has not changed since.
 */
export function refusalLine(place: Place, v: Verification): string {
  const to = v.rolled_back_to;
  return terminalText(
    `${whereOf(place)}: build ${short(v.sha)} failed verification and was rolled back` +
      `${to === null ? "" : ` to ${short(to.sha)}`}; not deploying it again until the file changes ` +
      "(pin another build, or change its trigger to try it again)",
  );
}
