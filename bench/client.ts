/**
 * Client bench: (1) calls per second through the client beside raw `undici.request` on the same
 * routes in the same run, printing the overhead ratio; (2) requests per completed waiter at the
 * emulator's instant and realistic speeds. Every loop is bounded by a count and a time cap.
 *
 * Run: `npm run build && node dist/bench/client.js` (or import `runClientBench`).
 */
import "../src/sqlite-warning";
import { createClient, type StackwrightClient } from "../src/client";
import type { Speed } from "../src/emulator";
import { rawCaller, throughput, type Throughput } from "./client-measure";
import { startServerProcess } from "./server-process";

const EMAIL = "ops@example.com";
const TOKEN = "demo-token";
const STACK = "acme-web";

/** Options of {@link runClientBench}; defaults keep a run under about a minute. */
export interface ClientBenchOptions {
  callsPerRoute?: number;
  concurrency?: number;
  maxMsPerLoop?: number;
  waitersPerSpeed?: { instant: number; realistic: number };
}

/** One route's comparison. */
export interface RouteResult {
  route: string;
  client: Throughput;
  raw: Throughput;
  /** raw calls/s divided by client calls/s: 1.0 means no overhead. */
  overhead: number;
}

/** Requests per completed waiter at one speed. */
export interface WaiterResult {
  speed: Speed;
  kind: "deployment" | "transfer" | "fetch";
  completed: number;
  requestsPerWaiter: number;
}

/** Runs both measurements and returns the numbers (also printed). */
export async function runClientBench(
  options: ClientBenchOptions = {},
): Promise<{ routes: RouteResult[]; waiters: WaiterResult[] }> {
  const callsPerRoute = options.callsPerRoute ?? 2_000;
  const concurrency = options.concurrency ?? 8;
  const maxMs = options.maxMsPerLoop ?? 10_000;
  const routes = await measureOverhead(callsPerRoute, concurrency, maxMs);
  const waiters = [
    ...(await measureWaiters("instant", options.waitersPerSpeed?.instant ?? 10)),
    ...(await measureWaiters("realistic", options.waitersPerSpeed?.realistic ?? 2)),
  ];
  return { routes, waiters };
}

async function measureOverhead(calls: number, concurrency: number, maxMs: number): Promise<RouteResult[]> {
  const emulator = await startServerProcess("emulator", "instant");
  const client = createClient({
    baseUrl: emulator.url,
    email: EMAIL,
    token: TOKEN,
    maxConnections: concurrency,
  });
  const raw = rawCaller(emulator.url, EMAIL, TOKEN, concurrency);
  const routes: [string, () => Promise<unknown>, string][] = [
    ["GET /svc/meta", () => client.info.whoami(), "/svc/meta"],
    ["GET /svc/projects", () => client.stacks.list(), "/svc/projects"],
    [
      `GET /svc/project/${STACK}/environment/uat`,
      () => client.environments.get(STACK, "uat"),
      `/svc/project/${STACK}/environment/uat`,
    ],
    [
      `GET /svc/project/${STACK}/snapshots`,
      () => client.snapshots.list(STACK),
      `/svc/project/${STACK}/snapshots`,
    ],
  ];
  const results: RouteResult[] = [];
  try {
    for (const [route, viaClient, path] of routes) {
      // Warm both pools and the JIT, then alternate sides in rounds so neither always runs second.
      await throughput(viaClient, 200, concurrency, maxMs);
      await throughput(() => raw.get(path), 200, concurrency, maxMs);
      let client: Throughput = { calls: 0, ms: 0, perSecond: 0 };
      let rawTotal: Throughput = { calls: 0, ms: 0, perSecond: 0 };
      const rounds = 4;
      for (let round = 0; round < rounds; round++) {
        const slice = Math.ceil(calls / rounds / 2);
        const first = round % 2 === 0;
        if (first)
          rawTotal = merge(rawTotal, await throughput(() => raw.get(path), slice, concurrency, maxMs));
        client = merge(client, await throughput(viaClient, slice * 2, concurrency, maxMs));
        rawTotal = merge(
          rawTotal,
          await throughput(() => raw.get(path), first ? slice : slice * 2, concurrency, maxMs),
        );
      }
      results.push({ route, client, raw: rawTotal, overhead: rawTotal.perSecond / client.perSecond });
    }
  } finally {
    await client.close();
    await raw.close();
    await emulator.close();
  }
  console.log(`client overhead (emulator in a child process, instant speed, concurrency ${concurrency}):`);
  for (const r of results) {
    console.log(
      `  ${r.route.padEnd(48)} client ${r.client.perSecond.toFixed(0).padStart(6)}/s  raw undici ${r.raw.perSecond.toFixed(0).padStart(6)}/s  overhead x${r.overhead.toFixed(2)}`,
    );
  }
  const geo = Math.exp(results.reduce((a, r) => a + Math.log(r.overhead), 0) / results.length);
  console.log(`  overall overhead ratio (geometric mean raw/client): x${geo.toFixed(2)}`);
  return results;
}

function merge(a: Throughput, b: Throughput): Throughput {
  const calls = a.calls + b.calls;
  const ms = a.ms + b.ms;
  return { calls, ms, perSecond: (calls / ms) * 1000 };
}

async function measureWaiters(speed: Speed, count: number): Promise<WaiterResult[]> {
  const emulator = await startServerProcess("emulator", speed);
  const client = createClient({ baseUrl: emulator.url, email: EMAIL, token: TOKEN });
  const out: WaiterResult[] = [];
  try {
    out.push(
      await perWaiter(emulator.url, speed, "deployment", count, client, async () => {
        const d = await client.deployments.create(STACK, "uat", {
          ref_type: "branch",
          ref: "main",
          bypass_and_start: true,
        });
        await client.waitForDeployment(STACK, "uat", d.id, { timeoutMs: 120_000 });
      }),
    );
    out.push(
      await perWaiter(emulator.url, speed, "transfer", count, client, async () => {
        const made = await client.snapshots.create(STACK, { environment: "uat", mode: "db" });
        if (made.kind !== "transfer") throw new Error("bench: expected a transfer");
        await client.waitForTransfer(STACK, made.transfer.id, { timeoutMs: 120_000 });
      }),
    );
    out.push(
      await perWaiter(emulator.url, speed, "fetch", count, client, async () => {
        const f = await client.fetches.create(STACK);
        await client.waitForFetch(STACK, f.id, { timeoutMs: 120_000 });
      }),
    );
  } finally {
    await client.close();
    await emulator.close();
  }
  for (const r of out) {
    console.log(
      `requests per completed ${r.kind} waiter at ${speed} speed: ${r.requestsPerWaiter.toFixed(1)} (${r.completed} waits, default poll policy)`,
    );
  }
  return out;
}

/** Runs `once` sequentially `count` times and counts the GET polls the emulator logged per wait. */
async function perWaiter(
  url: string,
  speed: Speed,
  kind: WaiterResult["kind"],
  count: number,
  _client: StackwrightClient,
  once: () => Promise<void>,
): Promise<WaiterResult> {
  await fetch(`${url}/_emulator/requests`, { method: "DELETE" });
  for (let i = 0; i < count; i++) await once();
  const log = (await (await fetch(`${url}/_emulator/requests`)).json()) as { requests: { method: string }[] };
  const polls = log.requests.filter((r) => r.method === "GET").length;
  return { speed, kind, completed: count, requestsPerWaiter: polls / count };
}

if (require.main === module) {
  runClientBench().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
