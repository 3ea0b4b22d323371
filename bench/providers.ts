/**
 * Providers bench: wall time and API requests of `pulumi preview` and `pulumi up` for N
 * Deployments, beside N resources of a no-op dynamic provider in the same bench run (our overhead
 * ratio), with and without PULUMI_PARALLEL_DIFF, plus the `__provider` bytes per resource.
 *
 * Run: `npm run build && node dist/bench/providers.js [10,100,500]`. Not part of
 * `npm test`. Every stack is fresh; every wait of the engine is bounded by the CLI's own run.
 */
import "../src/sqlite-warning";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { LocalWorkspace, type Stack } from "@pulumi/pulumi/automation";
import { engineEnv, pulumiCommand } from "../src/cli";
import { startEmulator, type SeedInput } from "../src/emulator";

const repoRoot = path.resolve(__dirname, "..", "..");
const EMAIL = "ops@example.com";
const TOKEN = "demo-token";
const SHA = "8f3c2a1d9e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a";

/**
 * One stack with `n` environments, so `n` deployments can run side by side; `urlOf` gives each
 * environment's URL (a site the emulator serves, for a bench that checks it).
 */
export function benchSeed(
  n: number,
  urlOf: (i: number) => string = (i) => `https://e${i}.example.com`,
): SeedInput {
  return {
    users: [{ email: EMAIL, token: TOKEN, username: "ops", first_name: "Olivia", surname: "Ops" }],
    stacks: [
      {
        name: "bench",
        title: "Bench",
        repository_url: "https://git.example.com/bench.git",
        members: [{ email: EMAIL, role: "Stack Manager" }],
        refs: { main: SHA },
        environments: Array.from({ length: n }, (_, i) => ({
          name: `e${i}`,
          usage: "Test" as const,
          url: urlOf(i),
          build_sha: SHA,
        })),
      },
    ],
  };
}

const OURS = `"use strict";
const sw = require("./dist/providers");
const n = Number(process.env.BENCH_N);
for (let i = 0; i < n; i++) {
  new sw.Deployment("d" + i, { stack: "bench", environment: "e" + i, ref_type: "branch", ref: "main" });
}
`;

/** `BENCH_N` bare no-op dynamic resources: the floor of the mechanism our providers use. */
export const NOOP_PROGRAM = `"use strict";
const pulumi = require("@pulumi/pulumi");
const noop = {
  async create(inputs) { return { id: "noop-" + inputs.i, outs: inputs }; },
  async diff() { return { changes: false }; },
  async delete() {},
};
class Noop extends pulumi.dynamic.Resource {
  constructor(name, args) { super(noop, name, args, undefined, "stackwright", "Noop"); }
}
const n = Number(process.env.BENCH_N);
for (let i = 0; i < n; i++) new Noop("n" + i, { i });
`;

export interface Timing {
  ms: number;
  requests: number;
  writes: number;
}

interface Row {
  n: number;
  parallelDiff: boolean;
  variant: "deployment" | "noop";
  preview: Timing;
  up: Timing;
  rerun: Timing;
  providerBytes: number | undefined;
  /** Average size of one resource's entry in the state file (inputs, outputs, metadata). */
  resourceBytes: number | undefined;
}

/** A scratch project whose program is `source`. */
export function scratch(source: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-bench-"));
  for (const entry of ["package.json", "Pulumi.yaml"])
    fs.cpSync(path.join(repoRoot, entry), path.join(dir, entry));
  fs.cpSync(path.join(repoRoot, "dist"), path.join(dir, "dist"), { recursive: true });
  fs.symlinkSync(path.join(repoRoot, "node_modules"), path.join(dir, "node_modules"));
  fs.symlinkSync(path.join(repoRoot, ".tools"), path.join(dir, ".tools"));
  fs.writeFileSync(path.join(dir, "program.js"), source);
  const project = fs.readFileSync(path.join(dir, "Pulumi.yaml"), "utf8");
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), project.replace(/^main: .*$/m, "main: program.js"));
  return dir;
}

async function requestLog(url: string): Promise<{ method: string; path: string }[]> {
  const res = await fetch(`${url}/_emulator/requests`);
  return ((await res.json()) as { requests: { method: string; path: string }[] }).requests.filter(
    (r) => !r.path.startsWith("/_emulator"),
  );
}

export async function timed(url: string, run: () => Promise<unknown>): Promise<Timing> {
  await fetch(`${url}/_emulator/requests`, { method: "DELETE" });
  const started = performance.now();
  await run();
  const ms = Math.round(performance.now() - started);
  const log = await requestLog(url);
  return { ms, requests: log.length, writes: log.filter((r) => r.method !== "GET").length };
}

