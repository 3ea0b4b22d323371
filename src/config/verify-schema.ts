/**
 * `verify:` of an environment, and of a file (the default of every environment that has none):
 * HTTP checks run after every deployment `up` makes or adopts, retried every `interval` until
 * they all pass or `within` runs out. The rules of each field are src/api/verify.ts's, shared with
 * the provider; the bound of `within` by the deployment's wait is a rule of two fields
 * (semantic-checks.ts).
 */
import { z } from "zod";
import {
  VERIFY_DEFAULTS,
  VERIFY_INTERVAL_BOUNDS,
  VERIFY_LATENCY_BOUNDS,
  VERIFY_ON_FAILURE,
  VERIFY_WITHIN_BOUNDS,
  type VerifySpec,
  bodyPatternProblem,
  boundedDuration,
  checkPathProblem,
  checkUrlProblem,
  parseStatusRange,
} from "../api";
import { onValidValue, strictObject } from "./strict-object";

/** A rule of src/api/verify.ts as a zod check of a string. */
function ruled(problem: (text: string) => string | undefined) {
  return z.string().check((ctx) => {
    const message = problem(ctx.value);
    if (message !== undefined) ctx.issues.push({ code: "custom", message, input: ctx.value });
  });
}

const STATUS_MESSAGE = "must be an HTTP status from 100 to 599 (such as 200) or a range (such as 200-299)";

export const VerifyCheckSchema = strictObject({
  path: ruled(checkPathProblem)
    .optional()
    .meta({ description: "A path joined to the environment's URL on the platform, such as /health." }),
  url: ruled(checkUrlProblem).optional().meta({
    description: "An absolute URL instead of a path: https (http only to this machine), no credentials.",
  }),
  status: z
    .union([z.number().int(STATUS_MESSAGE), z.string()], { error: STATUS_MESSAGE })
    .default(VERIFY_DEFAULTS.status)
    .transform((value, ctx) => {
      const parsed = parseStatusRange(value);
      if (parsed.ok) return parsed.text;
      ctx.issues.push({ code: "custom", message: parsed.message, input: value });
      return z.NEVER;
    })
    .meta({ description: "The status expected: one (200) or a range (200-299, the default)." }),
  body: ruled(bodyPatternProblem).optional().meta({
    description:
      "A regular expression (JavaScript syntax) the body must match; only the first 64 KiB of the body are read.",
  }),
  max_latency: boundedDuration(VERIFY_LATENCY_BOUNDS)
    .optional()
    .meta({ description: "The longest the answer may take, such as 2s (1s to 5m)." }),
}).superRefine((check, ctx) => {
  if ((check.path === undefined) === (check.url === undefined)) {
    ctx.addIssue({
      code: "custom",
      path: [],
      message: "a check names exactly one of path (on the environment's URL) and url (absolute)",
    });
  }
}, onValidValue);
export type VerifyCheckConfig = z.output<typeof VerifyCheckSchema>;

export const VerifySchema = strictObject({
  checks: z
    .array(VerifyCheckSchema)
    .min(1, "must list at least one check")
    .meta({ description: "HTTP GETs that must all pass." }),
  within: boundedDuration(VERIFY_WITHIN_BOUNDS).optional().meta({
    description:
      "Keep trying until every check passes, at most this long (default 5m, or the deployment's timeout when shorter; never longer than it).",
  }),
  interval: boundedDuration(VERIFY_INTERVAL_BOUNDS)
    .default(VERIFY_DEFAULTS.intervalSeconds)
    .meta({ description: "The wait between two rounds of checks (default 10s)." }),
  on_failure: z.enum(VERIFY_ON_FAILURE).default("fail").meta({
    description:
      "fail (default): the run fails. rollback: redeploy an earlier build that did not fail verification (the build that ran before when it qualifies), verify it, and refuse this build until the file changes.",
  }),
}).meta({ description: "Checks that the site answers after every deployment (docs/stacks-config.md)." });
export type VerifyConfig = z.output<typeof VerifySchema>;

/** The deployment's wait bound when the file gives none: the client's poll timeout. */
export const DEFAULT_DEPLOYMENT_WAIT_SECONDS = 30 * 60;

/**
 * The `verify:` that applies to an environment (its own, else the file's) as the provider takes
 * it, or undefined when neither declares one or the environment has no deployment to verify.
 */
export function verifySpecOf(
  file: { readonly verify?: VerifyConfig | undefined },
  environment: {
    readonly verify?: VerifyConfig | undefined;
    readonly deployment?: { readonly timeout?: number | undefined; readonly wait?: boolean } | undefined;
  },
): VerifySpec | undefined {
  const verify = environment.verify ?? file.verify;
  // A deployment not waited for has no finished build to check (validate refuses its own verify:).
  if (verify === undefined || environment.deployment === undefined || environment.deployment.wait === false)
    return undefined;
  const wait = environment.deployment.timeout ?? DEFAULT_DEPLOYMENT_WAIT_SECONDS;
  return {
    checks: verify.checks.map((c) => ({
      ...(c.path === undefined ? {} : { path: c.path }),
      ...(c.url === undefined ? {} : { url: c.url }),
      status: c.status,
      ...(c.body === undefined ? {} : { body: c.body }),
      ...(c.max_latency === undefined ? {} : { max_latency_seconds: c.max_latency }),
    })),
    within_seconds: verify.within ?? Math.min(VERIFY_DEFAULTS.withinSeconds, wait),
    interval_seconds: verify.interval,
    on_failure: verify.on_failure,
  };
}
