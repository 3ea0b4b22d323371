/**
 * Helpers of the client bench: a bounded throughput loop and a raw-undici baseline that does the
 * same work a caller would do without the client (auth header, read the body, parse JSON).
 */
import { Agent, request } from "undici";

/** Result of one throughput loop. */
export interface Throughput {
  calls: number;
  ms: number;
  perSecond: number;
}

/**
 * Runs `call` with `concurrency` workers until `calls` calls are done or `maxMs` passed (both
 * bounds hold; whichever comes first ends the loop) and reports calls per second.
 */
export async function throughput(
  call: () => Promise<unknown>,
  calls: number,
  concurrency: number,
  maxMs: number,
): Promise<Throughput> {
  let started = 0;
  let done = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (started < calls && performance.now() - t0 < maxMs) {
      started++;
      await call();
      done++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const ms = performance.now() - t0;
  return { calls: done, ms, perSecond: (done / ms) * 1000 };
}

/** A raw undici caller with the same pool bounds as the client's default transport. */
export function rawCaller(baseUrl: string, email: string, token: string, maxConnections: number) {
  const agent = new Agent({ connections: maxConnections, pipelining: 1, keepAliveTimeout: 4_000 });
  const headers = {
    accept: "application/vnd.api+json",
    "x-api-version": "2.0",
    authorization: `Basic ${Buffer.from(`${email}:${token}`).toString("base64")}`,
  };
  return {
    async get(path: string): Promise<unknown> {
      const res = await request(`${baseUrl}${path}`, { dispatcher: agent, headers });
      const body = (await res.body.json()) as unknown;
      if (res.statusCode !== 200) throw new Error(`raw GET ${path} answered ${res.statusCode}`);
      return body;
    },
    close: () => agent.close(),
  };
}
