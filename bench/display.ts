/**
 * Display bench: what Stackwright's display of a run costs and how much it prints. Side by side in
 * one run, on the same fleet (bench/fleet-world.ts) against the emulator at instant speed: a
 * no-change `up --full` of S sites × 3 environments with the display (in CI mode: its output is
 * not a terminal) and with `--engine-display` (the engine's own display, passed through), rounds
 * alternating which goes first; and the lines a fleet's first `up` prints with each.
 *
 * Run: `npm run bench -- display` (S = 100 for the time, 20 for the lines; LINES_S = 0: no line
 * counts) or `display=S,LINES_S[,ROUNDS]`. Not in the default set. The cost is compared in CPU
 * seconds (the process and the engines it waited for), which a shared machine's load moves far
 * less than the wall clock.
 */
import { spawn } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { startEmulator } from "../src/emulator";
import { cli, runEnv } from "./fleet";
import { fleetProject, fleetSeed } from "./fleet-world";

/** Runs `stackwright ARGS` in the project and counts the lines it prints (stdout and stderr). */
function lines(dir: string, env: Record<string, string>, args: readonly string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(dir, "bin", "stackwright.js"), ...args, "--project", dir],
      {
        cwd: dir,
        env,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (out += c.toString()));
    child.once("close", (code) =>
      code === 0
        ? resolve(out.trimEnd().split("\n").length)
        : reject(new Error(`exit ${String(code)}:\n${out}`)),
    );
  });
}

async function withFleet<T>(
  sites: number,
  body: (dir: string, env: Record<string, string>) => Promise<T>,
): Promise<T> {
  const emulator = await startEmulator({ seed: fleetSeed(sites), speed: "instant" });
  const dir = fleetProject(sites);
  try {
    // A passphrase of the bench's own: the built-in one serves only the demo's settings file.
    return await body(dir, {
      ...runEnv(dir, emulator.url),
      PULUMI_CONFIG_PASSPHRASE: crypto.randomBytes(18).toString("base64url"),
    });
  } finally {
    await emulator.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/**
 * Runs `stackwright ARGS` to its end and returns its wall-clock and CPU seconds (user + system,
 * with the engines and other children it waited for, from /usr/bin/time): on a shared machine the
 * CPU is what a change of ours costs; the wall clock moves with everyone else's load.
 */
function timedRun(
  dir: string,
  env: Record<string, string>,
  args: readonly string[],
): Promise<{ wall: number; cpu: number }> {
  const out = path.join(dir, `.time-${process.pid}`);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(
      "/usr/bin/time",
      [
        "-f",
        "%U %S",
        "-o",
        out,
        process.execPath,
        path.join(dir, "bin", "stackwright.js"),
        ...args,
        "--project",
        dir,
      ],
      { cwd: dir, env, stdio: ["ignore", "ignore", "pipe"] },
    );
    let err = "";
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    child.once("close", (code) => {
      if (code !== 0)
        return reject(new Error(`stackwright ${args.join(" ")} exited ${String(code)}:\n${err}`));
      const [user = 0, system = 0] = fs.readFileSync(out, "utf8").trim().split(/\s+/).map(Number);
      resolve({ wall: (performance.now() - started) / 1000, cpu: user + system });
    });
  });
}

export async function runDisplayBench(sites = 100, lineSites = 20, rounds = 3): Promise<void> {
  const firstUp = async (extra: readonly string[]) =>
    withFleet(lineSites, (dir, env) => lines(dir, env, ["up", ...extra]));
  if (lineSites > 0) {
    const display = await firstUp([]);
    const engine = await firstUp(["--engine-display"]);
    console.log(
      `first up of ${lineSites} × 3: ${display} lines with the display, ${engine} with --engine-display`,
    );
  }

  await withFleet(sites, async (dir, env) => {
    await cli(dir, env, ["up"]);
    await cli(dir, env, ["up"]); // the first no-change run
    const shown: { wall: number; cpu: number }[] = [];
    const raw: { wall: number; cpu: number }[] = [];
    for (let i = 0; i < rounds; i++) {
      const order = i % 2 === 0 ? [shown, raw] : [raw, shown];
      for (const into of order) {
        into.push(await timedRun(dir, env, ["up", "--full", ...(into === raw ? ["--engine-display"] : [])]));
      }
    }
    const cpu = (runs: typeof shown) => median(runs.map((r) => r.cpu));
    const a = cpu(shown);
    const b = cpu(raw);
    const list = (runs: typeof shown) =>
      runs.map((r) => `${r.cpu.toFixed(1)} CPU-s / ${r.wall.toFixed(1)} s`).join(", ");
    console.log(
      `no-change up --full of ${sites} × 3 (median of ${rounds}): ${a.toFixed(1)} CPU-s with the display, ` +
        `${b.toFixed(1)} CPU-s with --engine-display: the display adds ${(((a - b) / b) * 100).toFixed(1)} % ` +
        `(with: ${list(shown)}; without: ${list(raw)})`,
    );
    const noChange = await lines(dir, env, ["up", "--full"]);
    const noChangeRaw = await lines(dir, env, ["up", "--full", "--engine-display"]);
    console.log(
      `no-change up --full of ${sites} × 3: ${noChange} lines with the display, ${noChangeRaw} with --engine-display`,
    );
  });
}
