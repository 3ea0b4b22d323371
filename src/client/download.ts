/**
 * Snapshot download: streams a complete snapshot's `download_link` into a file, never into
 * memory. The bytes go to `<file>.part` first; a broken connection resumes from the bytes already
 * there with `Range`, and so does a later call after an abort or a crash. The file appears under
 * its name only when its size equals the size the server declared.
 */
import { open, rename, stat, truncate } from "node:fs/promises";
import { setTimeout as sleepTimer } from "node:timers/promises";
import type { Dispatcher } from "undici";
import type { Snapshot } from "../api";
import { abortedError, discardBody, headerValue, type HttpContext } from "./attempt";
import type { CallOptions } from "./call-options";
import { declaredSize, downloadLink, send, statusError, type Link } from "./download-link";
import { ApiError, ConnectionError, TimeoutError, UnexpectedResponseError } from "./errors";
import { codeOf } from "./property";
import { tlsError } from "./tls";
import { classifyNetworkError, decideRetry, parseRetryAfter, type AttemptOutcome } from "./retry";

/** Progress of a download, reported after every chunk written. */
export interface DownloadProgress {
  /** Bytes in the file so far, including those resumed from. */
  receivedBytes: number;
  /** The size the server declared. */
  totalBytes: number;
  /** Bytes that were already in `<file>.part` when this call started (0 for a fresh download). */
  resumedFromBytes: number;
}

/** Options of a snapshot download. */
export interface DownloadOptions extends CallOptions {
  /** The file to write; `<file>.part` holds the bytes until the download is complete. */
  to: string;
  /** Called after every chunk written. Must not throw (a throwing callback is ignored). */
  onProgress?: ((progress: DownloadProgress) => void) | undefined;
}

/** The result of a completed download. */
export interface DownloadResult {
  file: string;
  bytes: number;
  /** Bytes that were already on disk from an earlier, interrupted call. */
  resumedFromBytes: number;
  /** GET requests made (more than 1 when a broken connection was resumed). */
  requests: number;
}

/** The suffix of the file that collects bytes until the download is complete. */
export const PARTIAL_SUFFIX = ".part";

/** Downloads `snapshot` (its full form) to `options.to`; see the module comment. */
export async function downloadSnapshot(
  ctx: HttpContext,
  snapshot: Snapshot,
  options: DownloadOptions,
): Promise<DownloadResult> {
  const link = downloadLink(ctx, snapshot);
  const what = `snapshot ${snapshot.id}`;
  const declared = await declaredSize(ctx, link, snapshot, options.signal);
  const partial = `${options.to}${PARTIAL_SUFFIX}`;
  let offset = await sizeOf(partial);
  if (offset > declared) {
    await truncate(partial, 0);
    offset = 0;
  }
  const resumedFromBytes = offset;
  let requests = 0;
  let failures = 0;
  let lastProgressAt = ctx.now();
  while (offset < declared) {
    requests++;
    const before = offset;
    const result = await fetchRange(ctx, link, partial, offset, declared, options, resumedFromBytes);
    offset = result.offset;
    if (result.outcome === undefined) continue;
    // Attempts that made progress do not count: a long download may break more than once.
    if (offset > before) {
      failures = 0;
      lastProgressAt = ctx.now();
    }
    failures++;
    const decision = decideRetry({
      outcome: result.outcome,
      safety: "idempotent",
      hasLookup: false,
      attempt: failures,
      elapsedMs: ctx.now() - lastProgressAt,
      policy: ctx.settings.retry,
      random: ctx.random,
    });
    if (decision.action !== "retry") throw result.error;
    ctx.logger({
      event: "retry",
      method: "GET",
      path: link.shown,
      attempt: failures,
      delayMs: decision.delayMs,
      reason: result.error.code,
    });
    await pause(decision.delayMs, options.signal, link.shown);
  }
  const written = await sizeOf(partial);
  if (written !== declared) {
    throw new UnexpectedResponseError(
      `GET ${link.shown}: ${what} has ${written} bytes on disk but the server declared ${declared}; ` +
        `delete ${partial} and download again`,
      { method: "GET", path: link.shown, jsonPath: "$", issues: ["size mismatch"] },
    );
  }
  await rename(partial, options.to);
  return { file: options.to, bytes: written, resumedFromBytes, requests };
}

/** One GET from `offset`: appends what arrives; a failure comes back with its retry outcome. */
async function fetchRange(
  ctx: HttpContext,
  link: Link,
  partial: string,
  offset: number,
  declared: number,
  options: DownloadOptions,
  resumedFromBytes: number,
): Promise<
  { offset: number; outcome?: undefined } | { offset: number; outcome: AttemptOutcome; error: ApiError }
