/**
 * The client's error taxonomy: one base class, {@link ApiError}, with structured fields and a
 * stable `code`, and one subclass per category a caller may want to branch on.
 *
 * Secrets: no error ever holds a request header, the base URL's user info or the token. The
 * fields below are the only state an error carries, and `toJSON` / `util.inspect` print exactly
 * those fields, so `JSON.stringify(err)` or `console.log(err)` cannot leak more than the
 * message. Causes coming from the network layer are reduced to `{name, code, message}` (see
 * {@link safeCause}) because a foreign error object may carry anything.
 */
import { inspect } from "node:util";
import { codeOf, propertyOf } from "./property";

/** Brand checked by every `isInstance`: survives two copies of this module in one process. */
const BRAND: unique symbol = Symbol.for("stackwright.client.ApiError");

/** Stable, documented error codes. Match on these, never on messages. */
export const ErrorCode = {
  Authentication: "STACKWRIGHT_AUTHENTICATION",
  Permission: "STACKWRIGHT_PERMISSION",
  NotFound: "STACKWRIGHT_NOT_FOUND",
  Conflict: "STACKWRIGHT_CONFLICT",
  Validation: "STACKWRIGHT_VALIDATION",
  RateLimit: "STACKWRIGHT_RATE_LIMIT",
  Server: "STACKWRIGHT_SERVER",
  HttpStatus: "STACKWRIGHT_HTTP_STATUS",
  Connection: "STACKWRIGHT_CONNECTION",
  Timeout: "STACKWRIGHT_TIMEOUT",
  UnexpectedResponse: "STACKWRIGHT_UNEXPECTED_RESPONSE",
  ResponseTooLarge: "STACKWRIGHT_RESPONSE_TOO_LARGE",
  OutcomeUnknown: "STACKWRIGHT_OUTCOME_UNKNOWN",
  InvalidArgument: "STACKWRIGHT_INVALID_ARGUMENT",
  InvalidOptions: "STACKWRIGHT_INVALID_OPTIONS",
  Aborted: "STACKWRIGHT_ABORTED",
  WaitTimeout: "STACKWRIGHT_WAIT_TIMEOUT",
  WaitFailed: "STACKWRIGHT_WAIT_FAILED",
} as const;

/** One of the values of {@link ErrorCode}. */
export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

/** A network-layer cause reduced to fields that are safe to print. */
export interface SafeCause {
  readonly name: string;
  readonly code?: string;
  readonly message: string;
}

/** Fields shared by every error; all optional except the message. */
/** The response a decoder or a check of a decoded value reads, for precise error messages. */
export interface ResponseContext {
  method: string;
  path: string;
  status: number;
  requestId: string | undefined;
}

export interface ApiErrorFields {
  /** HTTP status of the response, when there was one. */
  status?: number | undefined;
  /** Every `title` of the JSON:API error document, in order. */
  titles?: readonly string[] | undefined;
  /** HTTP method of the request that failed. */
  method?: string | undefined;
  /** Path (with query) of the request that failed; never the origin or credentials. */
  path?: string | undefined;
  /** Value of the response's request-id header, for support tickets. */
  requestId?: string | undefined;
  /** The lower-level error, reduced with {@link safeCause}. */
  cause?: unknown;
}

/**
 * Reduces any thrown value to `{name, code, message}`: undici errors, Node system errors and
 * strings all become plain data that cannot drag headers or sockets into a log.
 */
export function safeCause(value: unknown): SafeCause | undefined {
  if (value === undefined || value === null) return undefined;
  if (value instanceof Error) {
    // undici wraps connect failures: the useful code (ECONNREFUSED) is on the inner error.
    const inner = propertyOf(value, "cause");
    const pick = codeOf(value) ?? (inner instanceof Error ? codeOf(inner) : undefined);
    return pick === undefined
      ? { name: value.name, message: value.message }
      : { name: value.name, code: pick, message: value.message };
  }
  return { name: "Error", message: String(value) };
}

/**
 * Base class of every error the client throws. Check with `ApiError.isInstance(e)` (works
 * across module copies) and branch on `code`.
 */
export class ApiError extends Error {
  /** Brand for {@link ApiError.isInstance}; do not rely on its value. */
  readonly [BRAND] = true;
  /** Stable machine-readable code. */
  readonly code: ErrorCodeValue;
  readonly status: number | undefined;
  readonly titles: readonly string[];
  readonly method: string | undefined;
  readonly path: string | undefined;
  readonly requestId: string | undefined;
  declare readonly cause: SafeCause | undefined;

