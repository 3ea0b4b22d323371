/**
 * The preflight of `preview`, `up`, `refresh` and `destroy`: before the engine starts, check the
 * API settings and call the identity endpoint once, so that a wrong setting gives one line that
 * says what is wrong and which setting or variable to change (exit 2), instead of one engine
 * error per resource. Two requests whatever the fleet's size: `GET /svc/meta` (reachable, right
 * API, credentials accepted) and `GET /svc/projects` (the user sees every stack of
 * stacks-config/). The token is never printed: no message below contains a setting's value but
 * the URL's origin and the e-mail (and a proxy's scheme, host and port, never its credentials).
 *
 * Transient answers are not settings to change: both requests are idempotent GETs, retried like
 * any other (429 and 503 after their `Retry-After`, 502/504, resets, refused connections) within
 * {@link PREFLIGHT_RETRY}; what is still failing after it ends the run as "try again later"
 * (exit 4), naming its cause (rate limited, the platform failing). Only what a retry cannot
 * change (DNS, TLS, 401/403, no API at the URL, a malformed setting) is a usage error (exit 2).
 */
import {
  API_PROXY_VARIABLE,
  ApiError,
  AuthenticationError,
  ConnectionError,
  NotFoundError,
  PermissionError,
  TimeoutError,
  UnexpectedResponseError,
  CREDENTIAL_SOURCES,
  InvalidOptionsError,
  RateLimitError,
  ServerError,
  baseUrlProblem,
  clientDefaults,
  createClient,
  processReadBudget,
  proxySettings,
  shownProxy,
  tlsProblem,
  type RetryPolicy,
  resolveCredentials,
  type ResolvedSetting,
  type StackwrightClient,
} from "../client";
import { CliError } from "./errors";

/** What the preflight checks. */
export interface PreflightInput {
  /** The command, for the message (`preview`). */
  command: string;
  /** API stacks of stacks-config/ and the file each is declared in. */
  stacks: readonly { name: string; file: string }[];
  /** The Pulumi stack's config (secrets decrypted); environment variables override it. */
  config: (key: string) => string | undefined;
  env: Readonly<Record<string, string | undefined>>;
  /** Bounds of the two requests (tests shorten them). */
  timeouts?: { connectMs: number; headersMs: number } | undefined;
  /** The retry budget of each request (default {@link PREFLIGHT_RETRY}). */
  retry?: RetryPolicy | undefined;
}

/** Who the API says the caller is. */
export interface PreflightResult {
  whoami: string;
}

const DEFAULT_TIMEOUTS = { connectMs: 5_000, headersMs: 15_000 };

/**
 * The retry budget of each preflight request: the client's usual attempts and backoff, a
 * `Retry-After` of up to 30 s honoured, and no retry starting later than 60 s after the first
 * attempt. With the request bounds above, one request gives up within 60 s plus one last
 * attempt's 20 s.
 */
export const PREFLIGHT_RETRY: RetryPolicy = Object.freeze({
  ...clientDefaults.retry,
  maxRetryAfterMs: 30_000,
  maxElapsedMs: 60_000,
});

/** Runs the checks; throws a {@link CliError} of kind `usage` with one line for the first problem. */
export async function preflight(input: PreflightInput): Promise<PreflightResult> {
  const { client, whoami } = await checkedClient(input);
  await client.close();
  return { whoami };
}

/**
 * The checks of {@link preflight}, returning the client for commands that go on calling the API
 * (the caller closes it).
 */
