/**
 * Observe bench: what `stackwright status` and `stackwright drift` cost on a clean fleet, beside
 * the floor of what they must do. A fleet of S sites × 3 environments
 * (bench/fleet-world.ts, each environment built by a deployment of `main`), its files in a scratch
 * project, the emulator at instant speed in this process, and a file backend in which the last
 * `up` of every stack is recorded: site 0's by two real `up`s (the second proves no change, as a
 * release pipeline leaves it), its checkpoint, history and confirmation cloned for the others (the
 * same records and sizes as after the fleet's own `up`s, in seconds, not the engine 3,000 times).
 *
 * Side by side, in the same run, at the same concurrency (the one budget, `--api-concurrency`,
 * whose default is the client's pool): the real CLI as a user runs it, each its own process,
 * `status --json FILE` and `drift --json FILE`; and the floor, bare GETs through our client of the
 * same number and kind as the observation's (bench/observe-floor.ts), also its own process. Rounds
 * alternate the three; medians are kept. Each run's requests are counted at the emulator: writes
 * (must be 0) and reads per distinct fact (duplicates must be 0). Then the fleet page of the
 * largest fleet (`status --html`): its size and its first paint in headless Chromium beside a plain
 * page of the same size (bench/observe-page.ts).
 *
 * Run: `npm run bench -- observe=100,1000` (`observe` alone: S = 100, as in the default set), or
 * `node dist/bench/observe.js 100,1000`. Not part of `npm test` (S = 1,000 takes minutes).
 */
import "../src/sqlite-warning";
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { z } from "zod";
import { readDigest } from "../src/api";
import { clientDefaults, createClient, readRecorded } from "../src/client";
import { upInputDigests } from "../src/cli";
import { startEmulator } from "../src/emulator";
import { cli, load, median, requestLog, runEnv } from "./fleet";
import { EMAIL, TOKEN, fleetProject, fleetSeed, siteName } from "./fleet-world";
import { measurePaint, type PaintResult } from "./observe-page";
import { kindsLine, sameReads, tally, type Tally } from "./observe-tally";

const ENVIRONMENTS = ["dev", "uat", "prod"];
/** The budget of requests in flight: the default of `--api-concurrency`, given explicitly to all. */
const CONCURRENCY = clientDefaults.maxConnections;
/** How long one measured process may run before the bench gives up on it. */
const RUN_BOUND_MS = 600_000;

/** One measured run: wall time and what it asked the emulator. */
interface Run {
  readonly ms: number;
  readonly requests: Tally;
}

/** The floor's run, with the time of its GETs alone (inside its process). */
interface FloorRun extends Run {
  readonly getsMs: number;
}

interface Row {
  readonly sites: number;
  readonly floor: readonly FloorRun[];
  readonly status: readonly Run[];
  readonly drift: readonly Run[];
  readonly page?: { readonly bytes: number; readonly paint: PaintResult | undefined };
}

/** A clean fleet of `sites` × 3 on its own emulator, the last `up` of every stack in the backend. */
interface World {
  readonly dir: string;
  readonly url: string;
  readonly env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * Copies every record of the backend that names site 0's Pulumi stack for each other site (the
 * name replaced in the key and the text), then gives each cloned confirmation the digest of its
 * own checkpoint, as the run that proved it would have.
 */