  constructor(code: ErrorCodeValue, message: string, fields: ApiErrorFields = {}) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.status = fields.status;
    this.titles = fields.titles ?? [];
    this.method = fields.method;
    this.path = fields.path;
    this.requestId = fields.requestId;
    // Defined explicitly (not via super's options) so the stored cause is always the safe form.
    Object.defineProperty(this, "cause", {
      value: safeCause(fields.cause),
      enumerable: false,
      writable: false,
      configurable: true,
    });
  }

  /** True for any error thrown by this client, even from another copy of the module. */
  static isInstance(value: unknown): value is ApiError {
    return propertyOf(value, BRAND) === true;
  }

  /** Plain data for logs: the structured fields, nothing else. */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = { name: this.name, code: this.code, message: this.message };
    for (const [key, value] of Object.entries(this)) {
      if (value !== undefined && typeof value !== "function") out[key] = value;
    }
    if (this.cause !== undefined) out.cause = this.cause;
    return out;
  }

  /** `console.log(err)` shows the same fields as `toJSON`, plus the stack. */
  [inspect.custom](): string {
    return `${this.stack ?? `${this.name}: ${this.message}`}\n${inspect(this.toJSON(), { depth: 4 })}`;
  }
}

/** A class whose instances are `T`, as `this` of a static method sees it. */
type ClassOf<T> = abstract new (...args: never[]) => T;

/**
 * The base of one error category: it fixes the `code`, takes the common fields, and gives the
 * class an `isInstance` that checks brand and code, so it too survives two module copies.
 */
function category(code: ErrorCodeValue) {
  return class extends ApiError {
    constructor(message: string, fields: ApiErrorFields = {}) {
      super(code, message, fields);
    }
    /**
     * True for an error of this category, even from another copy of the module. `this` only types
     * the result (`NotFoundError.isInstance(e)` narrows to NotFoundError); the check uses `code`.
     */
    static override isInstance<T extends ApiError>(this: ClassOf<T>, value: unknown): value is T {
      return ApiError.isInstance(value) && value.code === code;
    }
  };
}

/** 401: the e-mail or the API token was not accepted. */
export class AuthenticationError extends category(ErrorCode.Authentication) {}

/** 403: the caller is known but may not do this (e.g. bypass without permission). */
export class PermissionError extends category(ErrorCode.Permission) {}

/** 404: no such object, or a stack the caller may not see, or an unknown action. */
export class NotFoundError extends category(ErrorCode.NotFound) {}

/** 409: the environment is locked (the lock message is in `titles`) or another conflict. */
export class ConflictError extends category(ErrorCode.Conflict) {}

/** 400/422: the server refused the request as invalid (e.g. an illegal transition). */
export class ValidationError extends category(ErrorCode.Validation) {}

/** 429 after the retries ran out. `retryAfterMs` is the server's last hint, when it gave one. */
export class RateLimitError extends category(ErrorCode.RateLimit) {
  readonly retryAfterMs: number | undefined;
  constructor(message: string, fields: ApiErrorFields & { retryAfterMs?: number | undefined } = {}) {
    super(message, fields);
    this.retryAfterMs = fields.retryAfterMs;
  }
}

/** 5xx after the retries ran out (or at once for 500, which is not retried). */
export class ServerError extends category(ErrorCode.Server) {}

/** Any other unexpected HTTP status (e.g. a 3xx or an unlisted 4xx). */
export class HttpStatusError extends category(ErrorCode.HttpStatus) {}

/**
 * No response: refused, reset, dropped. `requestSent` says whether the request may have reached
 * the server (false only when the connection itself could not be made).
 */
export class ConnectionError extends category(ErrorCode.Connection) {
  readonly requestSent: boolean;
  constructor(message: string, fields: ApiErrorFields & { requestSent: boolean }) {
    super(message, fields);
    this.requestSent = fields.requestSent;
  }
}

/** The server did not answer within `timeoutMs`. */
export class TimeoutError extends category(ErrorCode.Timeout) {
  readonly timeoutMs: number;
  constructor(message: string, fields: ApiErrorFields & { timeoutMs: number }) {
    super(message, fields);
    this.timeoutMs = fields.timeoutMs;
  }
}

/** The body did not match the wire schema; `jsonPath` names the first field that did not. */
export class UnexpectedResponseError extends category(ErrorCode.UnexpectedResponse) {
  readonly jsonPath: string;
  readonly issues: readonly string[];
  constructor(message: string, fields: ApiErrorFields & { jsonPath: string; issues: readonly string[] }) {
    super(message, fields);
    this.jsonPath = fields.jsonPath;
    this.issues = fields.issues;
  }
}