/** Where a bench stack in `dir` keeps its state (a file backend). */
function benchStateDir(dir: string): string {
  return path.join(dir, ".stackwright", "state");
}

/** The engine's environment for a bench stack of `n` resources in `dir`, against the API at `url`. */
export function benchStackEnv(dir: string, n: number, url: string): Record<string, string> {
  const stateDir = benchStateDir(dir);
  fs.mkdirSync(stateDir, { recursive: true });
  return {
    ...engineEnv({ projectDir: dir, stateDir, baseEnv: process.env }),
    // The bench's stacks are no demo target: a passphrase of their own.
    PULUMI_CONFIG_PASSPHRASE: crypto.randomBytes(18).toString("base64url"),
    BENCH_N: String(n),
    STACKWRIGHT_API_URL: url,
    STACKWRIGHT_EMAIL: EMAIL,
    STACKWRIGHT_API_TOKEN: TOKEN,
  };
}

async function measure(n: number, variant: Row["variant"], parallelDiff: boolean, url: string): Promise<Row> {
  const dir = scratch(variant === "deployment" ? OURS : NOOP_PROGRAM);
  try {
    const env = benchStackEnv(dir, n, url);
    if (parallelDiff) env["PULUMI_PARALLEL_DIFF"] = "true";
    const stackName = `${variant}-${n}-${parallelDiff ? "pd" : "seq"}`;
    const stack: Stack = await LocalWorkspace.createOrSelectStack(
      { stackName, workDir: dir },
      { envVars: env, pulumiCommand: await pulumiCommand(dir) },
    );
    const preview = await timed(url, () => stack.preview());
    const up = await timed(url, () => stack.up());
    const rerun = await timed(url, () => stack.up());
    const stateFile = path.join(benchStateDir(dir), ".pulumi", "stacks", "stackwright", `${stackName}.json`);
    const state = JSON.parse(fs.readFileSync(stateFile, "utf8")) as {
      checkpoint: { latest: { resources: { type: string; inputs: Record<string, unknown> }[] } };
    };
    const dynamic = state.checkpoint.latest.resources.filter((r) =>
      r.type.startsWith("pulumi-nodejs:dynamic/"),
    );
    const provider = dynamic[0]?.inputs["__provider"];
    const resourceBytes =
      dynamic.length === 0
        ? undefined
        : Math.round(
            dynamic.reduce((sum, r) => sum + Buffer.byteLength(JSON.stringify(r)), 0) / dynamic.length,
          );
    return {
      n,
      parallelDiff,
      variant,
      preview,
      up,
      rerun,
      providerBytes: typeof provider === "string" ? Buffer.byteLength(provider) : undefined,
      resourceBytes,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the bench for each N; prints one line per measurement and the overhead ratios. */
export async function runProvidersBench(sizes: readonly number[]): Promise<Row[]> {
  const rows: Row[] = [];
  for (const n of sizes) {
    const emulator = await startEmulator({ seed: benchSeed(n), speed: "instant" });
    try {
      for (const parallelDiff of [false, true]) {
        const ours = await measure(n, "deployment", parallelDiff, emulator.url);
        const noop = await measure(n, "noop", parallelDiff, emulator.url);
        rows.push(ours, noop);
        for (const r of [ours, noop]) {
          console.log(
            `N=${n} parallelDiff=${parallelDiff} ${r.variant.padEnd(10)} preview ${r.preview.ms} ms (${r.preview.requests} req) | ` +
              `up ${r.up.ms} ms (${r.up.requests} req, ${r.up.writes} writes) | second up ${r.rerun.ms} ms ` +
              `(${r.rerun.requests} req, ${r.rerun.writes} writes) | __provider ${r.providerBytes ?? "?"} B, ` +
              `state entry ${r.resourceBytes ?? "?"} B per resource`,
          );
        }
        const ratio = (a: number, b: number) => (a / b).toFixed(2);
        console.log(
          `N=${n} parallelDiff=${parallelDiff} overhead (Deployment / no-op): preview ${ratio(ours.preview.ms, noop.preview.ms)}x, ` +
            `up ${ratio(ours.up.ms, noop.up.ms)}x, second up ${ratio(ours.rerun.ms, noop.rerun.ms)}x`,
        );
      }
    } finally {
      await emulator.close();
    }
  }
  return rows;
}

if (require.main === module) {
  const arg = process.argv[2];
  const sizes = arg === undefined ? [10, 100, 500] : arg.split(",").map((s) => Number(s));
  if (sizes.some((n) => !Number.isInteger(n) || n < 1 || n > 2000)) {
    console.error("usage: node dist/bench/providers.js [N,N,...] (each 1..2000)");
    process.exit(2);
  }
  runProvidersBench(sizes).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
