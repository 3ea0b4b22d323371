import { z } from "zod";
import { cleartextProblem } from "./url-rule";

/**
 * What to check after a deployment (`verify:` of a stack file), as the program hands it to the
 * Deployment resource: the file's settings with durations in seconds. The rules each field
 * follows are here once, for `validate` (src/config) and the provider's `check`.
 */

/** `on_failure:` of `verify:`: fail the run (default), or redeploy an earlier build that did not fail verification. */
export const VERIFY_ON_FAILURE = ["fail", "rollback"] as const;
export const VerifyOnFailure = z.enum(VERIFY_ON_FAILURE);
export type VerifyOnFailure = z.infer<typeof VerifyOnFailure>;

/** Bounds, in seconds: `within` (also at most the deployment's wait bound), `interval`, `max_latency`. */
export const VERIFY_WITHIN_BOUNDS = { minSeconds: 1, maxSeconds: 24 * 60 * 60 } as const;
export const VERIFY_INTERVAL_BOUNDS = { minSeconds: 1, maxSeconds: 60 * 60 } as const;
export const VERIFY_LATENCY_BOUNDS = { minSeconds: 1, maxSeconds: 5 * 60 } as const;
/** Defaults: `within: 5m` (or the deployment's wait bound when shorter), `interval: 10s`, `status: 200-299`. */
export const VERIFY_DEFAULTS = { withinSeconds: 300, intervalSeconds: 10, status: "200-299" } as const;

const STATUS = /^([1-5]\d\d)(?:-([1-5]\d\d))?$/;

/** A check's `status` (`200` or `200-299`) as its bounds, or why it is not one. */
export function parseStatusRange(
  value: string | number,
): { ok: true; min: number; max: number; text: string } | { ok: false; message: string } {
  const text = String(value).trim();
  const match = STATUS.exec(text);
  if (match === null) {
    return {
      ok: false,
      message: "must be an HTTP status from 100 to 599 or a range of them such as 200-299",
    };
  }
  const min = Number(match[1]);
  const max = match[2] === undefined ? min : Number(match[2]);
  if (max < min) return { ok: false, message: "must be a range from low to high, such as 200-299" };
  return { ok: true, min, max, text };
}

/** Why `pattern` cannot be a check's `body` (a JavaScript regular expression), or undefined. */
export function bodyPatternProblem(pattern: string): string | undefined {
  if (pattern.length > 1000) return "is a regular expression longer than 1000 characters; keep it short";
  try {
    new RegExp(pattern);
    return undefined;
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).replace(
      /^Invalid regular expression: /,
      "",
    );
    return `is not a valid regular expression (JavaScript syntax): ${reason}`;
  }
}

/** A check's URL as it may be shown: credentials in it, if present, replaced by `***`. */
export function shownCheckUrl(text: string): string {
  return text.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, "$1***@");
}

/**
 * Why `text` cannot be a check's absolute `url`, or undefined (https, or http on loopback; no
 * credentials). The message ends with the URL as {@link shownCheckUrl} shows it.
 */
export function checkUrlProblem(text: string): string | undefined {
  const got = `; got '${shownCheckUrl(text)}'`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `must be an absolute URL such as https://www.example.com/health${got}`;
  }
  if (url.username !== "" || url.password !== "") {
    return `must carry no credentials: a check sends none (leave out user:password@)${got}`;
  }
  const problem = cleartextProblem(url, "the request");
  return problem === undefined ? undefined : `${problem}${got}`;
}

/** Why `text` cannot be a check's `path` (joined to the environment's URL), or undefined. */
export function checkPathProblem(text: string): string | undefined {
  if (!text.startsWith("/") || text.startsWith("//"))
    return `must start with a single '/', such as /health, not '${text}'`;
  if (/[\s#]/.test(text)) return "must have no spaces or fragment (#)";
  return undefined;
}

/** One check of `verify.checks`, as the provider receives it. */
export const VerifyCheckSpec = z
  .strictObject({
    /** Joined to the environment's URL (from the platform). */
    path: z.string().optional(),
    /** An absolute URL instead. */
    url: z.string().optional(),
    /** `200` or `200-299`. */
    status: z.string(),
    /** A JavaScript regular expression the (bounded) body must match. */
    body: z.string().optional(),
    max_latency_seconds: z.number().int().positive().optional(),
  })
  .superRefine((check, ctx) => {
    if ((check.path === undefined) === (check.url === undefined)) {
      ctx.addIssue({ code: "custom", path: ["path"], message: "a check has exactly one of path and url" });
    }
    const problems: Array<[string, string | undefined]> = [
      ["path", check.path === undefined ? undefined : checkPathProblem(check.path)],
      ["url", check.url === undefined ? undefined : checkUrlProblem(check.url)],
      ["body", check.body === undefined ? undefined : bodyPatternProblem(check.body)],
    ];
    const status = parseStatusRange(check.status);
    if (!status.ok) problems.push(["status", status.message]);
    for (const [key, message] of problems) {
      if (message !== undefined) ctx.addIssue({ code: "custom", path: [key], message });
    }
  });
export type VerifyCheckSpec = z.infer<typeof VerifyCheckSpec>;

export const VerifySpec = z.strictObject({
  checks: z.array(VerifyCheckSpec).min(1),
  within_seconds: z.number().int().min(VERIFY_WITHIN_BOUNDS.minSeconds).max(VERIFY_WITHIN_BOUNDS.maxSeconds),
  interval_seconds: z
    .number()
    .int()
    .min(VERIFY_INTERVAL_BOUNDS.minSeconds)
    .max(VERIFY_INTERVAL_BOUNDS.maxSeconds),
  on_failure: VerifyOnFailure,
});
export type VerifySpec = z.infer<typeof VerifySpec>;

/** What a check expected, in the file's words (`status 200-299, body /ok/, max_latency 2s`). */
export function expectedOf(check: VerifyCheckSpec): string {
  return [
    `status ${check.status}`,
    ...(check.body === undefined ? [] : [`body /${check.body}/`]),
    ...(check.max_latency_seconds === undefined ? [] : [`max_latency ${check.max_latency_seconds}s`]),
  ].join(", ");
}
