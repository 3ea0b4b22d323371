/**
 * `createClient`: validates options (unknown ones are rejected with the list of allowed ones),
 * resolves settings over {@link clientDefaults}, builds the transport and wires the resources.
 */
import type { Dispatcher } from "undici";
import { z } from "zod";
import {
  cleartextProblem,
  isLoopbackHost,
  type Deployment,
  type GitFetch,
  type Snapshot,
  type Transfer,
} from "../api";
import { Credentials } from "./auth";
import { clientDefaults, type ClientDefaults, type PollPolicy, type RetryPolicy } from "./defaults";
import { Deployments } from "./deployments";
import { Environments } from "./environments";
import { InvalidOptionsError } from "./errors";
import { Fetches } from "./fetches";
import type { ClientLogger } from "./attempt";
import { jsonPath } from "./decode";
import { HttpCore } from "./http";
import { Info } from "./info";
import { Locks } from "./locks";
import { ReadBudget } from "./read-budget";
import { Records } from "./records";
import { Snapshots } from "./snapshots";
import { Transfers } from "./transfers";
import { Stacks } from "./stacks";
import { acquireTransport, proxySettings } from "./transport";
import {
  waitForDeployment,
  waitForFetch,
  waitForSnapshot,
  waitForTransfer,
  type WaitOptions,
  type WaitReaders,
} from "./waiters";

const positiveInt = z.number().int().positive();
const nonNegativeInt = z.number().int().nonnegative();

const RetryOptions = z.strictObject({
  maxAttempts: positiveInt.optional(),
  baseDelayMs: nonNegativeInt.optional(),
  maxDelayMs: nonNegativeInt.optional(),
  maxRetryAfterMs: nonNegativeInt.optional(),
  maxElapsedMs: nonNegativeInt.optional(),
});

const PollOptions = z.strictObject({
  firstPollMs: nonNegativeInt.optional(),
  intervalMs: positiveInt.optional(),
  multiplier: z.number().min(1).optional(),
  maxIntervalMs: positiveInt.optional(),
  timeoutMs: positiveInt.optional(),
});

/** Schema of {@link ClientOptions}; strict, so a misspelt option is an error. */
export const ClientOptionsSchema = z.strictObject({
  /** Base URL, e.g. `https://dash.example.com`; paths `/svc/...` and `/api/v1/...` go below it. */
  baseUrl: z.string().min(1),
  /** Login e-mail (Basic auth user name). */
  email: z.string().min(1),
  /** API token (Basic auth password). Never logged or serialized. */
  token: z.string().min(1),
  /** Allow `http:` to a host that is not loopback (the token would travel in clear text). */
  allowInsecureHttp: z.boolean().optional(),
  /** An undici Dispatcher to use instead of the client's own Agent; the caller closes it. */
  dispatcher: z
    .custom<Dispatcher>((v) => typeof v === "object" && v !== null && "request" in v, {
      message: "expected an undici Dispatcher",
    })
    .optional(),
  /**
   * Where the client reads `HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`, `STACKWRIGHT_PROXY` and
   * `STACKWRIGHT_API_CONCURRENCY` (default: `process.env`); see `transport.ts`. Not used with an
   * injected `dispatcher`.
   */
  environment: z
    .custom<Readonly<Record<string, string | undefined>>>((v) => typeof v === "object" && v !== null, {
      message: "expected an object of environment variables",
    })
    .optional(),
  /** Receives structured log events (no headers, bodies or credentials). */
  logger: z
    .custom<ClientLogger>((v) => typeof v === "function", { message: "expected a function" })
    .optional(),
  userAgent: z.string().min(1).optional(),
  connectTimeoutMs: positiveInt.optional(),
  headersTimeoutMs: positiveInt.optional(),
  bodyTimeoutMs: positiveInt.optional(),
  bodyDeadlineMs: positiveInt.optional(),
  keepAliveTimeoutMs: positiveInt.optional(),
  /**
   * Requests in flight to the API at once, shared by every client of the process with the same
   * settings (default: `STACKWRIGHT_API_CONCURRENCY`, else 8).
   */
  maxConnections: positiveInt.optional(),
  maxResponseBytes: positiveInt.optional(),
  maxPages: positiveInt.optional(),
  maxListBytes: positiveInt.optional(),
  /**
   * A byte budget the lists of several clients share (a command's: `processReadBudget()`); see
   * `read-budget.ts`. Without it each list is bounded by `maxListBytes` alone.
   */
  readBudget: z
    .custom<ReadBudget>((v) => v instanceof ReadBudget, { message: "expected a ReadBudget" })
    .optional(),
  maxMarkerProbes: positiveInt.optional(),
  retry: RetryOptions.optional(),
  poll: PollOptions.optional(),
});

