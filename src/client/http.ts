/**
 * The retry loop: runs a call (one request per attempt, see `attempt.ts`) under the policy that
 * `retry.ts` decides, follows list pages on the same origin, and offers GET and DELETE shorthands.
 * Resource modules describe calls; response parsing is in `decode.ts`.
 */
import { setTimeout as sleepTimer } from "node:timers/promises";
import { OutcomeUnknownError, ResponseTooLargeError, UnexpectedResponseError } from "./errors";
import { abortedError, attemptOnce, type HttpContext, type Method } from "./attempt";
import type { CallOptions } from "./call-options";
import type { ClientDefaults } from "./defaults";
import { noContent, type Decoder, type Page } from "./decode";
import { queryString, type QueryValue } from "./paths";
import { mib } from "./read-budget";
import { decideRetry, outcomeAmbiguous, type CallSafety } from "./retry";

/** Description of one API call. */
export interface CallSpec<T> {
  method: Exclude<Method, "HEAD">;
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
  /** See {@link RequestSpec.admit}: a list's byte budget. */
  admit?: ((bytes: number) => void) | undefined;
}

/** The query of a call. */
export type Query = Readonly<Record<string, QueryValue>>;

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

  /** The request context, for calls that stream instead of parsing (the snapshot download). */
  get context(): HttpContext {
    return this.#ctx;
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
      const result = await attemptOnce(this.#ctx, spec, fullPath, attempt);
      if (result.ok) return spec.decode(result.body, result.ctx);
      const { outcome, error } = result;
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
   * Follows `links.next` of a list, up to `maxPages` and `maxListBytes` (and the process's read
   * budget, when the client has one), accepting only links on the same origin and base path
   * (credentials must never travel to a host a response names).
   */
  async list<T>(spec: CallSpec<Page<T>>): Promise<T[]> {
    const { settings, readBudget } = this.#ctx;
    const items: T[] = [];
    const seen = new Set<string>();
    let current: CallSpec<Page<T>> = spec;
    let bytes = 0;
    for (let page = 1; ; page++) {
      const admit = (size: number) => {
        bytes += size;
        readBudget?.take(size, spec.method, spec.path, page);
        if (bytes <= settings.maxListBytes) return;
        throw new ResponseTooLargeError(
          `${spec.method} ${spec.path}: stopped after ${page} page${page === 1 ? "" : "s"} and ${mib(bytes)}, ` +
            `over the ${mib(settings.maxListBytes)} one list may read (maxListBytes); narrow the query ` +
            `(fewer items, a filter) or find out why the platform's list is this large`,
          { method: spec.method, path: spec.path, limitBytes: settings.maxListBytes, pages: page },
        );
      };
      const result = await this.call({ ...current, admit });
      // Not `push(...items)`: a page of a few hundred thousand items would overflow the stack.
      for (const item of result.items) items.push(item);
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
      if (page >= settings.maxPages) {
        throw new ResponseTooLargeError(
          `${spec.method} ${spec.path}: stopped after ${page} pages, the most one list may follow (maxPages); ` +
            `narrow the query or raise maxPages`,
          { method: spec.method, path: spec.path, limitBytes: settings.maxListBytes, pages: page },
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
