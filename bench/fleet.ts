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
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { engineEnv, openStack } from "../src/cli";
import { startEmulator } from "../src/emulator";
import { EMAIL, TOKEN, fleetProject, fleetSeed, floorProject, siteFile, siteName } from "./fleet-world";

interface Timing {
  readonly ms: number;
  readonly reads: number;
  readonly writes: number;
}

/** The same fleet run the way the `stackwright` command fans out: one Pulumi stack per file. */
interface PerFileRow {
  readonly preview: Timing;
  readonly up: Timing;
  readonly noChange: Timing;
  /** `preview --changed-since` with one file changed. */
  readonly changedPreview: Timing;
  /** The slower of the two `--shard I/2` no-change runs. */
  readonly shard: Timing;
}

interface FleetRow {
  readonly sites: number;
  readonly perFile: PerFileRow | undefined;
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

/** Runs `stackwright ARGS` in the project as its own process; rejects on a non-zero exit. */
function cli(dir: string, env: Record<string, string>, args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(dir, "bin", "stackwright.js"), ...args], {
      cwd: dir,
      env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    child.once("close", (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`stackwright ${args.join(" ")} exited ${String(code)}:\n${err}`)),
    );
  });
}

/** Whether this build fans out one Pulumi stack per file (`up --shard`). */
function fansOut(): boolean {
  const help = execFileSync(process.execPath, [path.join(repoBin, "stackwright.js"), "up", "--help"], {
    encoding: "utf8",
  });
  return help.includes("--shard");
}
const repoBin = path.resolve(__dirname, "..", "..", "bin");

