/**
 * The check runner of `verify:`: HTTP GETs of a deployed site, in rounds every `interval` until
 * every check passes in one round or `within` runs out, judged into a `Verification`.
 *
 * What a check may and may not do, as a site's health check must:
 * - it goes through the proxy the environment names (`HTTPS_PROXY`, `NO_PROXY`: the dispatcher of
 *   src/client's `environmentDispatcher`, as notifications do; `STACKWRIGHT_PROXY` is the API's
 *   alone) and trusts Node's CAs with `NODE_EXTRA_CA_CERTS`;
 * - it carries no credentials: the headers are written here, never the API client's;
 * - it follows a redirect only to the same origin (at most {@link MAX_REDIRECTS}); a redirect to
 *   another host is the answer, not followed (a site must not send a check elsewhere);
 * - it reads at most {@link BODY_LIMIT_BYTES} of a body and judges that (a huge answer, or a
 *   slow regular expression, costs at most that much);
 * - each request has its own timeout (`max_latency`, else {@link REQUEST_TIMEOUT_MS}, never past
 *   `within`).
 */
import { createContext, runInContext } from "node:vm";
import type { Dispatcher } from "undici";
import { request } from "../../src/undici";
import {
  type CheckAnswer,
  type FailedCheck,
  type Verification,
  type VerifyCheckSpec,
  type VerifySpec,
  expectedOf,
  parseStatusRange,
  shownCheckUrl,
} from "../../src/api";

/** The most of a body a check reads and judges. */
export const BODY_LIMIT_BYTES = 64 * 1024;
/** The most of a body kept in the record (`answer.body_excerpt`). */
export const EXCERPT_CHARS = 200;
/** Same-origin redirects followed per request. */
export const MAX_REDIRECTS = 5;
/** A request's timeout when its check sets no `max_latency`. */
export const REQUEST_TIMEOUT_MS = 30_000;

/** The longest a check's `body` pattern may run on one answer before the check fails. */
export const PATTERN_TIME_LIMIT_MS = 1000;

// A context of its own so that a pattern that backtracks for ever can be stopped (vm's timeout
// interrupts a running regular expression): bounding the input alone leaves quadratic patterns.
const patternContext = createContext({});

/** Whether `pattern` matches `text`, or `timeout` when it ran past {@link PATTERN_TIME_LIMIT_MS}. */
export function bodyMatches(pattern: string, text: string): boolean | "timeout" {
  const sandbox = patternContext as { re?: RegExp; text?: string };
  sandbox.re = new RegExp(pattern);
  sandbox.text = text;
  try {
    return runInContext("re.test(text)", patternContext, { timeout: PATTERN_TIME_LIMIT_MS }) === true;
  } catch (error) {
    // Checked by its code: the error may come from another realm than this module's Error.
    const code = typeof error === "object" && error !== null && "code" in error ? error.code : undefined;
    if (code === "ERR_SCRIPT_EXECUTION_TIMEOUT") return "timeout";
    throw error;
  } finally {
    delete sandbox.re;
    delete sandbox.text;
  }
}

/** One answer judged against its check. */
export interface JudgedAnswer {
  readonly answer: CheckAnswer;
  readonly passed: boolean;
}

/** What the runner needs besides the spec; the clock and the wait are replaceable for tests. */
export interface VerifyRun {
  readonly spec: VerifySpec;
  /** The environment's URL from the platform (a `path` check is joined to it). */
  readonly siteUrl: string | undefined;
  readonly deployment: { readonly id: string; readonly sha: string };
  readonly dispatcher: Dispatcher;
  /** Told after each round that did not pass (progress lines). */
  readonly onRound?: (attempt: number, failing: { index: number; answer: CheckAnswer }) => void;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

/** The URL a check asks: its `url`, or the environment's URL joined with its `path`. */
export function checkTarget(check: VerifyCheckSpec, siteUrl: string | undefined): string | undefined {
  if (check.url !== undefined) return check.url;
  if (siteUrl === undefined || siteUrl === "") return undefined;
  return `${siteUrl.replace(/\/+$/, "")}${check.path ?? "/"}`;
}

function sameOrigin(a: URL, b: URL): boolean {
  return a.origin === b.origin;
}

async function readBounded(body: Dispatcher.ResponseData["body"]): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    const room = BODY_LIMIT_BYTES - size;
    chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
    size += Math.min(chunk.length, room);
    if (size >= BODY_LIMIT_BYTES) break;
  }
  // Whatever is left unread is dropped with the connection (breaking out of the loop destroys it).
  return Buffer.concat(chunks).toString("utf8");
}

function excerpt(text: string): string {
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
}

function errorText(error: unknown, timeoutMs: number): string {
  if (error instanceof Error) {
    if (error.name === "TimeoutError" || error.name === "AbortError")
      return `no answer within ${timeoutMs} ms (timed out)`;
    const cause = error.cause instanceof Error ? error.cause : undefined;
    const code =
      (cause !== undefined && "code" in cause && typeof cause.code === "string" ? cause.code : undefined) ??
      ("code" in error && typeof error.code === "string" ? error.code : undefined);
    const message = cause?.message ?? error.message;
    return code === undefined || message.includes(code) ? message : `${message} (${code})`;
  }
  return String(error);
}

