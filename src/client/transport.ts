/**
 * The default transport: one undici `Agent` with keep-alive and a bounded pool per origin.
 * Callers (tests, benches, a proxy setup) may inject any undici `Dispatcher` instead.
 */
import { Agent, type Dispatcher } from "undici";

/** Settings of {@link createTransport}. */
export interface TransportSettings {
  connectTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
}

/**
 * Creates the Agent the client owns (and closes in `client.close()`). `connections` bounds the
 * sockets per origin so parallel resources queue instead of opening hundreds; `pipelining: 1`
 * keeps one request per socket at a time, so a broken socket affects one request only.
 */
export function createTransport(settings: TransportSettings): Dispatcher {
  return new Agent({
    connections: settings.maxConnections,
    pipelining: 1,
    keepAliveTimeout: settings.keepAliveTimeoutMs,
    connect: { timeout: settings.connectTimeoutMs },
  });
}
