/**
 * One request on the wire: headers and credentials, the transport's timeouts, a byte cap on the
 * body, and the mapping of what happened (a response, a timeout, a refused connection, a broken
 * one) to an outcome the retry loop of `http.ts` decides on. Only this module talks to the
 * transport.
 */
import type { Dispatcher } from "undici";
import { MEDIA_TYPE } from "../api";
import type { Credentials } from "./auth";
import type { ClientDefaults } from "./defaults";
import { errorTitles, parseJson, type ResponseContext } from "./decode";
import {
  AbortedError,
  ApiError,
  ConnectionError,
  ResponseTooLargeError,
  TimeoutError,
  errorFromResponse,
} from "./errors";
import { codeOf } from "./property";
import type { ReadBudget } from "./read-budget";
import { tlsError } from "./tls";
import { classifyNetworkError, parseRetryAfter, type AttemptOutcome } from "./retry";

/** One structured log line. Never carries headers, bodies or credentials. */
export type ClientLogEvent =
  | { event: "response"; method: string; path: string; status: number; attempt: number; durationMs: number }
  | { event: "network-error"; method: string; path: string; attempt: number; failure: string; code: string }
  | { event: "retry"; method: string; path: string; attempt: number; delayMs: number; reason: string }
  | { event: "lookup"; method: string; path: string; attempt: number; found: boolean };

/** Receives {@link ClientLogEvent}s; the default drops them. */
export type ClientLogger = (event: ClientLogEvent) => void;

/** What a request needs besides the transport. */
export interface HttpContext {
  /** Origin plus optional base path, without a trailing slash, e.g. `https://api.example/base`. */
  origin: string;
  basePath: string;
  credentials: Credentials;
  /** Carries the requests to the API's origin. */
  dispatcher: Dispatcher;
  /** Carries requests to any other origin (a `download_link` on a storage host). */
  elsewhere: Dispatcher;
  settings: ClientDefaults;
  /** Bytes the lists of this client's process may still read; undefined: only `maxListBytes`. */
  readBudget?: ReadBudget | undefined;
  logger: ClientLogger;
  userAgent: string;
  /** Injectable for unit tests of the loop. */
  random: () => number;
  now: () => number;
}

/** HTTP methods the API uses. */
export type Method = "GET" | "HEAD" | "POST" | "PUT" | "DELETE";

/** What one attempt sends. */
export interface RequestSpec {
  method: Method;
  /** JSON body; omitted for GET and DELETE. */
  body?: unknown;
  signal?: AbortSignal | undefined;
  /**
   * Sees the size of a 2xx body before it is parsed and may refuse it by throwing: a list's byte
   * budget, so the page that passes it is never parsed (parsing multiplies its size in memory).
   */
  admit?: ((bytes: number) => void) | undefined;
}

/** The outcome of one attempt: a 2xx body, or why it failed and the error to report. */
export type AttemptResult =
  | { ok: true; body: unknown; ctx: ResponseContext }
  | { ok: false; outcome: AttemptOutcome; error: ApiError };

/** Headers of every request: media type, API version, user agent and the credentials. */
export function requestHeaders(ctx: HttpContext, extra: Record<string, string> = {}): Record<string, string> {
  return {
    accept: MEDIA_TYPE,
    "x-api-version": "2.0",
    "user-agent": ctx.userAgent,
    authorization: ctx.credentials.authorization(),
    ...extra,
  };
}

/** Sends one request and reads its (capped) body; classifies any failure for the retry loop. */
export async function attemptOnce(
  ctx: HttpContext,
  spec: RequestSpec,
  fullPath: string,
  attempt: number,
): Promise<AttemptResult> {
  const { method } = spec;
  const t0 = ctx.now();
  let raw: { status: number; headers: Dispatcher.ResponseData["headers"]; text: string; bytes: number };
  try {
    raw = await send(ctx, spec, fullPath);
  } catch (thrown) {
    return { ok: false, ...networkFailure(ctx, spec, fullPath, attempt, thrown) };
  }
  const requestId = headerValue(raw.headers, "x-request-id");
  ctx.logger({
    event: "response",
    method,
    path: fullPath,
    status: raw.status,
    attempt,
    durationMs: ctx.now() - t0,
  });
  const response: ResponseContext = { method, path: fullPath, status: raw.status, requestId };
  if (raw.status >= 200 && raw.status < 300) {
    spec.admit?.(raw.bytes);
    return { ok: true, body: parseJson(raw.text, response, raw.status === 204), ctx: response };
  }
  const retryAfterMs = parseRetryAfter(headerValue(raw.headers, "retry-after"), Date.now());
  return {
    ok: false,
    outcome: { kind: "status", status: raw.status, retryAfterMs },
    error: errorFromResponse({
      status: raw.status,
      method,
      path: fullPath,
      titles: errorTitles(raw.text),
      requestId,
      retryAfterMs,
    }),
  };
}