export async function checkedClient(
  input: PreflightInput,
): Promise<PreflightResult & { client: StackwrightClient }> {
  const fail = (what: string): never => {
    throw new CliError("usage", `stackwright ${input.command}: ${what}`);
  };
  const settings = resolveCredentials(input.config, input.env);
  const { baseUrl, email, token } = settings;
  if (baseUrl === undefined || email === undefined || token === undefined) {
    const missing = CREDENTIAL_SOURCES.filter((source) => settings[source.field] === undefined).map(
      (source) => `${source.env} (or stack config ${source.config})`,
    );
    return fail(`no API settings: set ${missing.join(", ")}`);
  }
  const urlProblem = baseUrlProblem(baseUrl.value);
  if (urlProblem !== undefined) return fail(`${baseUrl.from} ${urlProblem} (change ${baseUrl.from})`);
  const where = new URL(baseUrl.value);
  const api = `${where.origin}${where.pathname.replace(/\/+$/, "")}`;
  const timeouts = input.timeouts ?? DEFAULT_TIMEOUTS;
  const retry = input.retry ?? PREFLIGHT_RETRY;
  let client: StackwrightClient;
  try {
    client = createClient({
      baseUrl: baseUrl.value,
      email: email.value,
      token: token.value,
      connectTimeoutMs: timeouts.connectMs,
      headersTimeoutMs: timeouts.headersMs,
      retry,
      environment: input.env,
      // One command per process: its lists share one budget (src/client/read-budget.ts).
      readBudget: processReadBudget(),
    });
  } catch (error) {
    // A malformed proxy or concurrency variable: the message names it (never its value).
    if (error instanceof InvalidOptionsError) return fail(error.message.replace(/^\[([A-Za-z_]+)\] /, "$1 "));
    throw error;
  }
  try {
    const { whoami } = await client.info.whoami();
    await checkAccess(client, input.stacks, email, token, fail);
    // A platform that does not name the caller accepted these credentials: they are who it is.
    return { whoami: whoami ?? email.value, client };
  } catch (error) {
    await client.close();
    if (error instanceof CliError) throw error;
    // Rate limited past the budget: nothing to change but the time (or the fan-out's pace).
    if (error instanceof RateLimitError) {
      throw new CliError(
        "environment",
        `stackwright ${input.command}: rate limited: the API at ${api} answered ${error.method ?? "GET"} ${error.path ?? ""} ` +
          `with 429 (Too Many Requests) until the preflight's bound (${retry.maxAttempts} attempts within ` +
          `${retry.maxElapsedMs / 1000} s, Retry-After honoured up to ${retry.maxRetryAfterMs / 1000} s); ` +
          `try again later, or make fewer requests at once (--api-concurrency)`,
      );
    }
    // A platform that is down is not a setting to change: exit 4, like a missing backend.
    if (error instanceof ServerError) {
      throw new CliError(
        "environment",
        `stackwright ${input.command}: the API at ${api} failed: ${error.message}; try again later`,
      );
    }
    return fail(describeFailure(error, api, { baseUrl, email, token }, input.env));
  }
}

/** Every stack of stacks-config/ must be one the user can see. */
async function checkAccess(
  client: StackwrightClient,
  stacks: PreflightInput["stacks"],
  email: ResolvedSetting,
  token: ResolvedSetting,
  fail: (what: string) => never,
): Promise<void> {
  const hidden = await hiddenStacks(client, stacks);
  if (hidden.length > 0) fail(noAccessLine(hidden, email, token));
}

/** The stacks of `stacks` the client's user cannot see (one list request; none when `stacks` is empty). */
async function hiddenStacks(
  client: StackwrightClient,
  stacks: PreflightInput["stacks"],
): Promise<PreflightInput["stacks"]> {
  if (stacks.length === 0) return [];
  const visible = new Set((await client.stacks.list()).map((stack) => stack.id));
  return stacks.filter((stack) => !visible.has(stack.name));
}

function noAccessLine(
  hidden: PreflightInput["stacks"],
  email: ResolvedSetting,
  token: ResolvedSetting,
): string {
  const named = hidden
    .map((stack) => `'${stack.name}'${stack.file === "" ? "" : ` (${stack.file})`}`)
    .join(", ");
  return (
    `${email.value} has no access to stack ${named}; ask an owner of the stack to add this user to its team, ` +
    `or use the credentials of a user who has access (${email.from}, ${token.from})`
  );
}

