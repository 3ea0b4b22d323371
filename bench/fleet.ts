/**
 * Fleet bench: what a release pipeline pays per site. Generated fleets of S sites × 3
 * environments (bench/fleet-world.ts) against the emulator at instant speed: preview, first up,
 * no-change up (wall time, API reads and writes, state size), beside the floors of the mechanism
 * underneath measured in the same run on the same toolchain: an empty Pulumi program's no-change
 * up, and the same number of bare no-op dynamic resources. Prints one table of ratios.
 *
 * Run: `npm run bench -- fleet` or `node dist/bench/fleet.js [1,20,100]`. Not part of `npm test`
 * (S = 100 takes minutes); run it under `flock /tmp/sw-fullsuite.lock` on a shared machine.
 */
import "../src/sqlite-warning";
import * as fs from "node:fs";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { engineEnv, openStack } from "../src/cli";
import { startEmulator } from "../src/emulator";
import { EMAIL, TOKEN, fleetProject, fleetSeed, floorProject } from "./fleet-world";

interface Timing {
  readonly ms: number;
  readonly reads: number;
  readonly writes: number;
}

interface FleetRow {
  readonly sites: number;
  readonly resources: number;
  readonly preview: Timing;
  readonly up: Timing;
  readonly noChange: Timing;
  readonly stateBytes: number;
}

async function requestLog(url: string): Promise<{ method: string; path: string }[]> {
  const res = await fetch(`${url}/_emulator/requests`);
  return ((await res.json()) as { requests: { method: string; path: string }[] }).requests.filter(
    (r) => !r.path.startsWith("/_emulator"),
  );
}

async function timed(url: string | undefined, run: () => Promise<unknown>): Promise<Timing> {
  if (url !== undefined) await fetch(`${url}/_emulator/requests`, { method: "DELETE" });
  const started = performance.now();
  await run();
  const ms = Math.round(performance.now() - started);
  const log = url === undefined ? [] : await requestLog(url);
  return {
    ms,
    reads: log.filter((r) => r.method === "GET").length,
    writes: log.filter((r) => r.method !== "GET").length,
  };
}

/** Bytes of everything the backend keeps for the project (checkpoints, history, backups). */
function stateBytes(dir: string): number {
  const root = path.join(dir, ".stackwright", "state", ".pulumi", "stacks");
  let total = 0;
  const walk = (d: string) => {
    if (!fs.existsSync(d)) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else total += fs.statSync(p).size;
    }
  };
  walk(root);
  return total;
}

/** Opens the project's `bench` stack on its own file backend with the API settings in env. */
async function benchStack(
  dir: string,
  url: string | undefined,
  extra: Record<string, string> = {},
): Promise<Stack> {
  const env = {
    ...extra,
    ...engineEnv({ projectDir: dir, stateDir: path.join(dir, ".stackwright", "state"), baseEnv: {} }),
    ...(url === undefined
      ? {}
      : { STACKWRIGHT_API_URL: url, STACKWRIGHT_EMAIL: EMAIL, STACKWRIGHT_API_TOKEN: TOKEN }),
  };
  return openStack({ projectDir: dir, stackName: "bench", env });
}

function customResources(stack: { resources?: { type: string }[] } | undefined): number {
  return (stack?.resources ?? []).filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/")).length;
}

