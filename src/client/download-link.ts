/**
 * Where a snapshot's bytes are: its `download_link` resolved against the API, whether the
 * credentials may go there (only to the API's own origin), and the size to expect (the
 * snapshot's `size`, checked against the link's `Content-Length`).
 */
import type { Dispatcher } from "undici";
import type { Snapshot } from "../api";
import { abortedError, discardBody, headerValue, requestHeaders, type HttpContext } from "./attempt";
import { tlsError } from "./tls";
import { InvalidArgumentError, UnexpectedResponseError, errorFromResponse, type ApiError } from "./errors";
import { missingValue, needAttributes } from "./needs";

/** Where the bytes are, whether the credentials may go there, and how errors show it. */
export interface Link {
  origin: string;
  /** Path and query, as requested. */
  path: string;
  /** Path without the query (a presigned link's signature stays out of messages and logs). */
  shown: string;
  /** Only a link on the API's own origin and base path gets the credentials. */
  authorized: boolean;
}

export function downloadLink(ctx: HttpContext, snapshot: Snapshot): Link {
  const { snapshot_status: status, can_download: allowed } = needAttributes(
    snapshot,
    ["snapshot_status"],
    `cannot tell whether snapshot ${snapshot.id} is complete`,
  ).attributes;
  const argument = "snapshotId";
  if (status !== "complete") {
    throw new InvalidArgumentError(
      `[${argument}] snapshot ${snapshot.id} is ${status}; only a complete snapshot can be downloaded`,
      { argument },
    );
  }
  if (allowed === "false" || snapshot.links?.download_link === "") {
    throw new InvalidArgumentError(
      `[${argument}] snapshot ${snapshot.id} cannot be downloaded by this user (can_download is ${allowed})`,
      { argument },
    );
  }
  const href = snapshot.links?.download_link;
  if (href === undefined || href === null) {
    throw missingValue(snapshot, "links.download_link", href, `cannot download snapshot ${snapshot.id}`);
  }
  let url: URL;
  try {
    url = new URL(href, `${ctx.origin}${ctx.basePath}/`);
  } catch {
    throw new UnexpectedResponseError(`snapshot ${snapshot.id} has a download_link that is not a URL`, {
      jsonPath: "$.data.links.download_link",
      issues: ["not a URL"],
    });
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new UnexpectedResponseError(`snapshot ${snapshot.id} has a download_link that is not http(s)`, {
      jsonPath: "$.data.links.download_link",
      issues: ["not http(s)"],
    });
  }
  return {
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
    shown: url.origin === ctx.origin ? url.pathname : `${url.origin}${url.pathname}`,
    authorized: url.origin === ctx.origin && url.pathname.startsWith(`${ctx.basePath}/`),
  };
}

/** The snapshot's size, checked against the link's `Content-Length` (HEAD). */
export async function declaredSize(
  ctx: HttpContext,
  link: Link,
  snapshot: Snapshot,
  signal: AbortSignal | undefined,
): Promise<number> {
  const response = await send(ctx, link, "HEAD", {}, signal);
  discardBody(response);
  if (response.statusCode !== 200) throw statusError(response, "HEAD", link);
  const length = headerValue(response.headers, "content-length");
  const sizeText = snapshot.attributes.size ?? "";
  const size = /^\d+$/.test(sizeText) ? Number(sizeText) : undefined;
  const headLength = length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined;
  if (headLength !== undefined && size !== undefined && headLength !== size) {
    throw new UnexpectedResponseError(
      `HEAD ${link.shown}: Content-Length is ${headLength} but snapshot ${snapshot.id} has size ${size}`,
      {
        method: "HEAD",
        path: link.shown,
        status: 200,
        jsonPath: "$.data.attributes.size",
        issues: ["size mismatch"],
      },
    );
  }
  const declared = headLength ?? size;
  if (declared === undefined) {
    throw new UnexpectedResponseError(
      `HEAD ${link.shown}: no Content-Length and no size on snapshot ${snapshot.id}; cannot check the download`,
      {
        method: "HEAD",
        path: link.shown,
        status: 200,
        jsonPath: "$.data.attributes.size",
        issues: ["no size"],
      },
    );
  }
  return declared;
}

export function send(
  ctx: HttpContext,
  link: Link,
  method: "GET" | "HEAD",
  extra: Record<string, string>,
  signal: AbortSignal | undefined,
): Promise<Dispatcher.ResponseData> {
  // A link on another host never gets the credentials (a presigned URL needs none).
  const headers = link.authorized
    ? requestHeaders(ctx, { ...extra, accept: "*/*" })
    : { "user-agent": ctx.userAgent, accept: "*/*", ...extra };
  if (signal?.aborted === true) return Promise.reject(abortedError(method, link.shown));
  const dispatcher = link.origin === ctx.origin ? ctx.dispatcher : ctx.elsewhere;
  return dispatcher
    .request({
      origin: link.origin,
      path: link.path,
      method,
      headers,
      signal: signal ?? null,
      headersTimeout: ctx.settings.headersTimeoutMs,
      bodyTimeout: ctx.settings.bodyTimeoutMs,
    })
    .catch((thrown: unknown) => {
      throw tlsError(method, link.shown, link.origin, thrown) ?? thrown;
    });
}

export function statusError(response: Dispatcher.ResponseData, method: string, link: Link): ApiError {
  return errorFromResponse({
    status: response.statusCode,
    method,
    path: link.shown,
    titles: [],
    requestId: headerValue(response.headers, "x-request-id"),
  });
}