> {
  let response: Dispatcher.ResponseData;
  try {
    response = await send(ctx, link, "GET", offset > 0 ? { range: `bytes=${offset}-` } : {}, options.signal);
  } catch (thrown) {
    return { offset, ...networkFailure(ctx, link, thrown, options.signal) };
  }
  let start = offset;
  if (response.statusCode === 200) {
    start = 0; // The server ignored the Range: start over.
  } else if (response.statusCode === 206) {
    const range = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(headerValue(response.headers, "content-range") ?? "");
    if (range === null || Number(range[1]) !== offset) {
      discardBody(response);
      throw new UnexpectedResponseError(
        `GET ${link.shown}: asked for bytes from ${offset}, got Content-Range '${headerValue(response.headers, "content-range") ?? ""}'`,
        { method: "GET", path: link.shown, status: 206, jsonPath: "$", issues: ["wrong range"] },
      );
    }
  } else {
    discardBody(response);
    const error = statusError(response, "GET", link);
    const retryAfterMs = parseRetryAfter(headerValue(response.headers, "retry-after"), Date.now());
    return { offset, outcome: { kind: "status", status: response.statusCode, retryAfterMs }, error };
  }
  // The overall bound beside the idle one (attempt.ts has it for every other body): a download
  // may take bodyDeadlineMs per maxResponseBytes it carries, the pace of the largest answer at
  // its deadline, so a large archive has the time it needs and a trickle is cut. Not repeated:
  // the next request would trickle as well; the bytes so far stay for a later call to resume.
  const deadlineMs =
    ctx.settings.bodyDeadlineMs * Math.max(1, Math.ceil((declared - start) / ctx.settings.maxResponseBytes));
  let expired = false;
  const deadline = setTimeout(() => {
    expired = true;
    discardBody(response);
  }, deadlineMs);
  const file = await open(partial, start === 0 ? "w" : "a");
  let written = start;
  try {
    for await (const chunk of response.body) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
      if (written + buffer.length > declared) {
        discardBody(response);
        throw new UnexpectedResponseError(
          `GET ${link.shown}: the body is longer than the ${declared} bytes declared; not kept`,
          {
            method: "GET",
            path: link.shown,
            status: response.statusCode,
            jsonPath: "$",
            issues: ["too long"],
          },
        );
      }
      await file.write(buffer);
      written += buffer.length;
      report(options, { receivedBytes: written, totalBytes: declared, resumedFromBytes });
    }
  } catch (thrown) {
    if (ApiError.isInstance(thrown)) throw thrown;
    if (expired) {
      throw new TimeoutError(
        `GET ${link.shown}: the download took longer than ${deadlineMs} ms in all ` +
          `(bodyDeadlineMs per maxResponseBytes of the ${declared - start} bytes asked for), at ${written} of ${declared} bytes; ` +
          "not repeated; the bytes so far are kept for the next download to resume",
        { method: "GET", path: link.shown, timeoutMs: deadlineMs, cause: thrown },
      );
    }
    return { offset: written, ...networkFailure(ctx, link, thrown, options.signal) };
  } finally {
    clearTimeout(deadline);
    await file.close();
  }
  if (written < declared) {
    // The server ended the body early without an error: resume like after a broken connection.
    const error = new ConnectionError(
      `GET ${link.shown}: the body ended after ${written} of ${declared} bytes`,
      {
        method: "GET",
        path: link.shown,
        requestSent: true,
      },
    );
    return { offset: written, outcome: { kind: "network" }, error };
  }
  return { offset: written };
}

function networkFailure(
  ctx: HttpContext,
  link: Link,
  thrown: unknown,
  signal: AbortSignal | undefined,
): { outcome: AttemptOutcome; error: ApiError } {
  if (signal?.aborted === true) throw abortedError("GET", link.shown);
  if (ApiError.isInstance(thrown) && !(thrown instanceof ConnectionError)) throw thrown;
  const tls = tlsError("GET", link.shown, link.origin, thrown);
  if (tls !== undefined) throw tls;
  const failure = classifyNetworkError(thrown);
  if (failure === "timeout") {
    const timeoutMs = ctx.settings.bodyTimeoutMs;
    const error = new TimeoutError(`GET ${link.shown}: no data for ${timeoutMs} ms (bodyTimeoutMs)`, {
      method: "GET",
      path: link.shown,
      timeoutMs,
      cause: thrown,
    });
    return { outcome: { kind: "timeout" }, error };
  }
  const error = new ConnectionError(
    `GET ${link.shown}: the download broke (${codeOf(thrown) ?? "no code"})`,
    {
      method: "GET",
      path: link.shown,
      requestSent: failure !== "connect-failed",
      cause: thrown,
    },
  );
  if (failure === "other") throw error;
  return { outcome: failure === "connect-failed" ? { kind: "connect-failed" } : { kind: "network" }, error };
}

function report(options: DownloadOptions, progress: DownloadProgress): void {
  try {
    options.onProgress?.(progress);
  } catch {
    // Progress display is best effort; the download goes on.
  }
}

async function sizeOf(file: string): Promise<number> {
  try {
    return (await stat(file)).size;
  } catch (error) {
    if (codeOf(error) === "ENOENT") return 0;
    throw error;
  }
}

async function pause(ms: number, signal: AbortSignal | undefined, path: string): Promise<void> {
  try {
    await sleepTimer(ms, undefined, signal === undefined ? undefined : { signal });
  } catch {
    throw abortedError("GET", path);
  }
}