async function measureFleet(sites: number): Promise<FleetRow> {
  const emulator = await startEmulator({ seed: fleetSeed(sites), speed: "instant" });
  const dir = fleetProject(sites);
  try {
    const stack = await benchStack(dir, emulator.url);
    const preview = await timed(emulator.url, () => stack.preview());
    const up = await timed(emulator.url, () => stack.up());
    const noChange = await timed(emulator.url, () => stack.up());
    const exported = (await stack.exportStack()).deployment as { resources?: { type: string }[] } | undefined;
    return {
      sites,
      resources: customResources(exported),
      preview,
      up,
      noChange,
      stateBytes: stateBytes(dir),
    };
  } finally {
    await emulator.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** No-change up of `n` bare no-op dynamic resources (0: the empty program), and their first up. */
async function measureFloor(n: number): Promise<{ up: Timing; noChange: Timing }> {
  const dir = floorProject();
  try {
    const stack = await benchStack(dir, undefined, { BENCH_N: String(n) });
    const up = await timed(undefined, () => stack.up());
    const noChange = await timed(undefined, () => stack.up());
    return { up, noChange };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const x = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
const kb = (bytes: number) =>
  bytes > 1_000_000 ? `${(bytes / 1e6).toFixed(1)} MB` : `${Math.round(bytes / 1000)} KB`;

export async function runFleetBench(sizes: readonly number[]): Promise<void> {
  const rows: FleetRow[] = [];
  for (const sites of sizes) {
    const row = await measureFleet(sites);
    rows.push(row);
    console.log(
      `S=${sites}: ${row.resources} resources | preview ${s(row.preview.ms)} | first up ${s(row.up.ms)} ` +
        `(${row.up.writes} writes) | no-change up ${s(row.noChange.ms)} (${row.noChange.reads} reads, ` +
        `${row.noChange.writes} writes) | state ${kb(row.stateBytes)}`,
    );
  }
  const empty = await measureFloor(0);
  console.log(`floor: empty program, no-change up ${s(empty.noChange.ms)}`);
  const floors = new Map<number, { up: Timing; noChange: Timing }>();
  for (const row of rows) {
    if (!floors.has(row.resources)) {
      const floor = await measureFloor(row.resources);
      floors.set(row.resources, floor);
      console.log(
        `floor: ${row.resources} bare no-op dynamic resources, first up ${s(floor.up.ms)}, no-change up ${s(floor.noChange.ms)}`,
      );
    }
  }

  console.log(
    "\n| fleet | resources | preview | first up | no-change up | reads / writes (no change) | no-change vs bare floor | first up vs bare floor | first up per env | state |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|");
  for (const row of rows) {
    const floor = floors.get(row.resources);
    const perEnv = row.up.ms / (row.sites * 3);
    console.log(
      `| ${row.sites} × 3 | ${row.resources} | ${s(row.preview.ms)} | ${s(row.up.ms)} | ${s(row.noChange.ms)} | ` +
        `${row.noChange.reads} / ${row.noChange.writes} | ${floor === undefined ? "?" : x(row.noChange.ms, floor.noChange.ms)} | ` +
        `${floor === undefined ? "?" : x(row.up.ms, floor.up.ms)} | ${(perEnv / 1000).toFixed(2)} s | ${kb(row.stateBytes)} |`,
    );
  }
  const by = (n: number) => rows.find((r) => r.sites === n);
  const one = by(1);
  const twenty = by(20);
  const hundred = by(100);
  const oneFloor = one === undefined ? undefined : floors.get(one.resources);
  console.log("\ntargets (issue 11 item 5):");
  if (one !== undefined && oneFloor !== undefined) {
    console.log(
      `- no-change up of one 3-env file / same number of bare resources: ${x(one.noChange.ms, oneFloor.noChange.ms)} (target ≤ 1.5×)`,
    );
  }
  if (hundred !== undefined) {
    console.log(`- no-change up of 100 × 3: ${s(hundred.noChange.ms)} (target ≤ 10 s)`);
    console.log(`- first up of 100 × 3: ${s(hundred.up.ms)} (target ≤ 60 s)`);
  }
  if (hundred !== undefined && twenty !== undefined) {
    console.log(
      `- first up per environment, S=100 / S=20: ${x(hundred.up.ms / 300, twenty.up.ms / 60)} (target ≤ 1.2×)`,
    );
  }
  const worst = Math.max(...rows.map((r) => r.noChange.writes));
  console.log(`- writes in a no-change up: ${worst} at most (target 0)`);
  console.log(`- empty program's no-change up: ${s(empty.noChange.ms)} (the engine's own floor)`);
}

if (require.main === module) {
  const arg = process.argv[2];
  const sizes = arg === undefined ? [1, 20, 100] : arg.split(",").map(Number);
  if (sizes.some((n) => !Number.isInteger(n) || n < 1 || n > 500)) {
    console.error("usage: node dist/bench/fleet.js [S,S,...] (each 1..500)");
    process.exit(2);
  }
  runFleetBench(sizes).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