/** The fleet through the command: per-file stacks, a one-file change, one shard of two. */
async function measurePerFile(sites: number, url: string): Promise<PerFileRow> {
  const dir = fleetProject(sites);
  try {
    const env = {
      ...(process.env as Record<string, string>),
      ...engineEnv({ projectDir: dir, stateDir: path.join(dir, ".stackwright", "state"), baseEnv: {} }),
      STACKWRIGHT_API_URL: url,
      STACKWRIGHT_EMAIL: EMAIL,
      STACKWRIGHT_API_TOKEN: TOKEN,
    };
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.email=bench@example.com", "-c", "user.name=bench", ...args], {
        cwd: dir,
      });
    git("init", "-q");
    git("add", "-A");
    git("commit", "-qm", "fleet");
    const run = (...args: string[]) => cli(dir, env, [...args, "--project", dir]);
    const preview = await timed(url, () => run("preview"));
    const up = await timed(url, () => run("up"));
    const noChange = await timed(url, () => run("up"));
    fs.writeFileSync(path.join(dir, "stacks-config", `${siteName(0)}.yaml`), siteFile(0, "2"));
    const changedPreview = await timed(url, () => run("preview", "--changed-since", "HEAD"));
    const shards = [
      await timed(url, () => run("up", "--shard", "1/2")),
      await timed(url, () => run("up", "--shard", "2/2")),
    ];
    const shard = shards.reduce((a, b) => (a.ms >= b.ms ? a : b));
    return { preview, up, noChange, changedPreview, shard };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function measureFleet(sites: number, perFile: boolean): Promise<FleetRow> {
  const emulator = await startEmulator({ seed: fleetSeed(sites), speed: "instant" });
  const dir = fleetProject(sites);
  try {
    const stack = await benchStack(dir, emulator.url);
    const preview = await timed(emulator.url, () => stack.preview());
    const up = await timed(emulator.url, () => stack.up());
    const noChange = await timed(emulator.url, () => stack.up());
    const exported = (await stack.exportStack()).deployment as { resources?: { type: string }[] } | undefined;
    // A fresh emulator: the per-file run starts from the same platform state as the one above.
    await fetch(`${emulator.url}/_emulator/reset`, { method: "POST" });
    return {
      sites,
      perFile: perFile ? await measurePerFile(sites, emulator.url) : undefined,
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
  const perFile = fansOut();
  console.log(
    perFile
      ? "each fleet runs twice: in one Pulumi stack, then per file through `stackwright` (fan-out)"
      : "this build runs every file in one Pulumi stack (no fan-out yet)",
  );
  const rows: FleetRow[] = [];
  for (const sites of sizes) {
    const row = await measureFleet(sites, perFile);
    rows.push(row);
    const line = (label: string, r: { preview: Timing; up: Timing; noChange: Timing }) =>
      `S=${sites} ${label}: preview ${s(r.preview.ms)} | first up ${s(r.up.ms)} (${r.up.writes} writes) | ` +
      `no-change up ${s(r.noChange.ms)} (${r.noChange.reads} reads, ${r.noChange.writes} writes)`;
    console.log(`${line("one stack", row)} | ${row.resources} resources | state ${kb(row.stateBytes)}`);
    if (row.perFile !== undefined) {
      console.log(
        `${line("per file", row.perFile)} | preview --changed-since (1 file) ${s(row.perFile.changedPreview.ms)} | ` +
          `slower --shard I/2 no-change up ${s(row.perFile.shard.ms)}`,
      );
    }
  }
  const empty = await measureFloor(0);
  console.log(`floor: empty program, no-change up ${s(empty.noChange.ms)}`);
  const floors = new Map<number, { up: Timing; noChange: Timing }>();
  for (const row of rows) {
    if (floors.has(row.resources)) continue;
    const floor = await measureFloor(row.resources);
    floors.set(row.resources, floor);
    console.log(
      `floor: ${row.resources} bare no-op dynamic resources in one stack, first up ${s(floor.up.ms)}, no-change up ${s(floor.noChange.ms)}`,
    );
  }

  console.log(
    "\n| fleet | mode | resources | preview | first up | first up per env | no-change up | no-change reads / writes | no-change vs bare floor | state |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|");
  for (const row of rows) {
    const floor = floors.get(row.resources);
    const modes = [
      ["one stack", row] as const,
      ...(row.perFile === undefined ? [] : [["per file", row.perFile] as const]),
    ];
    for (const [mode, r] of modes) {
      console.log(
        `| ${row.sites} × 3 | ${mode} | ${row.resources} | ${s(r.preview.ms)} | ${s(r.up.ms)} | ${s(r.up.ms / (row.sites * 3))} | ` +
          `${s(r.noChange.ms)} | ${r.noChange.reads} / ${r.noChange.writes} | ` +
          `${floor === undefined ? "?" : x(r.noChange.ms, floor.noChange.ms)} | ${mode === "one stack" ? kb(row.stateBytes) : ""} |`,
      );
    }
  }
  const by = (n: number) => rows.find((r) => r.sites === n);
  const best = (row: FleetRow) => row.perFile ?? row;
  const one = by(1);
  const twenty = by(20);
  const hundred = by(100);
  const oneFloor = one === undefined ? undefined : floors.get(one.resources);
  console.log(`\ntargets (issue 11 item 5), measured ${perFile ? "per file" : "in one stack"}:`);
  if (one !== undefined && oneFloor !== undefined) {
    console.log(
      `- no-change up of one 3-env file / the same number of bare no-op resources: ${x(best(one).noChange.ms, oneFloor.noChange.ms)} (target ≤ 1.5×)`,
    );
  }
  if (hundred !== undefined) {
    console.log(`- no-change up of 100 × 3: ${s(best(hundred).noChange.ms)} (target ≤ 10 s)`);
    console.log(`- first up of 100 × 3: ${s(best(hundred).up.ms)} (target ≤ 60 s)`);
    const h = hundred.perFile;
    if (h !== undefined && one?.perFile !== undefined) {
      console.log(
        `- preview --changed-since, 1 file of 100 / preview of a 1-file fleet: ${x(h.changedPreview.ms, one.perFile.preview.ms)} (target ≤ 1.3×)`,
      );
      console.log(
        `- slower --shard I/2 / unsharded no-change up: ${x(h.shard.ms, h.noChange.ms)} (target ≤ 0.6×)`,
      );
    }
  }
  if (hundred !== undefined && twenty !== undefined) {
    console.log(
      `- first up per environment, S=100 / S=20: ${x(best(hundred).up.ms / 300, best(twenty).up.ms / 60)} (target ≤ 1.2×)`,
    );
  }
  const worst = Math.max(...rows.flatMap((r) => [r.noChange.writes, r.perFile?.noChange.writes ?? 0]));
  const reads = rows.map((r) => `${best(r).noChange.reads} reads for ${r.sites * 3} environments`).join(", ");
  console.log(`- no-change up: ${worst} write requests at most (target 0); ${reads}`);
  console.log(`- the engine's own floor, an empty program's no-change up: ${s(empty.noChange.ms)}`);
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
