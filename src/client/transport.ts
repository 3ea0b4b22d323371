/**
 * The default transport: undici agents with keep-alive and a bounded pool per origin, through
 * the proxy the environment names, shared by every client of the process that has the same
 * settings. Callers (tests, benches) may inject any undici `Dispatcher` instead.
 *
 * Proxies: `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` (either case, the lower-case one first, as
 * curl reads them) go to undici's `EnvHttpProxyAgent`, which tunnels with `CONNECT` and skips the
 * proxy for the hosts of `NO_PROXY` (`host`, `.domain`, `*.domain`, `host:port`, `*`).
 * `STACKWRIGHT_PROXY` overrides them for the API's origin alone (a URL, or `direct` for none);
 * other origins (a snapshot's `download_link` on a storage host) keep the environment's proxy.
 * Certificates: Node's own store, with `NODE_EXTRA_CA_CERTS` added when the process starts;
 * nothing here turns verification off.
 *
 * Sharing: the pool bounds the requests in flight to one origin (`maxConnections`, one request
 * per connection), so clients that share it share that bound. Clients of the same settings in
 * one process get one pool, counted by reference, closed when the last client closes.
 */
import type { Agent as UndiciAgent, Dispatcher } from "undici";
import { newAgent, newEnvHttpProxyAgent, newProxyAgent } from "../undici";
import { InvalidOptionsError } from "./errors";

/** Settings of {@link createTransport}. */
export interface TransportSettings {
  connectTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
}

/** The proxies in force, from the environment ({@link proxySettings}). */
export interface ProxySettings {
  httpProxy: string | undefined;
  httpsProxy: string | undefined;
  noProxy: string | undefined;
  /** `STACKWRIGHT_PROXY`: a URL, `direct`, or undefined (the API goes like any other origin). */
  apiProxy: string | undefined;
}

/** The variable that overrides the proxy for the API's origin alone. */
export const API_PROXY_VARIABLE = "STACKWRIGHT_PROXY";

type Env = Readonly<Record<string, string | undefined>>;

function variable(env: Env, name: string): string | undefined {
  const value = env[name.toLowerCase()] ?? env[name];
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

/** The proxy settings of `env`; a malformed proxy URL is an InvalidOptionsError naming the variable. */
export function proxySettings(env: Env): ProxySettings {
  const settings: ProxySettings = {
    httpProxy: variable(env, "HTTP_PROXY"),
    httpsProxy: variable(env, "HTTPS_PROXY"),
    noProxy: env["no_proxy"] ?? env["NO_PROXY"],
    apiProxy: env[API_PROXY_VARIABLE] === undefined ? undefined : variable(env, API_PROXY_VARIABLE),
  };
  const named: [string, string | undefined][] = [
    ["HTTP_PROXY", settings.httpProxy],
    ["HTTPS_PROXY", settings.httpsProxy],
    [API_PROXY_VARIABLE, settings.apiProxy === "direct" ? undefined : settings.apiProxy],
  ];
  for (const [name, value] of named) {
    const problem = value === undefined ? undefined : proxyUrlProblem(value);
    if (problem !== undefined) throw new InvalidOptionsError(`[${name}] ${problem}`);
  }
  return settings;
}

/** What is wrong with a proxy URL, without echoing it (it may hold a password). */
export function proxyUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "is not a URL (expected http://host:port, optionally http://user:password@host:port)";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `must be an http:// or https:// proxy, not ${url.protocol}`;
  }
  return undefined;
}

/** A proxy URL as it may be printed: scheme, host and port, never the credentials. */
export function shownProxy(text: string): string {
  try {
    const url = new URL(text);
    return `${url.protocol}//${url.host}`;
  } catch {
    return "(a malformed proxy URL)";
  }
}

/**
 * The dispatchers of one client: `api` for the API's origin, `other` for any other origin (the
 * same one unless `STACKWRIGHT_PROXY` is set).
 */
export interface Transport {
  readonly api: Dispatcher;
  readonly other: Dispatcher;
  /** Gives the pool back; the last client of a shared pool closes it. */
  release(): Promise<void>;
}

function agentOptions(settings: TransportSettings): UndiciAgent.Options {
  // `pipelining: 1` keeps one request per socket at a time, so a broken socket affects one
  // request only, and the pool's size is the number of requests in flight to an origin.
  return {
    connections: settings.maxConnections,
    pipelining: 1,
    keepAliveTimeout: settings.keepAliveTimeoutMs,
    connect: { timeout: settings.connectTimeoutMs },
  };
}

function envAgent(settings: TransportSettings, proxy: ProxySettings): Dispatcher {
  if (proxy.httpProxy === undefined && proxy.httpsProxy === undefined)
    return newAgent(agentOptions(settings));
  return newEnvHttpProxyAgent({
    ...agentOptions(settings),
    ...(proxy.httpProxy === undefined ? {} : { httpProxy: proxy.httpProxy }),
    ...(proxy.httpsProxy === undefined ? {} : { httpsProxy: proxy.httpsProxy }),
    noProxy: proxy.noProxy ?? "",
  });
}

function apiAgent(settings: TransportSettings, apiProxy: string): Dispatcher {
  if (apiProxy === "direct") return newAgent(agentOptions(settings));
  return newProxyAgent({ ...agentOptions(settings), uri: apiProxy });
}

/**
 * A dispatcher for origins other than the API's (a notification sink's host), through the proxy
 * the environment names, as a client reaches any other origin: `HTTPS_PROXY`, `HTTP_PROXY` and
 * `NO_PROXY`; `STACKWRIGHT_PROXY` is the API's alone and does not apply. Not shared with the
 * clients: the caller closes it. A malformed proxy URL is an InvalidOptionsError naming the variable.
 */
export function environmentDispatcher(env: Env, settings: TransportSettings): Dispatcher {
  return envAgent(settings, proxySettings(env));
}

interface Shared {
  readonly api: Dispatcher;
  readonly other: Dispatcher;
  users: number;
}

// One pool per distinct settings in this process (see the module comment).
const shared = new Map<string, Shared>();

/**
 * The transport of a client: its dispatchers, shared with the process's other clients of the
 * same settings and proxies.
 */
export function acquireTransport(settings: TransportSettings, proxy: ProxySettings): Transport {
  const key = JSON.stringify([
    settings.connectTimeoutMs,
    settings.keepAliveTimeoutMs,
    settings.maxConnections,
    proxy,
  ]);
  let entry = shared.get(key);
  if (entry === undefined) {
    const other = envAgent(settings, proxy);
    const api = proxy.apiProxy === undefined ? other : apiAgent(settings, proxy.apiProxy);
    entry = { api, other, users: 0 };
    shared.set(key, entry);
  }
  const held = entry;
  held.users++;
  let released = false;
  return {
    api: held.api,
    other: held.other,
    async release() {
      if (released) return;
      released = true;
      held.users--;
      if (held.users > 0) return;
      shared.delete(key);
      await Promise.all([held.api.close(), ...(held.other === held.api ? [] : [held.other.close()])]);
    },
  };
}
