import { z } from "zod";

/**
 * What Stackwright found when it checked that a deployed build answers (`verify:` in a stack file):
 * the record a Deployment resource keeps in its outputs, which `status`, `history`, `drift`,
 * `promote`, the summary and the notifications read. Defined once here because the providers write
 * it and the CLI reads it back from the state.
 *
 * `passed`: every check passed within `within`. `failed`: a check still failed when `within` ran
 * out (`failed_check` and `answer` say which and what came back). `rolled_back`: it failed and,
 * with `on_failure: rollback`, the build that ran before was redeployed (`rolled_back_to`).
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
  /** How many rounds of checks ran before the verdict. */
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
