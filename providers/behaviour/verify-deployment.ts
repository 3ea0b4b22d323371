/**
 * `verify:` after a deployment: the Deployment provider runs the checks once the deployment it
 * made or adopted is Completed, records the verdict in its outputs, and with `on_failure:
 * rollback` redeploys the build that ran before (through the API) and verifies that too.
 */
import {
  type Deployment,
  type Verification,
  type VerifySpec,
  formatDuration,
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
 * The build to go back to: the last Completed deployment of another sha than the failed one,
 * preferring the build the environment ran when this run began (`before`, its live sha then).
 */
export function previousBuild(
  deployments: readonly Deployment[],
  failed: { readonly id: string; readonly sha: string },
  before: string | undefined,
): Deployment | undefined {
  const order = (d: Deployment) => [d.attributes.date_created_unix ?? 0, Number(d.id) || 0] as const;
  const candidates = deployments
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
  return candidates.find((d) => d.attributes.sha === before) ?? candidates[0];
}

/** What a rollback did: the verification with `rolled_back_to`, and a clause for the line. */
export interface RollbackOutcome {
  readonly verification: Verification;
  readonly said: string;
}

/**
 * Redeploys the build that ran before, waits for it and verifies it. Any failure of its own is
 * said in `said` (the run fails either way: the file pins the build that failed).
 */
export async function rollBack(
  client: StackwrightClient,
  place: Place,
  spec: VerifySpec,
  failed: Verification,
  before: string | undefined,
  timeoutMs: number | undefined,
): Promise<RollbackOutcome> {
  const where = whereOf(place);
  let target: Deployment | undefined;
  try {
    target = previousBuild(
      await client.deployments.list(place.stack, place.environment),
      { id: failed.deployment_id, sha: failed.sha },
      before,
    );
  } catch (error) {
    return {
      verification: failed,
      said: `rollback failed: the deployments could not be listed (${message(error)})`,
    };
  }
  const sha = target?.attributes.sha;
  if (target === undefined || typeof sha !== "string") {
    return { verification: failed, said: "nothing rolled back: no earlier completed build of another sha" };
  }
  progress(`rolling ${where} back to ${short(sha)} (the build of deployment ${target.id})`);
  let redeployed: Deployment;
  try {
    const created = await client.deployments.create(place.stack, place.environment, {
      ref_type: "sha",
      ref: sha,
      title: `Rollback to ${short(sha)}: verification of ${short(failed.sha)} failed`,
      summary: `Stackwright rolled back deployment ${failed.deployment_id} (${failed.sha}), whose verification failed.`,
      bypass_and_start: true,
    });
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
      said: `rollback to ${short(sha)} failed: deployment ${redeployed.id} ended ${redeployed.attributes.state ?? "in an unknown state"}`,
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
