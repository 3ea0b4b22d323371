/**
 * Fleet bench: what a release pipeline pays per site. Generated fleets of S sites × 3
 * environments (bench/fleet-world.ts) run through the real `stackwright` command, one Pulumi
 * stack per file, against the emulator at instant speed: preview, first up, a no-change up
 * confirmed without the engine (the fingerprint shortcut) and one with `--full`, each shard of
 * `--shard I/2`, and `preview --changed-since` with one file changed; API reads and writes of
 * each. And fleets of live sites adopted with `stackwright import --all`: the import, the first
 * up (which must write nothing) and the second (confirmed without the engine). Beside them, measured in the same run on the same toolchain, the floors of the
 * mechanism underneath: an empty Pulumi program's no-change up, and bare no-op dynamic
 * resources in one stack. Prints one table of ratios, with the machine's load.
 *
 * Run: `npm run bench -- fleet` or `node dist/bench/fleet.js [1,20,100]`. Not part of `npm test`
 * (S = 100 takes minutes); run it under `flock /tmp/sw-fullsuite.lock` on a shared machine.
 * `node dist/bench/fleet.js --large[=S] [--first-up]` (or `npm run bench -- fleet-large`): the
 * per-change runs of S = 1,000 files beside a one-file fleet's (runLargeBench below).
 */
import "../src/sqlite-warning";
import { execFileSync, spawn } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseDocument } from "yaml";
import { engineEnv, openEngineStack, type EngineStack } from "../src/cli";
import { startEmulator } from "../src/emulator";
import { EMAIL, TOKEN, fleetProject, fleetSeed, floorProject, siteFile, siteName } from "./fleet-world";

interface Timing {
  readonly ms: number;
  readonly reads: number;
  readonly writes: number;
}

interface FleetRow {
  readonly sites: number;
  /** Dynamic resources in all the fleet's checkpoints. */
  readonly resources: number;
  readonly preview: Timing;
  readonly up: Timing;
  /** No-change `up`: every stack confirmed without the engine. */
  readonly confirmed: Timing;
  /** No-change `up --full`: an engine per stack. */
  readonly full: Timing;
  /** `up --full --shard 1/2` and `2/2`. */
  readonly shards: readonly [Timing, Timing];
  /** `preview --changed-since HEAD` with one file changed. */
  readonly changedPreview: Timing;
}

export async function requestLog(url: string): Promise<{ method: string; path: string }[]> {
  const res = await fetch(`${url}/_emulator/requests`);
  const body: unknown = await res.json();
  const requests =
    typeof body === "object" && body !== null && "requests" in body && Array.isArray(body.requests)
      ? body.requests
      : [];
  return requests.flatMap((r: unknown) =>
    typeof r === "object" && r !== null && "method" in r && "path" in r
      ? [{ method: String(r.method), path: String(r.path) }]
      : [],
  );
}

async function timed(url: string | undefined, run: () => Promise<unknown>): Promise<Timing> {
  if (url !== undefined) await fetch(`${url}/_emulator/requests`, { method: "DELETE" });
  const started = performance.now();
  await run();
  const ms = Math.round(performance.now() - started);
  const log = (url === undefined ? [] : await requestLog(url)).filter(
    (r) => !r.path.startsWith("/_emulator"),
  );
  return {
    ms,
    reads: log.filter((r) => r.method === "GET").length,
    writes: log.filter((r) => r.method !== "GET").length,
  };
}

