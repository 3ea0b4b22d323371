/**
 * What Stackwright uses of undici (its agents and `request`), loaded from the modules that define
 * them. undici's index loads the whole library whatever is used of it (fetch, WebSocket,
 * EventSource, cookies, the cache stores, the mock agents: about 110 modules, against 36 for
 * these), about 0.09 CPU-seconds more in every process that imports it: each `stackwright`
 * command, each provider host, each program run. undici has no `exports` map, so its files load
 * by path; test/unit/undici.test.ts checks that each is what the index exports, which fails first
 * when an upgrade of undici moves one. Everything else imports undici's types only (the lint
 * refuses a value import of `undici` outside this file). It belongs to no layer: src/client,
 * src/notify and providers/shared use it.
 */
import { createRequire } from "node:module";
import type * as Undici from "undici";

const load = createRequire(__filename);

export const Agent = load("undici/lib/dispatcher/agent.js") as typeof Undici.Agent;
export const ProxyAgent = load("undici/lib/dispatcher/proxy-agent.js") as typeof Undici.ProxyAgent;
export const EnvHttpProxyAgent = load(
  "undici/lib/dispatcher/env-http-proxy-agent.js",
) as typeof Undici.EnvHttpProxyAgent;

/** The request methods every dispatcher has once undici's index has run. */
type RequestMethods = Pick<Undici.Dispatcher, "request" | "stream" | "pipeline" | "upgrade" | "connect">;
const dispatcherClass = load("undici/lib/dispatcher/dispatcher.js") as typeof Undici.Dispatcher;
// What the index does on load, and the one thing of it these classes need: without it a
// dispatcher has `dispatch` but not `request`. Harmless when the index ran first (the same
// functions).
if (!Object.hasOwn(dispatcherClass.prototype, "request")) {
  Object.assign(dispatcherClass.prototype, load("undici/lib/api/index.js") as RequestMethods);
}

/** What {@link request} takes: undici's request options, the dispatcher always named. */
export type RequestOptions = Omit<Undici.Dispatcher.RequestOptions, "origin" | "path"> & {
  readonly dispatcher: Undici.Dispatcher;
};

/** undici's `request(url, options)`: one request to `url` through `options.dispatcher`. */
export function request(url: string | URL, options: RequestOptions): Promise<Undici.Dispatcher.ResponseData> {
  const target = typeof url === "string" ? new URL(url) : url;
  const { dispatcher, ...rest } = options;
  return dispatcher.request({ ...rest, origin: target.origin, path: `${target.pathname}${target.search}` });
}
