/**
 * The one rule for where Stackwright sends something that must not travel in clear text (the API
 * token to the API, a notification and its signature to a sink): https, or http only to this
 * machine (loopback), where no network carries it.
 */

/** True for `localhost`, `127.0.0.0/8` and `::1`. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Why `url` may not carry `what` (e.g. "the API token"), or undefined. `host` is how the message
 * names the host (a caller that must not print it passes a description). Completes "<the URL> ...".
 */
export function cleartextProblem(
  url: URL,
  what: string,
  options: { allowInsecureHttp?: boolean; host?: string } = {},
): string | undefined {
  if (url.protocol === "http:") {
    if (isLoopbackHost(url.hostname) || options.allowInsecureHttp === true) return undefined;
    return `uses http to ${options.host ?? url.hostname}, which would send ${what} in clear text; use https`;
  }
  if (url.protocol !== "https:") return `must be https (or http on loopback), not ${url.protocol}`;
  return undefined;
}