/** Asks one check once and judges the answer. */
export async function askCheck(
  check: VerifyCheckSpec,
  siteUrl: string | undefined,
  dispatcher: Dispatcher,
  timeoutMs: number,
  now: () => number = Date.now,
): Promise<JudgedAnswer> {
  const target = checkTarget(check, siteUrl);
  if (target === undefined) {
    const answer = {
      url: check.path ?? "",
      status: null,
      latency_ms: null,
      body_excerpt: "",
      error: "the platform gives the environment no URL to join the path to",
    };
    return { answer, passed: false };
  }
  const started = now();
  let url = new URL(target);
  const shown = () => shownCheckUrl(url.href);
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    for (let hop = 0; ; hop++) {
      const res = await request(url, {
        method: "GET",
        dispatcher,
        signal,
        // Written here and nowhere else: no Authorization, no cookie, nothing of the API client.
        headers: { accept: "*/*", "user-agent": "stackwright-verify" },
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const location = res.headers["location"];
      const next =
        typeof location === "string" && res.statusCode >= 300 && res.statusCode < 400 ? location : undefined;
      if (next !== undefined) {
        await res.body.dump({ limit: BODY_LIMIT_BYTES }).catch(() => undefined);
        // A redirect not followed is the answer: its status, no body, and why.
        const notFollowed = (why: string) => judged(check, shown(), res.statusCode, now() - started, "", why);
        let to: URL;
        try {
          to = new URL(next, url);
        } catch {
          return notFollowed("a redirect to a malformed Location");
        }
        if (!sameOrigin(to, url))
          return notFollowed(`redirect to another host (${shownCheckUrl(to.origin)}), not followed`);
        if (hop >= MAX_REDIRECTS) return notFollowed(`more than ${MAX_REDIRECTS} redirects`);
        url = to;
        continue;
      }
      const text = await readBounded(res.body);
      return judged(check, shown(), res.statusCode, now() - started, text, null);
    }
  } catch (error) {
    const answer = {
      url: shown(),
      status: null,
      latency_ms: null,
      body_excerpt: "",
      error: errorText(error, timeoutMs),
    };
    return { answer, passed: false };
  }
}

function judged(
  check: VerifyCheckSpec,
  url: string,
  status: number,
  latency: number,
  text: string,
  error: string | null,
): JudgedAnswer {
  const matched = check.body === undefined || error !== null ? true : bodyMatches(check.body, text);
  const answer: CheckAnswer = {
    url,
    status,
    latency_ms: Math.max(0, Math.round(latency)),
    body_excerpt: excerpt(text),
    error:
      matched === "timeout"
        ? `the body pattern ran longer than ${PATTERN_TIME_LIMIT_MS} ms on the first ${BODY_LIMIT_BYTES / 1024} KiB; make it simpler`
        : error,
  };
  if (answer.error !== null) return { answer, passed: false };
  const range = parseStatusRange(check.status);
  const statusOk = range.ok && status >= range.min && status <= range.max;
  const bodyOk = matched === true;
  const latencyOk = check.max_latency_seconds === undefined || latency <= check.max_latency_seconds * 1000;
  return { answer, passed: statusOk && bodyOk && latencyOk };
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs rounds of every check until one round passes them all, or `within` runs out: then the
 * first failing check of the last round and its answer are the verdict's.
 */
export async function runVerification(run: VerifyRun): Promise<Verification> {
  const now = run.now ?? Date.now;
  const sleep = run.sleep ?? defaultSleep;
  const { spec } = run;
  const started = now();
  const deadline = started + spec.within_seconds * 1000;
  const interval = spec.interval_seconds * 1000;
  for (let attempt = 1; ; attempt++) {
    const left = Math.max(1000, deadline - now());
    const answers = await Promise.all(
      spec.checks.map((check) => {
        const own =
          check.max_latency_seconds === undefined
            ? REQUEST_TIMEOUT_MS
            : check.max_latency_seconds * 1000 + 1000;
        return askCheck(check, run.siteUrl, run.dispatcher, Math.min(own, left), now);
      }),
    );
    const index = answers.findIndex((a) => !a.passed);
    const base = {
      deployment_id: run.deployment.id,
      sha: run.deployment.sha,
      started_at: new Date(started).toISOString(),
      attempts: attempt,
      rolled_back_to: null,
    };
    if (index === -1) {
      return {
        ...base,
        result: "passed",
        finished_at: new Date(now()).toISOString(),
        failed_check: null,
        answer: null,
      };
    }
    const failing = answers[index];
    const check = spec.checks[index];
    if (failing === undefined || check === undefined) throw new Error("verify: a check has no answer");
    if (now() + interval >= deadline) {
      const failed: FailedCheck = {
        index,
        target: check.path ?? shownCheckUrl(check.url ?? ""),
        expected: expectedOf(check),
      };
      return {
        ...base,
        result: "failed",
        finished_at: new Date(now()).toISOString(),
        failed_check: failed,
        answer: failing.answer,
      };
    }
    run.onRound?.(attempt, { index, answer: failing.answer });
    await sleep(interval);
  }
}

/** What came back, in a few words: `answered 503`, `answered 200 in 2300 ms`, `got no answer (...)`. */
export function answerText(answer: CheckAnswer, check?: VerifyCheckSpec): string {
  if (answer.status === null) return `got no answer (${answer.error ?? "no reason given"})`;
  if (answer.error !== null) return `answered ${answer.status} (${answer.error})`;
  const range = check === undefined ? undefined : parseStatusRange(check.status);
  const statusOk =
    range !== undefined && range.ok && answer.status >= range.min && answer.status <= range.max;
  const slow =
    check?.max_latency_seconds !== undefined &&
    answer.latency_ms !== null &&
    answer.latency_ms > check.max_latency_seconds * 1000;
  if (slow) return `answered ${answer.status} in ${answer.latency_ms} ms`;
  if (statusOk && check?.body !== undefined)
    return `answered ${answer.status} with a body that does not match`;
  return `answered ${answer.status}`;
}