async function cloneBackend(dir: string, sites: number, url: string): Promise<void> {
  const root = path.join(dir, ".stackwright", "state", ".pulumi");
  const from = `dev.${siteName(0)}`;
  const records = fs
    .readdirSync(root, { recursive: true, encoding: "utf8" })
    .filter((rel) => rel.includes(from) && fs.statSync(path.join(root, rel)).isFile());
  if (!records.some((rel) => rel.startsWith(path.join("stacks", "stackwright", from)))) {
    throw new Error(`bench: no checkpoint of ${from} in ${root} after its up`);
  }
  for (const rel of records) {
    const text = fs.readFileSync(path.join(root, rel), "utf8");
    for (let i = 1; i < sites; i++) {
      const target = path.join(root, rel.replaceAll(siteName(0), siteName(i)));
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, text.replaceAll(siteName(0), siteName(i)));
    }
  }
  const confirmations = path.join(root, "stackwright", "confirmations", "stackwright");
  if (!fs.existsSync(confirmations)) return;
  const Record = z.looseObject({
    checkpoint: z.string(),
    inputs: z.looseObject({}),
    reads: z.array(z.looseObject({ name: z.string(), args: z.unknown(), digest: z.string() })),
  });
  const client = createClient({ baseUrl: url, email: EMAIL, token: TOKEN });
  // The target as `up` sees it; only the parts that name the site are taken from its digests.
  const target = { name: "dev", projectDir: dir, configFile: undefined, env: {}, pulumiVersion: "" };
  try {
    for (let i = 1; i < sites; i++) {
      const file = path.join(confirmations, `dev.${siteName(i)}.json`);
      if (!fs.existsSync(file)) continue;
      const checkpoint = fs.readFileSync(path.join(root, "stacks", "stackwright", `dev.${siteName(i)}.json`));
      const record = Record.parse(JSON.parse(fs.readFileSync(file, "utf8")));
      record.checkpoint = createHash("sha256").update(checkpoint).digest("hex");
      // Its own file and its own stack in the flags, digested as its `up` digests them (the
      // settings, credentials and tool are site 0's, the same).
      const own = upInputDigests(
        target,
        `dev.${siteName(i)}`,
        path.join(dir, "stacks-config", `${siteName(i)}.yaml`),
      );
      record.inputs = { ...record.inputs, file: own.file, flags: own.flags };
      // The answers the site's own program read (site 0's calls, the site's name in their
      // arguments), digested as the run that recorded them digests them.
      record.reads = await Promise.all(
        record.reads.map(async (read) => {
          const answer = readRecorded(client, read.name, read.args);
          if (answer === undefined) throw new Error(`bench: ${read.name} cannot be read again`);
          return { ...read, digest: readDigest(await answer) };
        }),
      );
      fs.writeFileSync(file, JSON.stringify(record));
    }
  } finally {
    await client.close();
  }
}

