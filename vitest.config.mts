import * as fs from "node:fs";
import * as path from "node:path";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** The one fuzz file that needs the Pulumi CLI (it kills engines). */
const ENGINE_FUZZ = "test/fuzz/engine-kill.test.ts";
/** The file of test/docs that runs the docs' shell blocks; the rest of test/docs is pure logic. */
const DOCS_COMMANDS = "test/docs/docs-commands.test.ts";

/**
 * Test files go to the workers longest first, as vitest orders them once it has timed them on a
 * machine. A clean clone (CI) has no such timings, and vitest would start the largest files first:
 * the files that take longest (mostly waiting on the engine, the platform's stalls and killed
 * runs) would then end up last, when nothing else is left to use the CPU they leave idle. Measured
 * on the 2-core machine: the last three minutes of a cold run were 70 to 90 % busy in size order,
 * 91 to 96 % in a warm run's duration order.
 *
 * A file's duration is vitest's own when it has one, else the one in test/durations.json
 * (`project:path` → milliseconds, written from vitest's timings of the last run by `node
 * test/helpers/run-ts.cjs test/helpers/record-durations.ts`); a file in neither goes first, as
 * vitest runs unknown files first, and so does one that failed last time. Projects keep vitest's
 * order among themselves.
 */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const byVitest = await super.sort(files);
    const root = this.ctx.config.root;
    const recordedFile = path.join(root, "test", "durations.json");
    const parsed: unknown = fs.existsSync(recordedFile)
      ? JSON.parse(fs.readFileSync(recordedFile, "utf8"))
      : {};
    const recorded = new Map<string, unknown>(
      typeof parsed === "object" && parsed !== null ? Object.entries(parsed) : [],
    );
    const keyOf = (file: TestSpecification) => `${file.project.name}:${path.relative(root, file.moduleId)}`;
    const fromFile = (key: string): number | undefined => {
      const value = recorded.get(key);
      return typeof value === "number" ? value : undefined;
    };
    const duration = (file: TestSpecification) =>
      this.ctx.cache.getFileTestResults(keyOf(file))?.duration ??
      fromFile(keyOf(file)) ??
      Number.POSITIVE_INFINITY;
    const failed = (file: TestSpecification) =>
      this.ctx.cache.getFileTestResults(keyOf(file))?.failed === true ? 1 : 0;
    const place = new Map(byVitest.map((file, index) => [file, index]));
    const projectPlace = new Map<string, number>();
    for (const file of byVitest) {
      if (!projectPlace.has(file.project.name)) projectPlace.set(file.project.name, projectPlace.size);
    }
    return [...byVitest].sort(
      (a, b) =>
        (projectPlace.get(a.project.name) ?? 0) - (projectPlace.get(b.project.name) ?? 0) ||
        failed(b) - failed(a) ||
        duration(b) - duration(a) ||
        (place.get(a) ?? 0) - (place.get(b) ?? 0),
    );
  }
}

export default defineConfig({
  test: {
    // Which files each project runs: see `projects` below (a root `include` would be merged into
    // every project's).
    // Makes the run's records directory for the client helper; its teardown fails the run if any
    // recorded error or log line holds a token (see test/global-setup.ts).
    globalSetup: ["test/global-setup.ts"],
    // The longest files first, also in a clean clone (see LongestFirst).
    sequence: { sequencer: LongestFirst },
    pool: "forks",
    // Vitest's default on a 2-core CI runner is ONE worker. The end-to-end files spend much of their
    // wall time waiting on child processes (the Pulumi CLI, the program, the provider, the
    // emulator): two files at once measured 1.29x faster on this machine, with no test changed.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two groups, run by scripts/test.sh side by side once the Pulumi CLI is there: what needs no
    // Pulumi CLI (`unit`, `integration`, `platform-answers`, at a lower priority) and what runs
    // the engine (`engine`, `docs`). `npx vitest run` runs all five.
    //
    // Every project but `docs` (one file) runs without per-file isolation: one process per worker
    // for all its files, which start their own emulators, servers and processes and leave nothing
    // behind. A fresh process per file spent most of its time importing the same modules again:
    // measured on the 2-core machine, `unit` 25 CPU-seconds instead of 75, `integration` with
    // `platform-answers` 55 instead of 110, `engine` about 70 less of 650.
    projects: [
      {
        // Pure logic: test/unit mirrors src/, and test/docs holds the checks of the docs themselves.
        extends: true,
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts", "test/docs/**/*.test.ts"],
          exclude: [DOCS_COMMANDS],
          isolate: false,
        },
      },
      {
        // The client, emulator, providers, program and notifications over real HTTP on 127.0.0.1,
        // and the fuzzing that needs no engine.
        extends: true,
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts", "test/fuzz/**/*.test.ts"],
          exclude: [ENGINE_FUZZ],
          isolate: false,
        },
      },
      {
        // The real `pulumi` CLI: the end-to-end tests and the fuzzing that kills engines.
        extends: true,
        // Its own global setup too: the KMS key its targets are sealed with (test/kms-setup.ts).
        test: {
          name: "engine",
          include: ["test/e2e/**/*.test.ts", ENGINE_FUZZ],
          isolate: false,
          globalSetup: ["test/kms-setup.ts"],
        },
      },
      {
        // The README and docs run as written. Their blocks use the ports the docs name (8787 for
        // `npm start` and the laptop flow, 4000, 4566); no other test binds those (the main-job
        // tests run `start --port 0`), so they run beside the rest.
        extends: true,
        test: { name: "docs", include: [DOCS_COMMANDS] },
      },
      {
        // The client's integration tests and the providers' runtime tests again, against an
        // emulator that answers as the real platform does (reduced list items, the real create
        // shape, a numeric id in the single view: docs/emulator.md). test/e2e/platform-answers
        // runs the engine against that emulator in the engine project.
        extends: true,
        test: {
          name: "platform-answers",
          include: ["test/integration/client/**/*.test.ts", "test/integration/providers/runtime.test.ts"],
          env: { STACKWRIGHT_TEST_ANSWERS: "platform" },
          isolate: false,
        },
      },
    ],
  },
});
