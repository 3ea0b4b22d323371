/**
 * `npm run bench`: every benchmark in turn. Each prints ratios of two things measured side by
 * side in the same run (ours beside a baseline), so the numbers mean the same on any machine.
 * `npm run bench -- emulator client` runs only those; providers take sizes as `providers=10,100`,
 * the fleet bench as `fleet=1,20`; `fleet-large[=S]` (not run by default) the per-change runs of a
 * fleet of S = 1,000 files beside a one-file fleet's; `observe[=S,S]` (S = 100 by default) `status`
 * and `drift` of a clean fleet beside bare GETs, and the fleet page's size and first paint;
 * `verify[=S,S]` an `up` whose `verify:` checks pass at once beside the same `up` without them.
 */
import "../src/sqlite-warning";
import { runClientBench } from "./client";
import { runDisplayBench } from "./display";
import { runEmulatorBench } from "./emulator";
import { runFleetBench, runLargeBench } from "./fleet";
import { runObserveBench } from "./observe";
import { runProvidersBench } from "./providers";
import { runVerifyBench } from "./verify";

const benches: Record<string, (arg: string | undefined) => Promise<unknown>> = {
  emulator: () => runEmulatorBench(),
  client: () => runClientBench(),
  providers: (arg) => runProvidersBench(arg === undefined ? [10, 100, 500] : arg.split(",").map(Number)),
  fleet: (arg) => runFleetBench(arg === undefined ? [1, 20, 100] : arg.split(",").map(Number)),
  // Not in the default set (it needs a fleet of 1,000 files): `npm run bench -- fleet-large[=S]`.
  "fleet-large": (arg) => runLargeBench(arg === undefined ? 1000 : Number(arg), false),
  // Not in the default set: `npm run bench -- display[=S,LINES_S]` (the display's cost, minutes).
  display: (arg) => {
    const [sites, lineSites, rounds] = arg === undefined ? [100, 20, 3] : arg.split(",").map(Number);
    return runDisplayBench(sites ?? 100, lineSites ?? 20, rounds ?? 3);
  },
  // S = 100 takes about half a minute; `observe=100,1000` adds the 1,000-site fleet (minutes).
  observe: (arg) => runObserveBench(arg === undefined ? [100] : arg.split(",").map(Number)),
  // An up whose verify: checks pass at once beside the same up without verify: (N = 1, 10).
  verify: (arg) => runVerifyBench(arg === undefined ? [1, 10] : arg.split(",").map(Number)),
};
const DEFAULT = ["emulator", "client", "providers", "fleet", "observe", "verify"];

async function main(argv: string[]): Promise<number> {
  const wanted = argv.length === 0 ? DEFAULT.map((name) => [name]) : argv.map((a) => a.split("="));
  for (const [name, arg] of wanted) {
    const bench = name === undefined ? undefined : benches[name];
    if (bench === undefined) {
      console.error(`unknown bench '${name ?? ""}'; known: ${Object.keys(benches).join(", ")}`);
      return 2;
    }
    console.log(`\n=== ${name} ===`);
    await bench(arg);
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // A size out of range is the caller's mistake: its one line, exit 2; anything else with its stack.
    if (error instanceof RangeError) {
      console.error(error.message);
      process.exitCode = 2;
      return;
    }
    console.error(error);
    process.exitCode = 1;
  },
);
