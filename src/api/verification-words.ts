import { Verification, type CheckAnswer, type FailedCheck } from "./verification";

/**
 * How a recorded verification reads to people, in one line, for every place that shows one
 * (status, history, drift, the summary, notifications, promote's refusals), so that they agree.
 * The words are plain text: the answer's body and error come from the site, so each renderer
 * passes the line through its own medium of `src/safe-text`.
 */

/** How much of an answer's body a line quotes (the record keeps a bounded excerpt already). */
const BODY_QUOTE = 80;

/** A Deployment resource's `verification` output, or undefined when it has none or another shape. */
export function verificationOf(
  outputs: Readonly<Record<string, unknown>> | undefined,
): Verification | undefined {
  const value = outputs?.["verification"];
  if (value === undefined || value === null) return undefined;
  const parsed = Verification.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** `check 1 (/health): expected status 200`. Checks are numbered from 1 for people. */
export function checkText(check: FailedCheck): string {
  return `check ${check.index + 1} (${check.target}): expected ${check.expected}`;
}

/** `got 503 "Service Unavailable" in 120 ms`, or `got no answer: connection reset`. */
export function answerText(answer: CheckAnswer): string {
  if (answer.status === null) return `got no answer${answer.error === null ? "" : `: ${answer.error}`}`;
  const body = answer.body_excerpt.replace(/\s+/g, " ").trim();
  const quoted = body === "" ? "" : ` "${body.length > BODY_QUOTE ? `${body.slice(0, BODY_QUOTE)}…` : body}"`;
  const latency = answer.latency_ms === null ? "" : ` in ${answer.latency_ms} ms`;
  const error = answer.error === null ? "" : ` (${answer.error})`;
  return `got ${answer.status}${quoted}${latency}${error}`;
}

/** What failed and what came back: `check 1 (/health): expected status 200; got 503 "down"`. */
export function failureText(v: Verification): string {
  const check = v.failed_check === null ? "a check failed" : checkText(v.failed_check);
  return v.answer === null ? check : `${check}; ${answerText(v.answer)}`;
}

const short = (sha: string) => sha.slice(0, 7);

/** The verification in one line: `passed`, `failed: ...`, `failed: ...; rolled back to 3c4d5e6 (passed)`. */
export function verificationText(v: Verification): string {
  const attempts = `${v.attempts} ${v.attempts === 1 ? "attempt" : "attempts"}`;
  switch (v.result) {
    case "passed":
      return `passed (${attempts})`;
    case "failed":
      return `failed after ${attempts}: ${failureText(v)}`;
    case "rolled_back": {
      const to = v.rolled_back_to;
      const back =
        to === null
          ? "rolled back"
          : `rolled back to ${short(to.sha)} (deployment ${to.deployment_id}, ${to.result})`;
      return `${short(v.sha)} failed: ${failureText(v)}; ${back}`;
    }
  }
}

/** What a verification says about one build (`sha`): its own verdict, or `undefined` when it is about another. */
export function verdictFor(
  v: Verification,
  sha: string,
): "passed" | "failed" | "rolled_back" | "unverified" | undefined {
  if (sha === "") return undefined;
  if (v.sha === sha) return v.result;
  if (v.result === "rolled_back" && v.rolled_back_to?.sha === sha) return v.rolled_back_to.result;
  return undefined;
}
