import { z } from "zod";
import type { Deployment } from "./deployment";

/**
 * What Stackwright found when it checked that a deployed build answers (`verify:` in a stack file):
 * the record a Deployment resource keeps in its outputs, which `status`, `history`, `drift`,
 * `promote`, the summary and the notifications read. Defined once here because the providers write
 * it and the CLI reads it back from the state.
 *
 * `passed`: every check passed within `within`. `failed`: a check still failed when `within` ran
 * out (`failed_check` and `answer` say which and what came back). `rolled_back`: it failed and,
 * with `on_failure: rollback`, an earlier build was redeployed (`rolled_back_to`).
 */
export const VERIFICATION_RESULTS = ["passed", "failed", "rolled_back"] as const;
export const VerificationResult = z.enum(VERIFICATION_RESULTS);
export type VerificationResult = z.infer<typeof VerificationResult>;

/** What one request of a check got back (bounded: `body_excerpt` is a short, cut prefix). */
export const CheckAnswer = z.object({
  /** The URL asked (the environment's URL joined with `path`, or the check's `url`). */
  url: z.string(),
  /** The HTTP status, null when no answer came (`error` says why). */
  status: z.number().int().nullable(),
  latency_ms: z.number().int().nonnegative().nullable(),
  /** The first bytes of the body as text, cut to a bound; never markup to anyone who shows it. */
  body_excerpt: z.string(),
  /** Why there was no usable answer (connection reset, timeout, redirect to another host...). */
  error: z.string().nullable(),
});
export type CheckAnswer = z.infer<typeof CheckAnswer>;

/** The check that failed, as written in the stack file (for the one line that names it). */
export const FailedCheck = z.object({
  /** Its index in `verify.checks`, from 0. */
  index: z.number().int().nonnegative(),
  /** `path` or `url` as written. */
  target: z.string(),
  /** What was expected, in the file's words: `status 200`, `body /ok/`, `max_latency 2s`. */
  expected: z.string(),
});
export type FailedCheck = z.infer<typeof FailedCheck>;

/** The verification of one deployment. */
export const Verification = z.object({
  result: VerificationResult,
  /** The deployment that was checked and its full sha. */
  deployment_id: z.string(),
  sha: z.string(),
  /** ISO 8601 instants (UTC): the first request and the verdict. */
  started_at: z.string(),
  finished_at: z.string(),
  /**
   * How many rounds of checks ran before the verdict; 1 for a verdict a later run took over from
   * the rollback a stopped run made (with no `failed_check` nor `answer`: they were not recorded).
   */
  attempts: z.number().int().positive(),
  failed_check: FailedCheck.nullable(),
  answer: CheckAnswer.nullable(),
  /** With `rolled_back`: the build redeployed and what its own verification found. */
  rolled_back_to: z
    .object({
      deployment_id: z.string(),
      sha: z.string(),
      result: z.enum(["passed", "failed", "unverified"]),
    })
    .nullable(),
});
export type Verification = z.infer<typeof Verification>;

/**
 * One build's verdict as Stackwright recorded it for an environment: the Deployment resource keeps
 * a bounded list of them (`verdicts` in its outputs), newest first and one per sha, so that a
 * rollback never goes back to a build it saw fail, even after the file moved on to another build.
 */
export const BuildVerdict = z.object({
  sha: z.string().min(1),
  /** The deployment whose verification gave the verdict. */
  deployment_id: z.string(),
  result: z.enum(["passed", "failed"]),
  /** ISO 8601 instant (UTC) of the verdict. */
  at: z.string(),
});
export type BuildVerdict = z.infer<typeof BuildVerdict>;

/** How many builds' verdicts an environment's record keeps (the newest). */
export const VERDICTS_KEPT = 20;

/** The recorded verdicts of `value` (a Deployment's `verdicts` output); [] when none or another shape. */
export function verdictsOf(value: unknown): BuildVerdict[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item) => {
    const parsed = BuildVerdict.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  });
}

/**
 * `verdicts` with what `v` found added: its own build's verdict (failed when it failed or was
 * rolled back), and the verdict on the build a rollback went back to when that was checked.
 * Newest first, one per sha (the newest verdict on a build wins), at most {@link VERDICTS_KEPT}.
 */
export function withVerdicts(verdicts: readonly BuildVerdict[], v: Verification): BuildVerdict[] {
  const found: BuildVerdict[] = [];
  const to = v.rolled_back_to;
  if (to !== null && to.result !== "unverified") {
    found.push({ sha: to.sha, deployment_id: to.deployment_id, result: to.result, at: v.finished_at });
  }
  found.push({
    sha: v.sha,
    deployment_id: v.deployment_id,
    result: v.result === "passed" ? "passed" : "failed",
    at: v.finished_at,
  });
  const kept = new Map<string, BuildVerdict>();
  for (const r of [...found, ...verdicts]) {
    if (r.sha !== "" && !kept.has(r.sha)) kept.set(r.sha, r);
  }
  return [...kept.values()].slice(0, VERDICTS_KEPT);
}

/**
 * The line a rollback deployment carries in its summary: it names the deployment whose
 * verification failed, so that a run stopped during the rollback is recognised by the next one
 * (which waits for this rollback rather than deploying again), and so that the platform itself
 * records which build failed. The brackets keep `of 4` from matching `of 42`.
 */
export function rollbackMarker(failedDeploymentId: string): string {
  return `[stackwright rollback of ${failedDeploymentId}]`;
}

const ROLLBACK_MARKER = /\[stackwright rollback of (\d+)\]/;

/** The id of the deployment a rollback deployment went back from, or undefined for any other. */
export function rolledBackFrom(d: Deployment): string | undefined {
  return (
    ROLLBACK_MARKER.exec(d.attributes.summary ?? "")?.[1] ??
    ROLLBACK_MARKER.exec(d.attributes.title ?? "")?.[1]
  );
}
