/**
 * Emulator bench, side by side in one run:
 *  1. requests per second of a representative GET/POST mix against the emulator (in memory and
 *     with a state file), beside a bare Fastify GET/POST pair in the same mix, as a ratio;
 *  2. the cost of a write (POST a deployment: one transaction) on a state file holding 10,000
 *     deployments, beside the same write on an empty file and in memory, and the restart time on
 *     that file beside a new one.
 * Servers run in child processes; every loop is bounded by a count and a time cap.
 *
 * Run: `npm run build && node dist/bench/emulator.js`
 * (or from the sources: `node test/helpers/run-ts.cjs bench/emulator.ts`).
 */
import "../src/sqlite-warning";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, request } from "undici";
import { DEFAULT_SEED_PATH, startEmulator } from "../src/emulator";
import { startServerProcess } from "./server-process";

const DEFAULTS = {
  requests: 6_000,
  concurrency: 16,
  maxMsPerLoop: 15_000,
  storedDeployments: 10_000,
  timedWrites: 1_000,
  rounds: 3,
} as const;

const AUTH = `Basic ${Buffer.from("ops@example.com:demo-token").toString("base64")}`;
const UAT = "/svc/project/acme-web/environment/uat";
const PROD = "/svc/project/acme-web/environment/prod";

interface Step {
  method: "GET" | "POST";
  path: string;
  body?: unknown;
}

/** 7 GETs and 3 POSTs, the shape of a reconcile run: reads, a deployment, a lock, a fetch. */
const EMULATOR_MIX: Step[] = [
  { method: "GET", path: "/svc/meta" },
  { method: "GET", path: "/svc/projects" },
  { method: "GET", path: UAT },
  { method: "GET", path: `${UAT}/deploys/100` },
  { method: "GET", path: `${UAT}/deploys?state=Completed` },
  { method: "GET", path: "/svc/project/acme-web/snapshots" },
  { method: "GET", path: `${UAT}/modules` },
  { method: "POST", path: `${UAT}/deploys`, body: { ref_type: "redeploy", bypass: true, title: "bench" } },
  { method: "POST", path: `${PROD}/lock`, body: { lock_message: "bench" } },
  { method: "POST", path: "/svc/project/acme-web/git/fetches", body: {} },
];
/** One deployment created (Approved, not started): one write transaction on the server. */
const WRITE: Step = {
  method: "POST",
  path: `${UAT}/deploys`,
  body: { ref_type: "redeploy", bypass: true, title: "bench" },
};
const BARE_MIX: Step[] = EMULATOR_MIX.map((s) => ({
  method: s.method,
  path: "/bare",
  ...(s.body === undefined ? {} : { body: s.body }),
}));

interface Throughput {
  requests: number;
  ms: number;
  perSecond: number;
}

