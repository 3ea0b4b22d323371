/**
 * Emulator bench, side by side in one run:
 *  1. requests per second of a representative GET/POST mix against the emulator (in memory and
 *     with a state file), beside a bare Fastify GET/POST pair in the same mix, as a ratio;
 *  2. the cost of one state-file write (one deployment, one transaction) with 10,000 deployments
 *     stored, beside the same write into an empty file, and the restart (load) time.
 * Servers run in child processes; every loop is bounded by a count and a time cap.
 *
 * Run: `npm run build && node dist/bench/emulator.js`
 * (or from the sources: `node test/helpers/run-ts.cjs bench/emulator.ts`).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, request } from "undici";
import { DEFAULT_SEED_PATH, loadSeed } from "../src/emulator";
import type { DeploymentRecord } from "../src/emulator/model";
import { Store } from "../src/emulator/store";
import { startServerProcess } from "./server-process";

const DEFAULTS = {
  requests: 6_000,
  concurrency: 16,
  maxMsPerLoop: 15_000,
  storedDeployments: 10_000,
  timedWrites: 2_000,
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

function deployment(id: number): DeploymentRecord {
  return {
    id,
    stack: "acme-web",
    env: "uat",
    state: "Approved",
    ref_type: "redeploy",
    ref: "",
    sha: "8f3c2a1d9e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a",
    package: null,
    title: `bench ${id}`,
    summary: "",
    deployer: "ops@example.com",
    locked: false,
    changes: { "Code version": { from: "8f3c2a1", to: "8f3c2a1" } },
    created: 1_763_000_000,
    requested: 1_763_000_000,
    approved: 1_763_000_000,
    started: 0,
    updated: 1_763_000_000,
    failure: null,
  };
}

/** Microseconds per write: one deployment and the id counter in one transaction, as a request does. */
function timeWrites(store: Store, writes: number): number {
  const t0 = performance.now();
  for (let i = 0; i < writes; i++) {
    store.tx(() => store.saveDeployment(deployment(store.nextId("deployment"))));
  }
  return ((performance.now() - t0) * 1000) / writes;
}

function measureStateFile(dir: string) {
  const seed = loadSeed(DEFAULT_SEED_PATH);
  const emptyFile = join(dir, "empty.db");
  const empty = new Store(seed, emptyFile);
  const usEmpty = timeWrites(empty, DEFAULTS.timedWrites);
  empty.close();

  const fullFile = join(dir, "full.db");
  const full = new Store(seed, fullFile);
  full.tx(() => {
    for (let i = 0; i < DEFAULTS.storedDeployments; i++)
      full.saveDeployment(deployment(full.nextId("deployment")));
  });
  const usFull = timeWrites(full, DEFAULTS.timedWrites);
  full.close();

  const t0 = performance.now();
  const reopened = new Store(seed, fullFile);
  const loadMs = performance.now() - t0;
  const stored = reopened.deployments.size;
  reopened.close();
  return { usEmpty, usFull, loadMs, stored };
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

    const w = measureStateFile(dir);
    console.log(`state file: ${w.stored} deployments stored, reopened in ${w.loadMs.toFixed(0)} ms`);
    console.log(
      `state file write (1 deployment + counter, 1 transaction): ${w.usEmpty.toFixed(1)} µs into an empty file, ${w.usFull.toFixed(1)} µs with ${DEFAULTS.storedDeployments} stored (ratio ${(w.usFull / w.usEmpty).toFixed(2)})`,
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
