/**
 * What Stackwright uses of undici (its agents and `request`), loaded from the modules that define
 * them, and only when the first agent is made. undici's index loads the whole library whatever is
 * used of it (fetch, WebSocket, EventSource, cookies, the cache stores, the mock agents: about 110
 * modules, against 36 for these), about 0.09 CPU-seconds more in every process that imports it;
 * and a command that never sends a request (`validate`, `help`, a refused flag) loads none of it,
 * which also keeps `node:http` and `net` out of its start. undici has no `exports` map, so its
 * files load by path; test/unit/undici.test.ts checks that each agent is what the index exports,
 * which fails first when an upgrade of undici moves one. Everything else imports undici's types
 * only (the lint refuses a value import of `undici` outside this file). It belongs to no layer:
 * src/client, src/notify and providers/shared use it.
 */
import { createRequire } from "node:module";
import type * as Undici from "undici";

const load = createRequire(__filename);

/** The request methods every dispatcher has once undici's index has run. */
type RequestMethods = Pick<Undici.Dispatcher, "request" | "stream" | "pipeline" | "upgrade" | "connect">;

interface Agents {
  readonly Agent: typeof Undici.Agent;
  readonly ProxyAgent: typeof Undici.ProxyAgent;
  readonly EnvHttpProxyAgent: typeof Undici.EnvHttpProxyAgent;
}

let loaded: Agents | undefined;

function agents(): Agents {
  if (loaded !== undefined) return loaded;
  const dispatcherClass = load("undici/lib/dispatcher/dispatcher.js") as typeof Undici.Dispatcher;
  // What the index does on load, and the one thing of it these classes need: without it a
  // dispatcher has `dispatch` but not `request`. Harmless when the index ran first (the same
  // functions).
  if (!Object.hasOwn(dispatcherClass.prototype, "request")) {
    Object.assign(dispatcherClass.prototype, load("undici/lib/api/index.js") as RequestMethods);
  }
  loaded = {
    Agent: load("undici/lib/dispatcher/agent.js") as typeof Undici.Agent,
    ProxyAgent: load("undici/lib/dispatcher/proxy-agent.js") as typeof Undici.ProxyAgent,
    EnvHttpProxyAgent: load(
      "undici/lib/dispatcher/env-http-proxy-agent.js",
    ) as typeof Undici.EnvHttpProxyAgent,
  };
  return loaded;
}

/** `new Agent(options)` of undici: a direct connection pool per origin. */
export function newAgent(options?: Undici.Agent.Options): Undici.Agent {
  return new (agents().Agent)(options);
}

/** `new ProxyAgent(options)` of undici: every request through the proxy `options.uri`. */
export function newProxyAgent(options: Undici.ProxyAgent.Options): Undici.ProxyAgent {
  return new (agents().ProxyAgent)(options);
}

/** `new EnvHttpProxyAgent(options)` of undici: the proxy variables' rules, as curl reads them. */
export function newEnvHttpProxyAgent(options: Undici.EnvHttpProxyAgent.Options): Undici.EnvHttpProxyAgent {
  return new (agents().EnvHttpProxyAgent)(options);
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
