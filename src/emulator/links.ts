import type { IncomingHttpHeaders } from "node:http";

const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

function first(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  const head = text?.split(",")[0]?.trim();
  return head === "" ? undefined : head;
}

/**
 * The base of absolute links in documents, as the client called the server: `publicUrl` when the
 * emulator was given one; otherwise `X-Forwarded-Proto` and `X-Forwarded-Host` (first values,
 * set by a proxy in front), then `Host`; `fallback` (the listening address) when none is usable.
 */
export function linkBase(headers: IncomingHttpHeaders, fallback: string, publicUrl?: string): string {
  if (publicUrl !== undefined) return publicUrl;
  const host = [first(headers["x-forwarded-host"]), first(headers.host)].find(
    (h) => h !== undefined && HOST.test(h),
  );
  if (host === undefined) return fallback;
  const proto = first(headers["x-forwarded-proto"])?.toLowerCase();
  return `${proto === "https" || proto === "http" ? proto : "http"}://${host}`;
}

/** Checks a `--public-url`: absolute http(s), no query or fragment; returned without a trailing slash. */
export function checkPublicUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`public URL '${text}' is not an absolute URL (example: https://emulator.example.com)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error(`public URL '${text}' must start with http:// or https://`);
  }
  if (url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "") {
    throw new Error(`public URL '${text}' must have no query, fragment or credentials`);
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}