/** Runs the mix round-robin with `concurrency` workers until `requests` are done or the time cap. */
async function drive(
  url: string,
  mix: Step[],
  requests: number,
  concurrency: number,
  maxMs: number,
): Promise<Throughput> {
  const agent = new Agent({ connections: concurrency, pipelining: 1 });
  let next = 0;
  let done = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (next < requests && performance.now() - t0 < maxMs) {
      const step = mix[next++ % mix.length];
      if (step === undefined) break;
      const res = await request(`${url}${step.path}`, {
        dispatcher: agent,
        method: step.method,
        headers: {
          authorization: AUTH,
          accept: "application/vnd.api+json",
          ...(step.body === undefined ? {} : { "content-type": "application/vnd.api+json" }),
        },
        ...(step.body === undefined ? {} : { body: JSON.stringify(step.body) }),
      });
      await res.body.text();
      if (res.statusCode >= 300)
        throw new Error(`bench: ${step.method} ${step.path} answered ${res.statusCode}`);
      done++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const ms = performance.now() - t0;
  await agent.close();
  return { requests: done, ms, perSecond: (done / ms) * 1000 };
}

function median(runs: Throughput[]): Throughput {
  const sorted = [...runs].sort((a, b) => a.perSecond - b.perSecond);
  const mid = sorted[Math.floor(sorted.length / 2)];
  if (mid === undefined) throw new Error("bench: no runs");
  return mid;
}

async function measureServer(
  kind: "emulator" | "bare",
  mix: Step[],
  stateFile?: string,
): Promise<Throughput> {
  const server = await startServerProcess(kind, "instant", stateFile);
  try {
    // Warm-up (JIT, connections), not counted.
    await drive(server.url, mix, 500, DEFAULTS.concurrency, 5_000);
    return await drive(server.url, mix, DEFAULTS.requests, DEFAULTS.concurrency, DEFAULTS.maxMsPerLoop);
  } finally {
    await server.close();
  }
}

/** Microseconds per request of `writes` POSTs of a deployment, one at a time (each one transaction). */
async function timeWrites(url: string, writes: number): Promise<number> {
  const t = await drive(url, [WRITE], writes, 1, DEFAULTS.maxMsPerLoop);
  return (t.ms * 1000) / t.requests;
}

/** How many deployments the emulator at `url` lists for UAT. */
async function storedDeployments(url: string): Promise<number> {
  const res = await request(`${url}${UAT}/deploys`, {
    headers: { authorization: AUTH, accept: "application/vnd.api+json" },
  });
  const body: unknown = await res.body.json();
  if (typeof body !== "object" || body === null || !("data" in body) || !Array.isArray(body.data)) {
    throw new Error(`bench: the deployment list answered ${res.statusCode} without a data array`);
  }
  return body.data.length;
}

/**
 * Through the public entry points only: the emulator in a child process, on a state file that is
 * empty or holds 10,000 deployments, beside the same emulator in memory (the floor: the same
 * request with no file write). Restart is startEmulator on the full file beside the empty one.
 */
async function measureStateFile(dir: string) {
  const fullFile = join(dir, "full.db");
  const filling = await startServerProcess("emulator", "instant", fullFile);
  try {
    await drive(filling.url, [WRITE], DEFAULTS.storedDeployments, DEFAULTS.concurrency, 120_000);
  } finally {
    await filling.close();
  }
  const perWrite = async (stateFile?: string) => {
    const server = await startServerProcess("emulator", "instant", stateFile);
    try {
      await drive(server.url, [WRITE], 200, 1, 5_000); // warm-up, not counted
      return await timeWrites(server.url, DEFAULTS.timedWrites);
    } finally {
      await server.close();
    }
  };
  // Rounds alternate the three so drift in machine load hits them alike; medians are kept. The
  // empty file is new in every round; the full one grows by one round's writes each time.
  const runs: Record<"memory" | "empty" | "full", number[]> = { memory: [], empty: [], full: [] };
  for (let round = 0; round < DEFAULTS.rounds; round++) {
    runs.memory.push(await perWrite());
    runs.empty.push(await perWrite(join(dir, `empty-${round}.db`)));
    runs.full.push(await perWrite(fullFile));
  }
  const middle = (values: number[]) =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
  const [usMemory, usEmpty, usFull] = [middle(runs.memory), middle(runs.empty), middle(runs.full)];

  const startOn = async (stateFile: string) => {
    const t0 = performance.now();
    const emulator = await startEmulator({ seed: DEFAULT_SEED_PATH, speed: "instant", stateFile });
    const ms = performance.now() - t0;
    const stored = await storedDeployments(emulator.url);
    await emulator.close();
    return { ms, stored };
  };
  const fresh = await startOn(join(dir, "fresh.db"));
  const reopened = await startOn(fullFile);
  return { usMemory, usEmpty, usFull, freshMs: fresh.ms, loadMs: reopened.ms, stored: reopened.stored };
}

/** Runs the whole bench and prints the table. */
export async function runEmulatorBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "stackwright-bench-"));
  try {
    // Rounds alternate the servers so drift in machine load hits all of them alike; medians are kept.
    const runs: Record<"bare" | "memory" | "persisted", Throughput[]> = {
      bare: [],
      memory: [],
      persisted: [],
    };
    for (let round = 0; round < DEFAULTS.rounds; round++) {
      runs.bare.push(await measureServer("bare", BARE_MIX));
      runs.memory.push(await measureServer("emulator", EMULATOR_MIX));
      runs.persisted.push(await measureServer("emulator", EMULATOR_MIX, join(dir, `http-${round}.db`)));
    }
    const bare = median(runs.bare);
    const row = (name: string, t: Throughput) =>
      `${name.padEnd(36)} ${t.perSecond.toFixed(0).padStart(7)} req/s (median of ${DEFAULTS.rounds} x ${t.requests} requests)  ratio to bare ${(t.perSecond / bare.perSecond).toFixed(2)}`;
    console.log(
      `emulator bench: ${EMULATOR_MIX.length}-step mix (7 GET, 3 POST), concurrency ${DEFAULTS.concurrency}, loopback, servers in child processes`,
    );
    console.log(row("bare Fastify GET/POST", bare));
    console.log(row("emulator, in memory", median(runs.memory)));
    console.log(row("emulator, --state-file (SQLite WAL)", median(runs.persisted)));

    const w = await measureStateFile(dir);
    const ratio = (a: number, b: number) => (a / b).toFixed(2);
    console.log(
      `state file: ${w.stored} deployments stored, started in ${w.loadMs.toFixed(0)} ms beside ${w.freshMs.toFixed(0)} ms on a new file (ratio ${ratio(w.loadMs, w.freshMs)})`,
    );
    console.log(
      `POST a deployment, one at a time: ${w.usMemory.toFixed(0)} µs in memory, ${w.usEmpty.toFixed(0)} µs on an empty file (ratio ${ratio(w.usEmpty, w.usMemory)}), ` +
        `${w.usFull.toFixed(0)} µs with ${DEFAULTS.storedDeployments}+ stored (ratio to empty ${ratio(w.usFull, w.usEmpty)})`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module || process.argv[1] === __filename) {
  runEmulatorBench().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