/** Maps a thrown transport error to an outcome, or rethrows what must not be retried. */
function networkFailure(
  ctx: HttpContext,
  spec: RequestSpec,
  fullPath: string,
  attempt: number,
  thrown: unknown,
): { outcome: AttemptOutcome; error: ApiError } {
  const { method } = spec;
  if (ApiError.isInstance(thrown) && !(thrown instanceof ConnectionError)) throw thrown;
  if (spec.signal?.aborted === true) throw abortedError(method, fullPath);
  const tls = tlsError(method, fullPath, ctx.origin, thrown);
  if (tls !== undefined) throw tls;
  const failure = classifyNetworkError(thrown);
  const code = codeOf(thrown);
  ctx.logger({ event: "network-error", method, path: fullPath, attempt, failure, code: code ?? "unknown" });
  if (failure === "timeout") {
    // Which bound fired decides the message: no headers at all, or a body that stalled.
    const body = code === "UND_ERR_BODY_TIMEOUT";
    const timeoutMs = body ? ctx.settings.bodyTimeoutMs : ctx.settings.headersTimeoutMs;
    const what = body ? "the response body stalled for" : "no response within";
    return {
      outcome: { kind: "timeout" },
      error: new TimeoutError(
        `${method} ${fullPath}: ${what} ${timeoutMs} ms (${body ? "bodyTimeoutMs" : "headersTimeoutMs"})`,
        { method, path: fullPath, timeoutMs, cause: thrown },
      ),
    };
  }
  if (failure === "connect-failed") {
    return {
      outcome: { kind: "connect-failed" },
      error: new ConnectionError(`${method} ${fullPath}: could not connect to ${ctx.origin}`, {
        method,
        path: fullPath,
        requestSent: false,
        cause: thrown,
      }),
    };
  }
  const error = new ConnectionError(
    `${method} ${fullPath}: the connection broke before a complete response arrived`,
    {
      method,
      path: fullPath,
      requestSent: true,
      cause: thrown,
    },
  );
  // "other" is an error we do not understand: surface it unchanged in kind, never repeat it.
  if (failure === "other") throw error;
  return { outcome: { kind: "network" }, error };
}

async function send(ctx: HttpContext, spec: RequestSpec, fullPath: string) {
  const { settings } = ctx;
  const body = spec.body === undefined ? null : JSON.stringify(spec.body);
  const response = await ctx.dispatcher.request({
    origin: ctx.origin,
    path: fullPath,
    method: spec.method,
    headers: requestHeaders(ctx, body === null ? {} : { "content-type": MEDIA_TYPE }),
    body,
    signal: spec.signal ?? null,
    headersTimeout: settings.headersTimeoutMs,
    bodyTimeout: settings.bodyTimeoutMs,
  });
  // The idle bound (bodyTimeout) cannot stop a body that sends a byte just often enough; this
  // overall bound does. A body cut here is not repeated: the next one would trickle as well.
  let expired = false;
  const deadline = setTimeout(() => {
    expired = true;
    discardBody(response);
  }, settings.bodyDeadlineMs);
  try {
    const { text, bytes } = await readCapped(response, settings.maxResponseBytes, spec.method, fullPath);
    return { status: response.statusCode, headers: response.headers, text, bytes };
  } catch (error) {
    if (!expired) throw error;
    throw new TimeoutError(
      `${spec.method} ${fullPath}: the response body took longer than ${settings.bodyDeadlineMs} ms in all ` +
        `(bodyDeadlineMs); not repeated`,
      { method: spec.method, path: fullPath, timeoutMs: settings.bodyDeadlineMs, cause: error },
    );
  } finally {
    clearTimeout(deadline);
  }
}

/**
 * Reads a body up to `limit` bytes. A larger Content-Length is refused before reading; a body
 * that grows past the limit is destroyed mid-stream so memory stays bounded either way.
 */
async function readCapped(
  response: Dispatcher.ResponseData,
  limit: number,
  method: string,
  path: string,
): Promise<{ text: string; bytes: number }> {
  const tooLarge = () =>
    new ResponseTooLargeError(
      `${method} ${path}: response body exceeds ${limit} bytes (maxResponseBytes); not buffered`,
      { method, path, status: response.statusCode, limitBytes: limit },
    );
  const declared = Number(headerValue(response.headers, "content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > limit) {
    discardBody(response);
    throw tooLarge();
  }
  // A declared length within the limit bounds the body already (undici refuses a body longer
  // than its Content-Length), so read it whole: async iteration costs a microtask per chunk and
  // showed in the client's profile. Without a length, count bytes as they come.
  if (Number.isFinite(declared)) return { text: await response.body.text(), bytes: declared };
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > limit) {
      discardBody(response);
      throw tooLarge();
    }
    chunks.push(buffer);
  }
  return { text: Buffer.concat(chunks).toString("utf8"), bytes: size };
}

/**
 * Destroys a body that will not be read. Destroying makes undici emit an abort error; the
 * listener keeps it from being reported as unhandled, since the caller gets a better error.
 */
export function discardBody(response: Dispatcher.ResponseData): void {
  response.body.on("error", () => undefined);
  response.body.destroy();
}

/** The first value of a response header. */
export function headerValue(
  headers: Record<string, string | string[] | undefined>,
  name: string,
): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The error of a call the caller's signal aborted. */
export function abortedError(method: string, path: string): AbortedError {
  return new AbortedError(`${method} ${path}: aborted by the caller's signal`, { method, path });
}