/** The body was larger than the client's byte cap; reading stopped at `limitBytes`. */
export class ResponseTooLargeError extends category(ErrorCode.ResponseTooLarge) {
  readonly limitBytes: number;
  /** For a list: the pages read before it stopped. */
  readonly pages: number | undefined;
  constructor(message: string, fields: ApiErrorFields & { limitBytes: number; pages?: number | undefined }) {
    super(message, fields);
    this.limitBytes = fields.limitBytes;
    this.pages = fields.pages;
  }
}

/**
 * A create may or may not have happened (reset after send, timeout, 502/504) and the client had
 * no safe way to find out. Repeating blindly could create a duplicate, so it stops here: look
 * for the object (e.g. with `findDeploymentByMarker`) before trying again.
 */
export class OutcomeUnknownError extends category(ErrorCode.OutcomeUnknown) {
  /** The failure that made the outcome unknown. */
  readonly reason: ApiError;
  constructor(message: string, fields: ApiErrorFields & { reason: ApiError }) {
    super(message, { ...fields, cause: fields.reason });
    this.reason = fields.reason;
  }
}

/** An argument was refused before any request (e.g. a name that would alter the path). */
export class InvalidArgumentError extends category(ErrorCode.InvalidArgument) {
  /** Name of the argument, e.g. `stack`. */
  readonly argument: string;
  constructor(message: string, fields: ApiErrorFields & { argument: string }) {
    super(message, fields);
    this.argument = fields.argument;
  }
}

/** `createClient` options were invalid or unknown; the message lists the allowed ones. */
export class InvalidOptionsError extends category(ErrorCode.InvalidOptions) {
  constructor(message: string) {
    super(message);
  }
}

/** The caller's AbortSignal fired. */
export class AbortedError extends category(ErrorCode.Aborted) {}

/** A waiter's overall bound elapsed; the message states the bound and the last state seen. */
export class WaitTimeoutError extends category(ErrorCode.WaitTimeout) {
  readonly timeoutMs: number;
  readonly lastState: string | undefined;
  constructor(
    message: string,
    fields: ApiErrorFields & { timeoutMs: number; lastState: string | undefined },
  ) {
    super(message, fields);
    this.timeoutMs = fields.timeoutMs;
    this.lastState = fields.lastState;
  }
}

/** A waiter saw a terminal failure state (e.g. a deployment `Failed`). */
export class WaitFailedError extends category(ErrorCode.WaitFailed) {
  readonly state: string;
  /** Link to the object (its `links.self`), when the server gave one. */
  readonly link: string | undefined;
  constructor(message: string, fields: ApiErrorFields & { state: string; link?: string | undefined }) {
    super(message, fields);
    this.state = fields.state;
    this.link = fields.link;
  }
}

/** What the factory needs to know about a failed response. */
export interface ErrorResponseInfo {
  status: number;
  method: string;
  path: string;
  titles: readonly string[];
  requestId?: string | undefined;
  retryAfterMs?: number | undefined;
}

/**
 * Builds the error for a non-2xx response: one place maps statuses to classes. The message reads
 * "<METHOD> <path> answered <status>: <titles>" plus what to do next where that is clear.
 */
export function errorFromResponse(info: ErrorResponseInfo): ApiError {
  const { status, method, path, titles } = info;
  const detail = titles.length > 0 ? titles.join("; ") : "no error title in the response";
  const base = `${method} ${path} answered ${status}: ${detail}`;
  const fields: ApiErrorFields = { status, method, path, titles, requestId: info.requestId };
  if (status === 401)
    return new AuthenticationError(
      `${base}. Check the e-mail and API token (STACKWRIGHT_EMAIL, STACKWRIGHT_API_TOKEN).`,
      fields,
    );
  if (status === 403) return new PermissionError(`${base}. The caller's role does not allow this.`, fields);
  if (status === 404) return new NotFoundError(base, fields);
  if (status === 409) return new ConflictError(base, fields);
  if (status === 400 || status === 422) return new ValidationError(base, fields);
  if (status === 429)
    return new RateLimitError(`${base}. Rate limited; retries exhausted.`, {
      ...fields,
      retryAfterMs: info.retryAfterMs,
    });
  if (status >= 500) return new ServerError(base, fields);
  return new HttpStatusError(base, fields);
}
