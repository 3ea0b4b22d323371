/**
 * The HTTP core: one request with headers, timeouts, a byte cap, error documents and response
 * validation, inside the retry loop that `retry.ts` decides. Resource modules describe calls;
 * only this module talks to the transport.
 */
import { setTimeout as sleepTimer } from "node:timers/promises";
import type { Dispatcher } from "undici";
import type { z } from "zod";
import { ApiErrorDocument, ListLinks, MEDIA_TYPE } from "../api";
import type { Credentials } from "./auth";
import type { CallOptions } from "./call-options";
import type { ClientDefaults } from "./defaults";
import {
  AbortedError,
  ApiError,
  ConnectionError,
  OutcomeUnknownError,
  ResponseTooLargeError,
  TimeoutError,
  UnexpectedResponseError,
  errorFromResponse,
} from "./errors";
import { queryString, type QueryValue } from "./paths";
import {
  classifyNetworkError,
  decideRetry,
  outcomeAmbiguous,
  parseRetryAfter,
  type AttemptOutcome,
  type CallSafety,
} from "./retry";

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
  dispatcher: Dispatcher;
  settings: ClientDefaults;
  logger: ClientLogger;
  userAgent: string;
  /** Injectable for unit tests of the loop. */
  random: () => number;
  now: () => number;
}

/** Context a decoder receives, for precise error messages. */
export interface ResponseContext {
  method: string;
  path: string;
  status: number;
  requestId: string | undefined;
}

/** Turns a parsed JSON body into the method's result (or throws UnexpectedResponseError). */
export type Decoder<T> = (body: unknown, ctx: ResponseContext) => T;

/** Description of one API call. */
export interface CallSpec<T> {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** Path below the base URL, every dynamic segment already encoded by `paths.segment`. */
  path: string;
  query?: Query | undefined;
  /** JSON body; omitted for GET and DELETE. */
  body?: unknown;
  safety: CallSafety;
  /** Builds the result from a 2xx body (`undefined` for an empty 204 body). */
  decode: Decoder<T>;
  /**
   * For creates only: looks for the object an earlier, ambiguous attempt may have made. Returns
   * it (the call then succeeds with it) or undefined (the call is repeated). Without a lookup an
   * ambiguous create fails with OutcomeUnknownError instead of being repeated.
   */
  lookup?: (() => Promise<T | undefined>) | undefined;
  /**
   * For DELETE: a 404 on a repeat after an ambiguous attempt means the earlier attempt did the
   * work, so the call succeeds with this value.
   */
  goneAfterRetry?: (() => T) | undefined;
  signal?: AbortSignal | undefined;
}

/** Result of one attempt that produced a response. */
interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Validates `body` against `schema` and maps it; names the first mismatching JSON path. */
export function decodeWith<S extends z.ZodType, T>(schema: S, select: (value: z.infer<S>) => T): Decoder<T> {
  return (body, ctx) => {
    const parsed = schema.safeParse(body);
    if (parsed.success) return select(parsed.data);
    const issues = parsed.error.issues.map((issue) => `${jsonPath(issue.path)}: ${issue.message}`);
    const first = parsed.error.issues[0];
    const path = first === undefined ? "$" : jsonPath(first.path);
    throw new UnexpectedResponseError(
      `${ctx.method} ${ctx.path} answered ${ctx.status} with a body that does not match the API schema at ${path}: ${first?.message ?? "invalid"}`,
      { ...ctx, jsonPath: path, issues },
    );
  };
}

/** A decoder for responses without a body (204). */
export const noContent: Decoder<void> = () => undefined;

/** A decoder that validates a JSON:API document and returns its `data`. */
export function dataOf<S extends z.ZodType<{ data: unknown }>>(schema: S): Decoder<z.infer<S>["data"]> {
  return decodeWith(schema, (doc: { data: unknown }) => doc.data as z.infer<S>["data"]);
}

/** A decoder of one page of a list document: its items and its `links.next`. */
export function pageOf<
  S extends z.ZodType<{ data: unknown[]; links?: z.infer<typeof ListLinks> | undefined }>,
>(schema: S): Decoder<Page<z.infer<S>["data"][number]>> {
  return decodeWith(schema, (doc: z.infer<S>) => ({ items: doc.data, next: nextLink(doc.links) }));
}

