/**
 * The fuzz harness: seeded, reproducible fast-check runs with a report a person can act on.
 *
 * - `FUZZ_SEED=N` reproduces a run (every property of every fuzz file draws from it); without it
 *   each run takes a fresh seed and prints it.
 * - `FUZZ_SCALE=K` multiplies every bounded sample; `npm test` runs K = 1, `npm run fuzz` K = 20.
 * - A failure names the property, the seed, the command that reproduces it and the shrunk
 *   counterexample (the sequence of steps), printed as JSON.
 * - Each property counts what it did (cases, steps, faults, kills) and prints one line at the end,
 *   so a long run leaves the numbers docs/reliability.md quotes.
 */
import fc from "fast-check";

function positiveIntFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) {
    throw new Error(`${name} must be a positive integer, got ${JSON.stringify(raw)}`);
  }
  return Number(raw);
}

/** How many times the bounded sample runs (`npm run fuzz` sets 20). */
export const FUZZ_SCALE = positiveIntFromEnv("FUZZ_SCALE", 1);

/** The seed of this run: `FUZZ_SEED`, else a fresh one (printed by every property). */
export const FUZZ_SEED =
  process.env["FUZZ_SEED"] === undefined || process.env["FUZZ_SEED"] === ""
    ? Math.floor(Math.random() * 0x7fffffff)
    : positiveIntFromEnv("FUZZ_SEED", 1);

/** Counters a property adds to while it runs. */
export type Counts = Record<string, number>;

/** Adds `n` to `counts[key]`. */
export function count(counts: Counts, key: string, n = 1): void {
  counts[key] = (counts[key] ?? 0) + n;
}

export interface FuzzOptions {
  /** Cases in the bounded sample of `npm test`; `npm run fuzz` runs FUZZ_SCALE times as many. */
  bounded: number;
  /**
   * Shrink a failure to its smallest form (default true). Properties whose cases take seconds
   * (processes killed and restarted) turn it off: the first failing case is reported as drawn.
   */
  shrink?: boolean;
  /** The test file, for the command that reproduces a failure. */
  file: string;
}

/**
 * Runs `body` on `runs(bounded)` cases drawn from `arbitrary` with the run's seed. Resolves with
 * the counts the cases added; rejects with the report of the (shrunk) failing case.
 */
export async function fuzz<T>(
  name: string,
  arbitrary: fc.Arbitrary<T>,
  body: (value: T, counts: Counts) => Promise<void>,
  options: FuzzOptions,
): Promise<Counts> {
  const counts: Counts = {};
  const numRuns = options.bounded * FUZZ_SCALE;
  const details = await fc.check(
    fc.asyncProperty(arbitrary, async (value) => {
      count(counts, "cases");
      // A long run (npm run fuzz) says how far it is, a tenth at a time.
      const done = counts["cases"] ?? 0;
      if (numRuns >= 100 && done % Math.floor(numRuns / 10) === 0) {
        console.log(`[fuzz] ${name}: ${done} of ${numRuns} cases, seed ${FUZZ_SEED}`);
      }
      await body(value, counts);
    }),
    { seed: FUZZ_SEED, numRuns, endOnFailure: options.shrink === false },
  );
  const summary = Object.entries(counts)
    .map(([k, v]) => `${v} ${k}`)
    .join(", ");
  console.log(`[fuzz] ${name}: seed ${FUZZ_SEED}, ${summary}`);
  if (!details.failed) return counts;
  const shrunk =
    details.counterexample === null ? "(none)" : JSON.stringify(details.counterexample[0], null, 2);
  const cause =
    details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  throw new Error(
    `Property "${name}" failed after ${details.numRuns} case(s) (${details.numShrinks} shrink step(s)).\n` +
      `Reproduce: FUZZ_SEED=${FUZZ_SEED} npx vitest run ${options.file}\n` +
      `Smallest failing case:\n${shrunk}\n` +
      `Cause: ${cause}`,
  );
}

/**
 * Like {@link fuzz}, for properties whose cases take seconds of mostly waiting (engines started
 * and killed): the cases drawn from the run's seed are spread over `lanes` (each an isolated
 * set of fixtures: an emulator and a project), which run at once, one case at a time each. No
 * shrinking; the first failing case is reported as drawn, with the seed that reproduces the run.
 */
export async function fuzzInLanes<T, L>(
  name: string,
  /**
   * One arbitrary, sampled `runs(bounded)` times; or strata: `runs(bounded)` rounds, each one
   * case from every stratum, so that a small sample still covers every stratum.
   */
  arbitrary: fc.Arbitrary<T> | readonly fc.Arbitrary<T>[],
  lanes: readonly L[],
  body: (value: T, lane: L, counts: Counts) => Promise<void>,
  options: Omit<FuzzOptions, "shrink">,
): Promise<Counts> {
  const counts: Counts = {};
  const numRuns = options.bounded * FUZZ_SCALE;
  const cases: T[] = Array.isArray(arbitrary)
    ? fc.sample(fc.tuple(...(arbitrary as readonly fc.Arbitrary<T>[])), { seed: FUZZ_SEED, numRuns }).flat()
    : fc.sample(arbitrary as fc.Arbitrary<T>, { seed: FUZZ_SEED, numRuns });
  let next = 0;
  const failures: { index: number; value: T; error: unknown }[] = [];
  await Promise.all(
    lanes.map(async (lane) => {
      while (failures.length === 0 && next < cases.length) {
        const index = next++;
        const value = cases[index] as T;
        count(counts, "cases");
        const done = counts["cases"] ?? 0;
        if (cases.length >= 100 && done % Math.floor(cases.length / 10) === 0) {
          console.log(`[fuzz] ${name}: ${done} of ${cases.length} cases, seed ${FUZZ_SEED}`);
        }
        try {
          await body(value, lane, counts);
        } catch (error) {
          failures.push({ index, value, error });
        }
      }
    }),
  );
  const summary = Object.entries(counts)
    .map(([k, v]) => `${v} ${k}`)
    .join(", ");
  console.log(`[fuzz] ${name}: seed ${FUZZ_SEED}, ${summary}`);
  const first = failures[0];
  if (first === undefined) return counts;
  const cause = first.error instanceof Error ? first.error.message : String(first.error);
  throw new Error(
    `Property "${name}" failed at case ${first.index + 1} of ${cases.length}.\n` +
      `Reproduce: FUZZ_SEED=${FUZZ_SEED} npx vitest run ${options.file}\n` +
      `Failing case:\n${JSON.stringify(first.value, null, 2)}\n` +
      `Cause: ${cause}`,
  );
}

/** The cases `npm test` runs times FUZZ_SCALE (for tests that size their timeout). */
export function runs(bounded: number): number {
  return bounded * FUZZ_SCALE;
}