async function cleanFleet(sites: number): Promise<World> {
  const emulator = await startEmulator({ seed: fleetSeed(sites, { deployed: true }), speed: "instant" });
  const dir = fleetProject(sites);
  try {
    const env = runEnv(dir, emulator.url);
    // The first up deploys site 0's files; the second changes nothing and records the proof.
    await cli(dir, env, ["up", siteName(0)]);
    await cli(dir, env, ["up", siteName(0)]);
    await cloneBackend(dir, sites, emulator.url);
    return {
      dir,
      url: emulator.url,
      env,
      close: async () => {
        await emulator.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await emulator.close();
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Runs `run` with the emulator's request log cleared first, and tallies what it asked. */
async function counted<T>(
  url: string,
  run: () => Promise<T>,
): Promise<{ ms: number; value: T; requests: Tally }> {
  await fetch(`${url}/_emulator/requests`, { method: "DELETE" });
  const started = performance.now();
  const value = await run();
  const ms = performance.now() - started;
  return { ms, value, requests: tally(await requestLog(url)) };
}

const FloorAnswer = z.strictObject({ ms: z.number(), requests: z.number() });

/** The floor process (bench/observe-floor.js); resolves with the time of its GETs. */
function floorProcess(world: World): Promise<number> {
  const script = path.join(__dirname, "observe-floor.js");
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, String(CONCURRENCY), ENVIRONMENTS.join(",")], {
      env: world.env,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: RUN_BOUND_MS,
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    child.once("close", (code) => {
      if (code !== 0) {
        reject(
          new Error(`bench: the floor exited ${String(code)} (bound ${RUN_BOUND_MS / 1000} s):\n${err}`),
        );
        return;
      }
      try {
        resolve(FloorAnswer.parse(JSON.parse(out)).ms);
      } catch (error) {
        reject(new Error(`bench: the floor printed no answer: ${out}`, { cause: error }));
      }
    });
  });
}

const StatusCounts = z.looseObject({ counts: z.record(z.string(), z.number()) });
const DriftResult = z.looseObject({ result: z.string() });

/** Checks what a run wrote: every environment in sync, and drift clean. */
function checkClean(world: World, sites: number): void {
  const counts = StatusCounts.parse(
    JSON.parse(fs.readFileSync(path.join(world.dir, "status.json"), "utf8")),
  ).counts;
  if (counts["in sync"] !== sites * 3) {
    throw new Error(`bench: the fleet is not clean: status counts ${JSON.stringify(counts)}`);
  }
  const result = DriftResult.parse(
    JSON.parse(fs.readFileSync(path.join(world.dir, "drift.json"), "utf8")),
  ).result;
  if (result !== "clean") throw new Error(`bench: drift says '${result}' on a clean fleet`);
}

async function measure(sites: number, rounds: number, page: boolean): Promise<Row> {
  const world = await cleanFleet(sites);
  try {
    const budget = ["--api-concurrency", String(CONCURRENCY)];
    const status = () =>
      counted(world.url, () =>
        cli(world.dir, world.env, ["status", "--json", path.join(world.dir, "status.json"), ...budget]),
      );
    const drift = () =>
      counted(world.url, () =>
        cli(world.dir, world.env, ["drift", "--json", path.join(world.dir, "drift.json"), ...budget]),
      );
    const floor = async (): Promise<FloorRun> => {
      const run = await counted(world.url, () => floorProcess(world));
      return { ms: run.ms, requests: run.requests, getsMs: run.value };
    };
    // One of each first, not counted: the disk cache, and drift's first memory of the fleet.
    await floor();
    await status();
    await drift();
    checkClean(world, sites);
    const out = { floor: [] as FloorRun[], status: [] as Run[], drift: [] as Run[] };
    const steps = [
      async () => out.floor.push(await floor()),
      async () => out.status.push(await status()),
      async () => out.drift.push(await drift()),
    ];
    for (let round = 0; round < rounds; round++) {
      // Each round starts with another of the three, so a machine's load weighs on all alike.
      for (let k = 0; k < steps.length; k++) await steps[(round + k) % steps.length]?.();
    }
    checkClean(world, sites);
    if (!page) return { sites, ...out };
    const html = path.join(world.dir, "fleet.html");
    await cli(world.dir, world.env, ["status", "--html", html, ...budget]);
    return {
      sites,
      ...out,
      page: { bytes: fs.statSync(html).size, paint: await measurePaint(html, rounds) },
    };
  } finally {
    await world.close();
  }
}

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const x = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
const mb = (bytes: number) => `${(bytes / 1_000_000).toFixed(2)} MB`;
const med = (runs: readonly { ms: number }[]) => median(runs.map((r) => r.ms));
/** The median of the rounds' ratios of `a` to `b` (each round's pair measured side by side). */
const ratio = (a: readonly { ms: number }[], b: readonly { ms: number }[]) =>
  median(a.map((r, i) => r.ms / (b[i]?.ms ?? NaN)));

/** What a run's requests say against the rules: writes, duplicates, reads per environment. */
function requestsLine(t: Tally): string {
  return (
    `${t.total} requests, ${t.writes} writes, ${t.reads} reads (${kindsLine(t)}), ${t.distinct} distinct, ` +
    `${t.duplicates.length} read more than once${
      t.duplicates.length === 0
        ? ""
        : ` (${t.duplicates
            .slice(0, 3)
            .map((d) => `${d.request} ×${d.times}`)
            .join(", ")})`
    }, ` +
    `${t.environments} environments, at most ${t.maxReadsPerEnvironment} reads of one`
  );
}

/**
 * The largest fleet the bench takes: the emulator's request log keeps the last 10,000 requests,
 * and one run of S sites makes 6 S + 2 (the tally must see them all).
 */
export const MAX_SITES = 1500;

export async function runObserveBench(sizes: readonly number[], rounds = 5): Promise<void> {
  if (sizes.length === 0 || sizes.some((n) => !Number.isInteger(n) || n < 1 || n > MAX_SITES)) {
    throw new RangeError(
      `observe bench: each size must be a whole number from 1 to ${MAX_SITES}, not ${sizes.join(",")}`,
    );
  }
  const loadBefore = load();
  const largest = Math.max(...sizes);
  console.log(
    `status and drift of clean fleets of S sites × 3 environments beside bare GETs through the client, ` +
      `concurrency ${CONCURRENCY}, ${rounds} rounds alternated; load ${loadBefore}`,
  );
  const rows: Row[] = [];
  for (const sites of sizes) {
    const row = await measure(sites, rounds, sites === largest);
    rows.push(row);
    console.log(
      `S=${sites}: floor ${s(med(row.floor))} (GETs alone ${s(median(row.floor.map((r) => r.getsMs)))}) | ` +
        `status ${s(med(row.status))} | drift ${s(med(row.drift))} | load ${load()}`,
    );
    for (const [what, runs] of [
      ["floor", row.floor],
      ["status", row.status],
      ["drift", row.drift],
    ] as const) {
      const last = runs[runs.length - 1];
      if (last !== undefined) console.log(`  ${what}: ${requestsLine(last.requests)}`);
    }
  }
  const loadAfter = load();

  console.log(
    "\n| fleet | floor: bare GETs, process (GETs alone) | `status --json` | ratio | `drift --json` | ratio | reads per run (distinct) | writes | reads of one environment, most |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|");
  for (const r of rows) {
    const st = r.status[r.status.length - 1]?.requests;
    const dr = r.drift[r.drift.length - 1]?.requests;
    const all = [...r.status, ...r.drift].map((run) => run.requests);
    console.log(
      `| ${r.sites} × 3 | ${s(med(r.floor))} (${s(median(r.floor.map((f) => f.getsMs)))}) | ${s(med(r.status))} | ` +
        `${ratio(r.status, r.floor).toFixed(2)}× | ${s(med(r.drift))} | ${ratio(r.drift, r.floor).toFixed(2)}× | ` +
        `${st?.reads ?? "-"} (${st?.distinct ?? "-"}) / ${dr?.reads ?? "-"} (${dr?.distinct ?? "-"}) | ` +
        `${Math.max(...all.map((t) => t.writes))} | ${Math.max(...all.map((t) => t.maxReadsPerEnvironment))} |`,
    );
  }
  console.log(`\nLoad average (1, 5, 15 min): ${loadBefore} before, ${loadAfter} after.`);

  const page = rows.find((r) => r.page !== undefined)?.page;
  if (page?.paint !== undefined) {
    const p = page.paint;
    console.log(
      `\nfleet page of ${largest} × 3: ${page.bytes} bytes (${mb(page.bytes)}); first contentful paint ` +
        `${median(p.page).toFixed(0)} ms (rounds ${p.page.map((v) => v.toFixed(0)).join(", ")}) beside a plain page of the same size ` +
        `${median(p.floor).toFixed(0)} ms (rounds ${p.floor.map((v) => v.toFixed(0)).join(", ")}): ` +
        `${(median(p.page) / median(p.floor)).toFixed(2)}×`,
    );
  }

  console.log("\n| target | measured |\n|---|---|");
  const target = (what: string, value: string) => console.log(`| ${what} | ${value} |`);
  for (const r of rows) {
    target(
      `\`status\` of ${r.sites} × 3 ≤ 1.5× the same bare GETs (process beside process)`,
      `${ratio(r.status, r.floor).toFixed(2)}×`,
    );
    target(`\`drift\` of ${r.sites} × 3 ≤ 1.5× the same bare GETs`, `${ratio(r.drift, r.floor).toFixed(2)}×`);
  }
  const thousand = rows.find((r) => r.sites === 1000);
  if (thousand !== undefined) {
    target("`status` of 1,000 × 3 < 15 s", s(med(thousand.status)));
    target("`drift` of 1,000 × 3 < 15 s", s(med(thousand.drift)));
  }
  const runs = rows.flatMap((r) => [...r.status, ...r.drift]);
  target("no write request", `${Math.max(...runs.map((r) => r.requests.writes))} writes at most`);
  target(
    "at most one read per environment per distinct fact",
    `${Math.max(...runs.map((r) => r.requests.duplicates.length))} reads made twice; at most ` +
      `${Math.max(...runs.map((r) => r.requests.maxReadsPerEnvironment))} reads of one environment (its document, its deployments)`,
  );
  const same = rows.every((r) => {
    const f = r.floor[0]?.requests;
    const st = r.status[0]?.requests;
    return f !== undefined && st !== undefined && sameReads(f, st);
  });
  target("the floor made the same reads as `status`", same ? "yes" : "no (see the request lines above)");
  if (page !== undefined) {
    target(`fleet page of ${largest} × 3 < 2 MB`, mb(page.bytes));
    if (page.paint !== undefined) {
      target(
        `its first paint < 1 s in headless Chromium`,
        `${median(page.paint.page).toFixed(0)} ms (${x(median(page.paint.page), median(page.paint.floor))} a plain page of its size)`,
      );
    }
  }
}

if (require.main === module) {
  const arg = process.argv[2];
  const sizes = arg === undefined ? [100, 1000] : arg.split(",").map(Number);
  if (sizes.some((n) => !Number.isInteger(n) || n < 1 || n > MAX_SITES)) {
    console.error(`usage: node dist/bench/observe.js [S,S,...] (each 1..${MAX_SITES}; default 100,1000)`);
    process.exit(2);
  }
  runObserveBench(sizes).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
