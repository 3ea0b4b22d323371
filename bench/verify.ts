/**
 * Verify bench: `up` of N Deployments whose `verify:` checks pass at once, beside the same `up`
 * without `verify:` in the same bench run, each against a fresh emulator whose environments serve
 * their sites. The bound: verification adds at most one round trip per check beyond the
 * deployment's own wait, and a no-change `up` runs no check.
 *
 * Run: `npm run build && node dist/bench/verify.js [1,10]`. Not part of `npm test`.
 */
import "../src/sqlite-warning";
import * as fs from "node:fs";
import { LocalWorkspace, type Stack } from "@pulumi/pulumi/automation";
import { pulumiCommand } from "../src/cli";
import { startEmulator } from "../src/emulator";
import { benchSeed, benchStackEnv, scratch, timed, type Timing } from "./providers";

const program = (verify: boolean) => `"use strict";
const sw = require("./dist/providers");
const n = Number(process.env.BENCH_N);
const verify = ${
  verify
    ? `{ checks: [{ path: "/health", status: "200", body: "runs build" }], within_seconds: 60, interval_seconds: 10, on_failure: "fail" }`
    : "undefined"
};
for (let i = 0; i < n; i++) {
  sw.deploymentWithDriftCheck("d" + i, { stack: "bench", environment: "e" + i, ref_type: "branch", ref: "main", verify });
}
`;

interface Row {
  up: Timing & { siteRequests: number };
  rerun: Timing & { siteRequests: number };
}

async function siteRequests(url: string, n: number): Promise<number> {
  let total = 0;
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${url}/_emulator/project/bench/environment/e${i}/site`);
    total += ((await res.json()) as { requests: number }).requests;
  }
  return total;
}

async function measure(n: number, verify: boolean): Promise<Row> {
  const emulator = await startEmulator({
    seed: benchSeed(n, (i) => `{emulator}/_sites/bench/e${i}`),
    speed: "instant",
  });
  const dir = scratch(program(verify));
  try {
    const env = benchStackEnv(dir, n, emulator.url);
    const stack: Stack = await LocalWorkspace.createOrSelectStack(
      { stackName: `verify-${n}-${verify ? "on" : "off"}`, workDir: dir },
      { envVars: env, pulumiCommand: await pulumiCommand(dir) },
    );
    const before = await siteRequests(emulator.url, n);
    const up = await timed(emulator.url, () => stack.up());
    const afterUp = await siteRequests(emulator.url, n);
    const rerun = await timed(emulator.url, () => stack.up());
    const afterRerun = await siteRequests(emulator.url, n);
    return {
      up: { ...up, siteRequests: afterUp - before },
      rerun: { ...rerun, siteRequests: afterRerun - afterUp },
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await emulator.close();
  }
}

/** Runs the bench for each N; prints one line per variant and the ratios of verify on to off. */
export async function runVerifyBench(sizes: readonly number[]): Promise<void> {
  for (const n of sizes) {
    const off = await measure(n, false);
    const on = await measure(n, true);
    for (const [name, r] of [
      ["without verify", off],
      ["with verify", on],
    ] as const) {
      console.log(
        `N=${n} ${name.padEnd(14)} up ${r.up.ms} ms (${r.up.requests} API req, ${r.up.siteRequests} site req) | ` +
          `second up ${r.rerun.ms} ms (${r.rerun.requests} API req, ${r.rerun.siteRequests} site req)`,
      );
    }
    const ratio = (a: number, b: number) => (a / b).toFixed(2);
    console.log(
      `N=${n} verify on / off: up ${ratio(on.up.ms, off.up.ms)}x (+${on.up.requests - off.up.requests} API req, ` +
        `${on.up.siteRequests} site req for ${n} check(s)), second up ${ratio(on.rerun.ms, off.rerun.ms)}x ` +
        `(${on.rerun.siteRequests} site req)`,
    );
  }
}

if (require.main === module) {
  const arg = process.argv[2];
  const sizes = arg === undefined ? [1, 10] : arg.split(",").map((s) => Number(s));
  if (sizes.some((n) => !Number.isInteger(n) || n < 1 || n > 200)) {
    console.error("usage: node dist/bench/verify.js [N,N,...] (each 1..200)");
    process.exit(2);
  }
  runVerifyBench(sizes).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