/** One page of a list: its items and the next page's link, if any. */
export interface Page<T> {
  items: T[];
  next: string | undefined;
}

/** The query of a call. */
export type Query = Readonly<Record<string, QueryValue>>;

/** `["data", 0, "id"]` → `$.data[0].id`. */
export function jsonPath(path: readonly PropertyKey[]): string {
  let out = "$";
  for (const key of path) {
    out +=
      typeof key === "number"
        ? `[${key}]`
        : /^[A-Za-z_$][\w$]*$/.test(String(key))
          ? `.${String(key)}`
          : `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

/** Runs calls: one transport, one set of settings; created by `createClient`. */
export class HttpCore {
  readonly #ctx: HttpContext;

  constructor(ctx: HttpContext) {
    this.#ctx = ctx;
  }

  /** Settings in force (read by waiters and list helpers). */
  get settings(): ClientDefaults {
    return this.#ctx.settings;
  }

  /** Performs a call with the retry policy; see `retry.ts` for what is repeated when. */
  async call<T>(spec: CallSpec<T>): Promise<T> {
    const { settings, now, logger } = this.#ctx;
    const fullPath = `${this.#ctx.basePath}${spec.path}${queryString(spec.query)}`;
    const started = now();
    // Whether an earlier attempt may have acted on the server (so a later 404 can mean "done").
    let mayHaveActed = false;
    for (let attempt = 1; ; attempt++) {
      throwIfAborted(spec.signal, spec.method, fullPath);
      const { outcome, error, response } = await this.#attempt(spec, fullPath, attempt);
      if (response !== undefined) {
        return spec.decode(response.body, response.ctx);
      }
      if (
        mayHaveActed &&
        spec.goneAfterRetry !== undefined &&
        outcome.kind === "status" &&
        outcome.status === 404
      ) {
        return spec.goneAfterRetry();
      }
      const decision = decideRetry({
        outcome,
        safety: spec.safety,
        hasLookup: spec.lookup !== undefined,
        attempt,
        elapsedMs: now() - started,
        policy: settings.retry,
        random: this.#ctx.random,
      });
      if (decision.action === "fail") throw error;
      if (decision.action === "unknown-outcome") {
        throw new OutcomeUnknownError(
          `${spec.method} ${fullPath} may or may not have taken effect (${error.message}). ` +
            `It was not repeated because that could create a duplicate; look for the object (for example ` +
            `with a marker in its title or notes) before trying again.`,
          {
            method: spec.method,
            path: fullPath,
            status: error.status,
            requestId: error.requestId,
            reason: error,
          },
        );
      }
      mayHaveActed ||= outcomeAmbiguous(outcome);
      logger({
        event: "retry",
        method: spec.method,
        path: fullPath,
        attempt,
        delayMs: decision.delayMs,
        reason: error.code,
      });
      await sleep(decision.delayMs, spec.signal, spec.method, fullPath);
      if (decision.lookupFirst && spec.lookup !== undefined) {
        let found: T | undefined;
        try {
          found = await spec.lookup();
        } catch (lookupError) {
          throw new OutcomeUnknownError(
            `${spec.method} ${fullPath} may or may not have taken effect (${error.message}), and looking for ` +
              `the object failed: ${lookupError instanceof Error ? lookupError.message : String(lookupError)}`,
            { method: spec.method, path: fullPath, reason: error },
          );
        }
        logger({ event: "lookup", method: spec.method, path: fullPath, attempt, found: found !== undefined });
        if (found !== undefined) return found;
      }
    }
  }

  /**
   * Follows `links.next` of a list, up to `maxPages`, accepting only links on the same origin and
   * base path (credentials must never travel to a host a response names).
   */
  async list<T>(spec: CallSpec<Page<T>>): Promise<T[]> {
    const items: T[] = [];
    const seen = new Set<string>();
    let current: CallSpec<Page<T>> = spec;
    for (let page = 1; ; page++) {
      const result = await this.call(current);
      items.push(...result.items);
      if (result.next === undefined) return items;
      const nextPath = this.#sameOriginPath(result.next, spec.method, spec.path);
      if (seen.has(nextPath)) {
        throw new UnexpectedResponseError(`${spec.method} ${spec.path}: links.next repeats ${nextPath}`, {
          method: spec.method,
          path: spec.path,
          jsonPath: "$.links.next",
          issues: ["pagination loop"],
        });
      }
      seen.add(nextPath);
      if (page >= this.#ctx.settings.maxPages) {
        throw new ResponseTooLargeError(
          `${spec.method} ${spec.path} has more than ${this.#ctx.settings.maxPages} pages (maxPages); ` +
            `narrow the query or raise maxPages`,
          { method: spec.method, path: spec.path, limitBytes: this.#ctx.settings.maxResponseBytes },
        );
      }
      // The next link carries its own query; paths here are relative to the base path.
      current = { ...spec, path: nextPath.slice(this.#ctx.basePath.length), query: undefined };
    }
  }

  /** GET `path`: idempotent, so repeated on transient failures. */
  async get<T>(path: string, decode: Decoder<T>, options: CallOptions, query?: Query): Promise<T> {
    return this.call({ method: "GET", path, query, safety: "idempotent", signal: options.signal, decode });
  }

  /** GET every page of the list at `path` (see {@link list}). */
  async getAll<T>(path: string, decode: Decoder<Page<T>>, options: CallOptions, query?: Query): Promise<T[]> {
    return this.list({ method: "GET", path, query, safety: "idempotent", signal: options.signal, decode });
  }

  /**
   * DELETE `path`. Idempotent, so repeated on transient failures; a 404 on a repeat after an
   * ambiguous attempt means the earlier attempt did the work, and counts as done.
   */
  async delete(path: string, options: CallOptions): Promise<void> {
    return this.call({
      method: "DELETE",
      path,
      safety: "idempotent",
      signal: options.signal,
      decode: noContent,
      goneAfterRetry: () => undefined,
    });
  }

  #sameOriginPath(link: string, method: string, path: string): string {
    let url: URL;
    try {
      url = new URL(link, `${this.#ctx.origin}${this.#ctx.basePath}/`);
    } catch {
      url = new URL("invalid://");
    }
    if (url.origin !== this.#ctx.origin || !url.pathname.startsWith(`${this.#ctx.basePath}/`)) {
      throw new UnexpectedResponseError(
        `${method} ${path}: links.next points outside the API (${url.origin}); not followed`,
        { method, path, jsonPath: "$.links.next", issues: ["foreign next link"] },
      );
    }
    return `${url.pathname}${url.search}`;
  }

  async #attempt<T>(
    spec: CallSpec<T>,
    fullPath: string,
    attempt: number,
  ): Promise<
    | { outcome: AttemptOutcome; error: ApiError; response?: undefined }
    | { outcome?: undefined; error?: undefined; response: { body: unknown; ctx: ResponseContext } }
  > {
    const { settings, logger, now } = this.#ctx;
    const method = spec.method;
    const t0 = now();
    let raw: RawResponse;
    try {
      raw = await this.#send(spec, fullPath);
    } catch (thrown) {
      if (ApiError.isInstance(thrown) && !(thrown instanceof ConnectionError)) throw thrown;
      if (spec.signal?.aborted === true) throw abortedError(method, fullPath);
      const failure = classifyNetworkError(thrown);
      const code = (thrown as { code?: unknown }).code;
      logger({
        event: "network-error",
        method,
        path: fullPath,
        attempt,
        failure,
        code: typeof code === "string" ? code : "unknown",
      });
      if (failure === "timeout") {
        // Which bound fired decides the message: no headers at all, or a body that stalled.
        const body = code === "UND_ERR_BODY_TIMEOUT";
        const timeoutMs = body ? settings.bodyTimeoutMs : settings.headersTimeoutMs;
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
          error: new ConnectionError(`${method} ${fullPath}: could not connect to ${this.#ctx.origin}`, {
            method,
            path: fullPath,
            requestSent: false,
            cause: thrown,
          }),
        };
      }
      const error = new ConnectionError(
        `${method} ${fullPath}: the connection broke before a complete response arrived`,
        { method, path: fullPath, requestSent: true, cause: thrown },
      );
      // "other" is an error we do not understand: surface it unchanged in kind, never repeat it.
      if (failure === "other") throw error;
      return { outcome: { kind: "network" }, error };
    }

    const requestId = headerValue(raw.headers, "x-request-id");
    logger({
      event: "response",
      method,
      path: fullPath,
      status: raw.status,
      attempt,
      durationMs: now() - t0,
    });
    const ctx: ResponseContext = { method, path: fullPath, status: raw.status, requestId };
    if (raw.status >= 200 && raw.status < 300) {
      return { response: { body: parseJson(raw.text, ctx, raw.status === 204), ctx } };
    }
    const retryAfterMs = parseRetryAfter(headerValue(raw.headers, "retry-after"), Date.now());
    return {
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

  async #send<T>(spec: CallSpec<T>, fullPath: string): Promise<RawResponse> {
    const { settings, credentials } = this.#ctx;
    const headers: Record<string, string> = {
      accept: MEDIA_TYPE,
      "x-api-version": "2.0",
      "user-agent": this.#ctx.userAgent,
      authorization: credentials.authorization(),
    };
    let body: string | undefined;
    if (spec.body !== undefined) {
      body = JSON.stringify(spec.body);
      headers["content-type"] = MEDIA_TYPE;
    }
    const response = await this.#ctx.dispatcher.request({
      origin: this.#ctx.origin,
      path: fullPath,
      method: spec.method,
      headers,
      body: body ?? null,
      signal: spec.signal ?? null,
      headersTimeout: settings.headersTimeoutMs,
      bodyTimeout: settings.bodyTimeoutMs,
    });
    const text = await readCapped(response, settings.maxResponseBytes, spec.method, fullPath);
    return { status: response.statusCode, headers: response.headers, text };
  }

  /** Closes the dispatcher when the client owns it. */
  async close(): Promise<void> {
    await this.#ctx.dispatcher.close();
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
): Promise<string> {
  const tooLarge = () =>
    new ResponseTooLargeError(
      `${method} ${path}: response body exceeds ${limit} bytes (maxResponseBytes); not buffered`,
      { method, path, status: response.statusCode, limitBytes: limit },
    );
  // Destroying the stream makes undici emit an abort error; the listener keeps it from being
  // reported as unhandled, since the caller gets ResponseTooLargeError instead.
  const discard = () => {
    response.body.on("error", () => undefined);
    response.body.destroy();
  };
  const declared = Number(headerValue(response.headers, "content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > limit) {
    discard();
    throw tooLarge();
  }
  // A declared length within the limit bounds the body already (undici refuses a body longer
  // than its Content-Length), so read it whole: async iteration costs a microtask per chunk and
  // showed in the client's profile. Without a length, count bytes as they come.
  if (Number.isFinite(declared)) return response.body.text();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) {
      discard();
      throw tooLarge();
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function parseJson(text: string, ctx: ResponseContext, emptyAllowed: boolean): unknown {
  if (text.trim() === "") {
    if (emptyAllowed) return undefined;
    throw new UnexpectedResponseError(`${ctx.method} ${ctx.path} answered ${ctx.status} with an empty body`, {
      ...ctx,
      jsonPath: "$",
      issues: ["empty body"],
    });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UnexpectedResponseError(
      `${ctx.method} ${ctx.path} answered ${ctx.status} with a body that is not JSON`,
      {
        ...ctx,
        jsonPath: "$",
        issues: ["not JSON"],
      },
    );
  }
}

/** Titles of a 1.0 or 2.0 error document; none when the body is not one (e.g. a proxy's HTML). */
function errorTitles(text: string): string[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return [];
  }
  const parsed = ApiErrorDocument.safeParse(json);
  return parsed.success ? parsed.data.errors.map((e) => e.title) : [];
}

function headerValue(
  headers: Record<string, string | string[] | undefined>,
  name: string,
): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function abortedError(method: string, path: string): AbortedError {
  return new AbortedError(`${method} ${path}: aborted by the caller's signal`, { method, path });
}

function throwIfAborted(signal: AbortSignal | undefined, method: string, path: string): void {
  if (signal?.aborted === true) throw abortedError(method, path);
}

async function sleep(
  ms: number,
  signal: AbortSignal | undefined,
  method: string,
  path: string,
): Promise<void> {
  if (ms <= 0) return;
  try {
    await sleepTimer(ms, undefined, signal === undefined ? undefined : { signal });
  } catch {
    throw abortedError(method, path);
  }
}

/** `links.next` of a list document, or undefined. */
export function nextLink(links: z.infer<typeof ListLinks> | undefined): string | undefined {
  const next = links?.next;
  return typeof next === "string" && next !== "" ? next : undefined;
}