/** Options of {@link createClient}. */
export type ClientOptions = z.input<typeof ClientOptionsSchema>;

/** The typed API client. */
export interface StackwrightClient {
  readonly info: Info;
  readonly stacks: Stacks;
  readonly environments: Environments;
  readonly deployments: Deployments;
  readonly snapshots: Snapshots;
  readonly transfers: Transfers;
  readonly fetches: Fetches;
  readonly locks: Locks;
  readonly records: Records;
  /** Settings in force (defaults merged with options). */
  readonly settings: ClientDefaults;
  /** Polls until Completed; a failure state throws WaitFailedError. */
  waitForDeployment(
    stack: string,
    environment: string,
    id: string | number,
    options?: WaitOptions,
  ): Promise<Deployment>;
  /** Polls until Finished; Failed throws WaitFailedError. */
  waitForTransfer(stack: string, transferId: string | number, options?: WaitOptions): Promise<Transfer>;
  /** Polls until Complete; Failed throws WaitFailedError. */
  waitForFetch(stack: string, fetchId: string | number, options?: WaitOptions): Promise<GitFetch>;
  /** Polls until the snapshot is complete. */
  waitForSnapshot(stack: string, snapshotId: string | number, options?: WaitOptions): Promise<Snapshot>;
  /** Closes the client's own connection pool (not an injected dispatcher). */
  close(): Promise<void>;
}

const ALLOWED = Object.keys(ClientOptionsSchema.shape);

export { isLoopbackHost };

/** Explains option problems without echoing values (one of them may be the token). */
function optionsError(error: z.ZodError): InvalidOptionsError {
  const lines = error.issues.map((issue) => {
    if (issue.code === "unrecognized_keys") {
      const where = issue.path.length === 0 ? "" : `${jsonPath(issue.path).replace(/^\$\.?/, "")}.`;
      const allowed =
        issue.path[0] === "retry"
          ? Object.keys(RetryOptions.shape)
          : issue.path[0] === "poll"
            ? Object.keys(PollOptions.shape)
            : ALLOWED;
      return `unknown option ${issue.keys.map((k) => `[${where}${k}]`).join(", ")}; allowed: ${allowed.join(", ")}`;
    }
    return `[${jsonPath(issue.path).replace(/^\$\.?/, "")}] ${issue.message}`;
  });
  return new InvalidOptionsError(`Invalid client options: ${lines.join("; ")}`);
}

/**
 * What is wrong with `text` as the API's base URL, or undefined. The message completes "<the
 * setting> ..." and carries no value that could be a secret (user info is never echoed).
 */
export function baseUrlProblem(text: string, allowInsecureHttp = false): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "is not an absolute URL (expected https://host or https://host/base-path)";
  }
  if (url.username !== "" || url.password !== "") {
    // Credentials in a URL end up in logs and error messages; they belong in email/token.
    return "must not contain credentials (user:password@); the e-mail and token are separate settings";
  }
  if (url.search !== "" || url.hash !== "") return "must not have a query or fragment";
  return cleartextProblem(url, "the API token", { allowInsecureHttp });
}

function parseBaseUrl(text: string, allowInsecureHttp: boolean): URL {
  const problem = baseUrlProblem(text, allowInsecureHttp);
  if (problem !== undefined) {
    const hint = problem.startsWith("uses http")
      ? ", or set allowInsecureHttp: true if this network is trusted"
      : "";
    throw new InvalidOptionsError(`[baseUrl] ${problem}${hint}`);
  }
  return new URL(text);
}

/**
 * Creates a client. Throws InvalidOptionsError for unknown or invalid options, a non-https base
 * URL to a non-loopback host (unless `allowInsecureHttp`), or credentials in the URL.
 */