/**
 * The preflight of a run over several stacks: settings and credentials as {@link preflight} (one
 * line and exit 2 for the first problem), then which of `stacks` the user cannot see, each with
 * its own line, so that those stacks fail alone, before their engine starts, and the others run.
 */
export async function preflightFleet(
  input: PreflightInput,
): Promise<{ whoami: string; hidden: ReadonlyMap<string, string> }> {
  const { client, whoami } = await checkedClient({ ...input, stacks: [] });
  try {
    const settings = resolveCredentials(input.config, input.env);
    const hidden = new Map<string, string>();
    const { email, token } = settings;
    if (email === undefined || token === undefined) return { whoami, hidden };
    for (const stack of await hiddenStacks(client, input.stacks)) {
      hidden.set(stack.name, `stackwright ${input.command}: ${noAccessLine([stack], email, token)}`);
    }
    return { whoami, hidden };
  } finally {
    await client.close();
  }
}

/** Which proxy the API's requests went through, for a connection failure (no credentials). */
function proxyNote(api: string, env: Readonly<Record<string, string | undefined>>): string {
  const proxies = proxySettings(env);
  if (proxies.apiProxy !== undefined) {
    return proxies.apiProxy === "direct"
      ? ` (directly: ${API_PROXY_VARIABLE}=direct)`
      : ` (through the proxy ${shownProxy(proxies.apiProxy)} of ${API_PROXY_VARIABLE})`;
  }
  const https = api.startsWith("https:");
  const proxy = https ? (proxies.httpsProxy ?? proxies.httpProxy) : proxies.httpProxy;
  if (proxy === undefined) return "";
  const variable = https && proxies.httpsProxy !== undefined ? "HTTPS_PROXY" : "HTTP_PROXY";
  return ` (through the proxy ${shownProxy(proxy)} of ${variable}, unless NO_PROXY names the host)`;
}

/** One line for a failed identity or stack-list call. */
function describeFailure(
  error: unknown,
  api: string,
  settings: { baseUrl: ResolvedSetting; email: ResolvedSetting; token: ResolvedSetting },
  env: Readonly<Record<string, string | undefined>>,
): string {
  const { baseUrl, email, token } = settings;
  if (error instanceof AuthenticationError) {
    return `the API at ${api} refused the credentials of ${email.value} (401); check ${token.from} and ${email.from}`;
  }
  if (error instanceof PermissionError) {
    return `the API at ${api} does not let ${email.value} read who they are (403); check ${email.from} and ${token.from}`;
  }
  if (error instanceof ConnectionError) {
    const tls = tlsProblem(error.cause);
    if (tls !== undefined) return `TLS to ${new URL(api).host} failed: ${tls.reason}`;
    // undici's ProxyAgent reports a refused tunnel only in its message.
    const tunnel = /^Proxy response \((\d{3})\)/.exec(error.cause?.message ?? "")?.[1];
    const why =
      tunnel === "407"
        ? "the proxy answered 407 to CONNECT: check the user and password in the proxy's URL"
        : tunnel !== undefined
          ? `the proxy answered ${tunnel} to CONNECT`
          : error.cause?.code;
    return `cannot reach the API at ${api}${why === undefined ? "" : ` (${why})`}${proxyNote(api, env)}; check ${baseUrl.from} and that the API is up`;
  }
  if (error instanceof TimeoutError) {
    return `the API at ${api} did not answer within ${error.timeoutMs} ms; check ${baseUrl.from} and the network`;
  }
  if (error instanceof NotFoundError || error instanceof UnexpectedResponseError) {
    return `${api} does not answer like the Deployment Management API (${error.message}); check ${baseUrl.from}`;
  }
  if (ApiError.isInstance(error))
    return `the API at ${api} answered unexpectedly: ${error.message}; check ${baseUrl.from}`;
  return `the API check failed: ${error instanceof Error ? error.message : String(error)}`;
}