/** Dynamic resources in every checkpoint of the project's backend. */
function resourcesIn(dir: string): number {
  const root = path.join(dir, ".stackwright", "state", ".pulumi", "stacks", "stackwright");
  if (!fs.existsSync(root)) return 0;
  return fs
    .readdirSync(root)
    .filter((f) => f.endsWith(".json"))
    .reduce(
      (n, f) =>
        n +
        (fs.readFileSync(path.join(root, f), "utf8").match(/"type":\s*"pulumi-nodejs:dynamic\//g) ?? [])
          .length,
      0,
    );
}

/**
 * Runs `stackwright ARGS` in the project as its own process (with `--project`, unless `project`
 * is false: `import` writes into the working directory's stacks-config/); rejects on a non-zero
 * exit.
 */
export function cli(
  dir: string,
  env: Record<string, string>,
  args: readonly string[],
  project = true,
): Promise<void> {
  // STACKWRIGHT_BENCH_PROFILE=DIR: a CPU profile of each measured `stackwright` process in DIR.
  const profile = process.env["STACKWRIGHT_BENCH_PROFILE"];
  const nodeArgs = profile === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${profile}`];
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...nodeArgs, path.join(dir, "bin", "stackwright.js"), ...args, ...(project ? ["--project", dir] : [])],
      {
        cwd: dir,
        env,
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    let err = "";
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    child.once("close", (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`stackwright ${args.join(" ")} exited ${String(code)}:\n${err}`)),
    );
  });
}

/** The environment of a `stackwright` run in `dir` against `url`. */
export function runEnv(dir: string, url: string): Record<string, string> {
  return {
    // The engine's environment on top of this process's (git and the rest of PATH stay).
    ...engineEnv({
      projectDir: dir,
      stateDir: path.join(dir, ".stackwright", "state"),
      baseEnv: process.env,
    }),
    STACKWRIGHT_API_URL: url,
    STACKWRIGHT_EMAIL: EMAIL,
    STACKWRIGHT_API_TOKEN: TOKEN,
  };
}

/** A fleet adopted with `stackwright import --all`: day one of a team with live sites. */
interface ImportRow {
  readonly sites: number;
  readonly importing: Timing;
  /** The first `up` after the import: records every resource, writes nothing. */
  readonly up: Timing;
  /** The second: confirmed without the engine. */
  readonly confirmed: Timing;
}

/** `sites` live sites (a deployment of main on each environment), imported, then up twice. */
async function measureImport(sites: number): Promise<ImportRow> {
  const emulator = await startEmulator({ seed: fleetSeed(sites, { deployed: true }), speed: "instant" });
  const dir = fleetProject(0);
  try {
    const env = runEnv(dir, emulator.url);
    const run = (...args: string[]) => timed(emulator.url, () => cli(dir, env, args));
    const importing = await timed(emulator.url, () => cli(dir, env, ["import", "--all"], false));
    const written = fs.readdirSync(path.join(dir, "stacks-config")).filter((f) => f.endsWith(".yaml"));
    if (written.length !== sites) throw new Error(`import wrote ${written.length} files for ${sites} sites`);
    const up = await run("up");
    const confirmed = await run("up");
    return { sites, importing, up, confirmed };
  } finally {
    await emulator.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** One fleet of `sites` files, from a fresh platform and an empty backend. */
async function measureFleet(sites: number): Promise<FleetRow> {
  const emulator = await startEmulator({ seed: fleetSeed(sites), speed: "instant" });
  const dir = fleetProject(sites);
  try {
    const env = runEnv(dir, emulator.url);
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.email=bench@example.com", "-c", "user.name=bench", ...args], {
        cwd: dir,
      });
    git("init", "-q");
    git("add", "-A");
    git("commit", "-qm", "fleet");
    const run = (...args: string[]) => timed(emulator.url, () => cli(dir, env, args));
    const preview = await run("preview");
    const up = await run("up");
    await run("up"); // the first no-change run: the engine proves it, and records the proof
    const confirmed = await run("up");
    const full = await run("up", "--full");
    const shards = [
      await run("up", "--full", "--shard", "1/2"),
      await run("up", "--full", "--shard", "2/2"),
    ] as const;
    // What the runs wrote into the project (the first engine run puts the target's encryption salt
    // into Pulumi.dev.yaml, as `pulumi stack init` does) is committed, as a team commits it once;
    // otherwise that shared file counts as changed and every stack is selected.
    git("add", "-A", "--", ".", ":!.stackwright");
    git("commit", "-qm", "settings after the first run", "--allow-empty");
    // One file changes where no lock holds it (a changed deployment under prod's lock fails the preview, as it should).
    const changed = parseDocument(siteFile(0));
    changed.setIn(["environments", "dev", "deployment", "trigger"], "2");
    fs.writeFileSync(path.join(dir, "stacks-config", `${siteName(0)}.yaml`), changed.toString());
    const changedPreview = await run("preview", "--changed-since", "HEAD");
    return { sites, resources: resourcesIn(dir), preview, up, confirmed, full, shards, changedPreview };
  } finally {
    await emulator.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs git in `dir` with a bench identity. */
function gitIn(dir: string): (...args: string[]) => void {
  return (...args) => {
    execFileSync("git", ["-c", "user.email=bench@example.com", "-c", "user.name=bench", ...args], {
      cwd: dir,
    });
  };
}

/** The directory of the project's per-file checkpoints in its file backend. */
const checkpointsOf = (dir: string) =>
  path.join(dir, ".stackwright", "state", ".pulumi", "stacks", "stackwright");

/**
 * Gives every other site of the fleet a checkpoint: site 0's, with its name replaced. What a
 * per-change run reads of the backend then weighs what it would after a real first `up` of the
 * whole fleet (the same files, the same sizes), in seconds instead of minutes.
 */
function cloneCheckpoints(dir: string, sites: number): void {
  const root = checkpointsOf(dir);
  const template = fs.readFileSync(path.join(root, `dev.${siteName(0)}.json`), "utf8");
  for (let i = 1; i < sites; i++) {
    const text = template.replaceAll(siteName(0), siteName(i));
    fs.writeFileSync(path.join(root, `dev.${siteName(i)}.json`), text);
  }
}

/** A per-change run at S sites beside the same run of a one-file fleet (`--large`). */
interface LargeRow {
  readonly sites: number;
  /** How the backend got its S checkpoints: a real first `up`, or site 0's cloned. */
  readonly backend: "first up" | "cloned";
  readonly firstUp?: Timing;
  /** Per round: the one-file fleet's preview and the large fleet's `preview --changed-since`. */
  readonly previews: readonly (readonly [Timing, Timing])[];
  /** Per round: `validate` of the one-file fleet and of the large one. */
  readonly validates: readonly (readonly [Timing, Timing])[];
}

/**
 * A project of `sites` files on its own emulator, every stack in the backend (site 0 by a real
 * `up`, the others by a real `up` too with `realUp`, else cloned), the settings committed and
 * site 0's file changed where no lock holds it.
 */
async function changedFleet(
  sites: number,
  realUp: boolean,
): Promise<{
  dir: string;
  url: string;
  env: Record<string, string>;
  firstUp?: Timing;
  close: () => Promise<void>;
}> {
  const emulator = await startEmulator({ seed: fleetSeed(sites), speed: "instant" });
  const dir = fleetProject(sites);
  const env = runEnv(dir, emulator.url);
  const git = gitIn(dir);
  git("init", "-q");
  git("add", "-A");
  git("commit", "-qm", "fleet");
  let firstUp: Timing | undefined;
  if (realUp || sites === 1) {
    firstUp = await timed(emulator.url, () => cli(dir, env, ["up"]));
  } else {
    await cli(dir, env, ["up", siteName(0)]);
    cloneCheckpoints(dir, sites);
  }
  git("add", "-A", "--", ".", ":!.stackwright");
  git("commit", "-qm", "settings after the first run", "--allow-empty");
  const changed = parseDocument(siteFile(0));
  changed.setIn(["environments", "dev", "deployment", "trigger"], "2");
  fs.writeFileSync(path.join(dir, "stacks-config", `${siteName(0)}.yaml`), changed.toString());
  return {
    dir,
    url: emulator.url,
    env,
    ...(firstUp === undefined ? {} : { firstUp }),
    close: async () => {
      await emulator.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * `preview --changed-since` with one file changed in a fleet of `sites`, and `validate` of it,
 * each beside the same command on a one-file fleet in the same state, alternated over `rounds`
 * so that a shared machine's load weighs on both alike.
 */
async function measureLarge(sites: number, realUp: boolean, rounds: number): Promise<LargeRow> {
  const one = await changedFleet(1, true);
  try {
    const large = await changedFleet(sites, realUp);
    try {
      const previews: (readonly [Timing, Timing])[] = [];
      const validates: (readonly [Timing, Timing])[] = [];
      for (let round = 0; round < rounds; round++) {
        previews.push([
          await timed(one.url, () => cli(one.dir, one.env, ["preview", "--changed-since", "HEAD"])),
          await timed(large.url, () => cli(large.dir, large.env, ["preview", "--changed-since", "HEAD"])),
        ]);
        validates.push([
          await timed(undefined, () => cli(one.dir, one.env, ["validate"])),
          await timed(undefined, () => cli(large.dir, large.env, ["validate"])),
        ]);
      }
      return {
        sites,
        backend: realUp ? "first up" : "cloned",
        ...(large.firstUp === undefined ? {} : { firstUp: large.firstUp }),
        previews,
        validates,
      };
    } finally {
      await large.close();
    }
  } finally {
    await one.close();
  }
}

/**
 * Opens the floor project's `bench` stack on its own file backend, to be run by the engine
 * command alone, exactly as `stackwright` runs each per-file stack (src/cli/engine/run.ts).
 */
async function floorStack(dir: string, n: number): Promise<EngineStack> {
  const env = {
    BENCH_N: String(n),
    ...engineEnv({ projectDir: dir, stateDir: path.join(dir, ".stackwright", "state"), baseEnv: {} }),
    // The `bench` stack is no demo target: a passphrase of its own.
    PULUMI_CONFIG_PASSPHRASE: crypto.randomBytes(18).toString("base64url"),
  };
  return openEngineStack({ projectDir: dir, stackName: "bench", given: process.env, env });
}

/** First and no-change up of `n` bare no-op dynamic resources in one stack (0: the empty program). */
async function measureFloor(n: number): Promise<{ up: Timing; noChange: Timing }> {
  const dir = floorProject();
  try {
    const stack = await floorStack(dir, n);
    const up = await timed(undefined, () => stack.run("up"));
    const noChange = await timed(undefined, () => stack.run("up"));
    return { up, noChange };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
/** Two decimals, for times per environment (a tenth of a second is most of one). */
const s2 = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const x = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
const rw = (t: Timing) => `${t.reads} / ${t.writes}`;
export const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");

export async function runFleetBench(sizes: readonly number[]): Promise<void> {
  const loadBefore = load();
  console.log(
    `fleets of S files × 3 environments through \`stackwright\`, one Pulumi stack per file; load ${loadBefore}`,
  );
  const rows: FleetRow[] = [];
  for (const sites of sizes) {
    const row = await measureFleet(sites);
    rows.push(row);
    console.log(
      `S=${sites}: preview ${s(row.preview.ms)} | first up ${s(row.up.ms)} | no-change up ${s(row.confirmed.ms)} confirmed, ` +
        `${s(row.full.ms)} --full | shards ${s(row.shards[0].ms)} + ${s(row.shards[1].ms)} | ` +
        `preview --changed-since (1 file) ${s(row.changedPreview.ms)} | ${row.resources} resources | load ${load()}`,
    );
  }
  const imports: ImportRow[] = [];
  for (const sites of sizes) {
    const row = await measureImport(sites);
    imports.push(row);
    console.log(
      `S=${sites} imported: import ${s(row.importing.ms)} | first up ${s(row.up.ms)} (${rw(row.up)}) | ` +
        `second up ${s(row.confirmed.ms)} | load ${load()}`,
    );
  }
  const one = rows.find((r) => r.sites === 1);
  const empty = await measureFloor(0);
  const bare = await measureFloor(one?.resources ?? 7);
  console.log(
    `floors: empty program no-change up ${s(empty.noChange.ms)}; ${one?.resources ?? 7} bare no-op dynamic resources: ` +
      `first up ${s(bare.up.ms)}, no-change up ${s(bare.noChange.ms)}`,
  );
  const loadAfter = load();

  console.log(
    "\n| fleet | resources | preview | first up | first up per env | no-change up, confirmed | reads / writes | no-change up --full | reads / writes | slower shard of 2 (--full) | preview --changed-since, 1 file |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|---|");
  for (const r of rows) {
    const slower = r.shards[0].ms >= r.shards[1].ms ? r.shards[0] : r.shards[1];
    console.log(
      `| ${r.sites} × 3 | ${r.resources} | ${s(r.preview.ms)} | ${s(r.up.ms)} | ${s2(r.up.ms / (r.sites * 3))} | ` +
        `${s(r.confirmed.ms)} | ${rw(r.confirmed)} | ${s(r.full.ms)} | ${rw(r.full)} | ${s(slower.ms)} | ${s(r.changedPreview.ms)} |`,
    );
  }
  console.log(
    `\nfloors in the same run: empty Pulumi program, no-change up ${s(empty.noChange.ms)}; ` +
      `${one?.resources ?? 7} bare no-op dynamic resources in one stack (the same engine command, no stackwright process): ` +
      `no-change up ${s(bare.noChange.ms)}, first up ${s(bare.up.ms)}. Load average (1, 5, 15 min): ` +
      `${loadBefore} before, ${loadAfter} after.`,
  );

  console.log(
    "\n| imported fleet (`import --all`, then `up` twice) | import | reads / writes | first up | reads / writes | second up, confirmed | reads / writes |",
  );
  console.log("|---|---|---|---|---|---|---|");
  for (const r of imports) {
    console.log(
      `| ${r.sites} × 3 | ${s(r.importing.ms)} | ${rw(r.importing)} | ${s(r.up.ms)} | ${rw(r.up)} | ` +
        `${s(r.confirmed.ms)} | ${rw(r.confirmed)} |`,
    );
  }

  const by = (n: number) => rows.find((r) => r.sites === n);
  const twenty = by(20);
  const hundred = by(100);
  console.log("\n| target | measured |\n|---|---|");
  const target = (what: string, value: string) => console.log(`| ${what} | ${value} |`);
  if (one !== undefined) {
    target(
      "no-change up of one 3-env file ≤ 1.5× bare no-op resources (with the shortcut)",
      x(one.confirmed.ms, bare.noChange.ms),
    );
    target("the same, engine forced (`--full`)", x(one.full.ms, bare.noChange.ms));
  }
  if (hundred !== undefined) {
    target("no-change up of 100 × 3 ≤ 10 s (with the shortcut)", s(hundred.confirmed.ms));
    target("the same, engine forced (`--full`)", s(hundred.full.ms));
    target("first up of 100 × 3 ≤ 60 s", s(hundred.up.ms));
    if (one !== undefined) {
      target(
        "preview --changed-since, 1 file of 100 ≤ 1.3× preview of a 1-file fleet",
        x(hundred.changedPreview.ms, one.preview.ms),
      );
    }
    const slower = Math.max(hundred.shards[0].ms, hundred.shards[1].ms);
    target("each --shard I/2 ≤ 0.6× the unsharded run (100 × 3, --full)", x(slower, hundred.full.ms));
  }
  if (hundred !== undefined && twenty !== undefined) {
    target("first up per environment, S = 100 ≤ 1.2× S = 20", x(hundred.up.ms / 300, twenty.up.ms / 60));
  }
  const writes = Math.max(...rows.flatMap((r) => [r.confirmed.writes, r.full.writes]));
  const reads = rows.map((r) => `${r.confirmed.reads} reads for ${r.sites * 3} environments`).join(", ");
  target(
    "a no-change run writes nothing; ≤ 1 read per distinct data-source call",
    `${writes} writes at most; confirmed: ${reads}`,
  );
  const importWrites = Math.max(
    ...imports.flatMap((r) => [r.importing.writes, r.up.writes, r.confirmed.writes]),
  );
  target("import, and the first and second up after it, write nothing", `${importWrites} writes at most`);
}

export const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

/**
 * `--large`: the per-change run of a fleet of `sites` (default 1,000) beside a one-file fleet's,
 * in the same run: `preview --changed-since` with one file changed, and `validate`. The backend
 * holds every site's checkpoint, cloned from site 0's real one; with `realUp` the whole fleet's
 * first `up` makes them instead (about 7 minutes at 1,000 on 2 idle cores).
 */
export async function runLargeBench(sites: number, realUp: boolean, rounds = 3): Promise<void> {
  const loadBefore = load();
  console.log(
    `per-change runs at S=${sites} × 3 environments beside a one-file fleet, ${rounds} rounds alternated; load ${loadBefore}`,
  );
  const row = await measureLarge(sites, realUp, rounds);
  const loadAfter = load();
  if (row.firstUp !== undefined) {
    console.log(
      `first up of ${sites} × 3: ${s(row.firstUp.ms)} (${s2(row.firstUp.ms / (sites * 3))} per environment)`,
    );
  }
  console.log(`\n| run | 1 × 3 | ${sites} × 3 | ratio |\n|---|---|---|---|`);
  const line = (what: string, pairs: readonly (readonly [Timing, Timing])[]) => {
    for (const [i, [a, b]] of pairs.entries()) {
      console.log(`| ${what}, round ${i + 1} | ${s(a.ms)} | ${s(b.ms)} | ${x(b.ms, a.ms)} |`);
    }
    // Each round's two runs are side by side: the ratio is the median of the rounds' ratios.
    const ratio = median(pairs.map(([a, b]) => b.ms / a.ms));
    const a = median(pairs.map((p) => p[0].ms));
    const b = median(pairs.map((p) => p[1].ms));
    console.log(`| ${what}, median | ${s(a)} | ${s(b)} | ${ratio.toFixed(2)}× (of the rounds' ratios) |`);
    return ratio;
  };
  const preview = line("`preview --changed-since HEAD`, 1 file changed", row.previews);
  const validate = line("`validate`", row.validates);
  const reads = row.previews.map(([a, b]) => `${a.reads} / ${b.reads}`).join(", ");
  console.log(
    `\nbackend: ${row.backend === "cloned" ? "site 0's checkpoint cloned for every site" : "a real first up"}; ` +
      `API reads of the previews (1 / ${sites}): ${reads}. Load average (1, 5, 15 min): ${loadBefore} before, ${loadAfter} after.`,
  );
  console.log("\n| target | measured |\n|---|---|");
  console.log(
    `| preview --changed-since, 1 of ${sites} files ≤ 1.3× a 1-file fleet's preview | ${preview.toFixed(2)}× |`,
  );
  console.log(
    `| validate of ${sites} files beside 1 (no target; it must read them all) | ${validate.toFixed(2)}× |`,
  );
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const large = args.find((a) => a === "--large" || a.startsWith("--large="));
  const sizes = args.find((a) => !a.startsWith("--"));
  if (large !== undefined) {
    const n = large === "--large" ? 1000 : Number(large.slice("--large=".length));
    if (!Number.isInteger(n) || n < 2 || n > 5000) {
      console.error("usage: node dist/bench/fleet.js --large[=S] [--first-up] (S in 2..5000, default 1000)");
      process.exit(2);
    }
    runLargeBench(n, args.includes("--first-up")).catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
  } else {
    const list = sizes === undefined ? [1, 20, 100] : sizes.split(",").map(Number);
    if (list.some((n) => !Number.isInteger(n) || n < 1 || n > 500)) {
      console.error("usage: node dist/bench/fleet.js [S,S,...] (each 1..500) | --large[=S] [--first-up]");
      process.exit(2);
    }
    runFleetBench(list).catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
  }
}