export function createClient(options: ClientOptions): StackwrightClient {
  const parsed = ClientOptionsSchema.safeParse(options);
  if (!parsed.success) throw optionsError(parsed.error);
  const o = parsed.data;
  const url = parseBaseUrl(o.baseUrl, o.allowInsecureHttp === true);
  const env = o.environment ?? process.env;
  const settings: ClientDefaults = {
    connectTimeoutMs: o.connectTimeoutMs ?? clientDefaults.connectTimeoutMs,
    headersTimeoutMs: o.headersTimeoutMs ?? clientDefaults.headersTimeoutMs,
    bodyTimeoutMs: o.bodyTimeoutMs ?? clientDefaults.bodyTimeoutMs,
    bodyDeadlineMs: o.bodyDeadlineMs ?? clientDefaults.bodyDeadlineMs,
    keepAliveTimeoutMs: o.keepAliveTimeoutMs ?? clientDefaults.keepAliveTimeoutMs,
    maxConnections: o.maxConnections ?? apiConcurrencyOf(env) ?? clientDefaults.maxConnections,
    maxResponseBytes: o.maxResponseBytes ?? clientDefaults.maxResponseBytes,
    maxPages: o.maxPages ?? clientDefaults.maxPages,
    maxListBytes: o.maxListBytes ?? clientDefaults.maxListBytes,
    maxMarkerProbes: o.maxMarkerProbes ?? clientDefaults.maxMarkerProbes,
    retry: mergeDefined<RetryPolicy>(clientDefaults.retry, o.retry),
    poll: mergeDefined<PollPolicy>(clientDefaults.poll, o.poll),
  };
  // An injected dispatcher carries every request and stays the caller's to close.
  const transport =
    o.dispatcher === undefined
      ? acquireTransport(settings, proxySettings(env))
      : { api: o.dispatcher, other: o.dispatcher, release: () => Promise.resolve() };
  const http = new HttpCore({
    origin: url.origin,
    basePath: url.pathname.replace(/\/+$/, ""),
    credentials: new Credentials(o.email, o.token),
    dispatcher: transport.api,
    elsewhere: transport.other,
    settings,
    readBudget: o.readBudget,
    logger: safeLogger(o.logger),
    userAgent: o.userAgent ?? "stackwright-client/0.1",
    random: Math.random,
    now: () => performance.now(),
  });
  const deployments = new Deployments(http);
  const snapshots = new Snapshots(http);
  const fetches = new Fetches(http);
  const readers: WaitReaders = {
    getDeployment: (stack, environment, id, signal) => deployments.get(stack, environment, id, { signal }),
    getTransfer: (stack, id, signal) => snapshots.transfer(stack, id, { signal }),
    getFetch: (stack, id, signal) => fetches.get(stack, id, { signal }),
    getSnapshot: (stack, id, signal) => snapshots.get(stack, id, { signal }),
    poll: settings.poll,
  };
  return {
    info: new Info(http),
    stacks: new Stacks(http),
    environments: new Environments(http),
    deployments,
    snapshots,
    transfers: new Transfers(http),
    fetches,
    locks: new Locks(http),
    records: new Records(http),
    settings,
    waitForDeployment: (stack, environment, id, opts) =>
      waitForDeployment(readers, stack, environment, id, opts),
    waitForTransfer: (stack, id, opts) => waitForTransfer(readers, stack, id, opts),
    waitForFetch: (stack, id, opts) => waitForFetch(readers, stack, id, opts),
    waitForSnapshot: (stack, id, opts) => waitForSnapshot(readers, stack, id, opts),
    close: async () => {
      await transport.release();
    },
  };
}

/** The variable that bounds the requests in flight to the API per process (`--api-concurrency`). */
export const API_CONCURRENCY_VARIABLE = "STACKWRIGHT_API_CONCURRENCY";

/** `STACKWRIGHT_API_CONCURRENCY` of `env`: undefined when unset, an InvalidOptionsError when malformed. */
export function apiConcurrencyOf(env: Readonly<Record<string, string | undefined>>): number | undefined {
  const text = env[API_CONCURRENCY_VARIABLE];
  if (text === undefined || text === "") return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 1024) {
    throw new InvalidOptionsError(
      `[${API_CONCURRENCY_VARIABLE}] must be a whole number from 1 to 1024, not '${text.slice(0, 20)}'`,
    );
  }
  return n;
}

/** Wraps the caller's logger so that a throwing logger cannot fail an API call. */
function safeLogger(logger: ClientLogger | undefined): ClientLogger {
  if (logger === undefined) return () => undefined;
  return (event) => {
    try {
      logger(event);
    } catch {
      // Logging is best effort; a deployment must not fail because a log sink did.
    }
  };
}

/** `base` with every field of `over` that is defined. */
function mergeDefined<T extends object>(base: T, over: { [K in keyof T]?: T[K] | undefined } | undefined): T {
  const out = { ...base };
  if (over === undefined) return out;
  for (const key of Object.keys(over) as (keyof T)[]) {
    const value = over[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}
