import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Makes the run's records directory for the client helper; its teardown fails the run if any
    // recorded error or log line holds a token (see test/global-setup.ts).
    globalSetup: ["test/global-setup.ts"],
    pool: "forks",
    // Vitest's default on a 2-core CI runner is ONE worker. The end-to-end files spend much of their
    // wall time waiting on child processes (the Pulumi CLI, the program, the provider, the
    // emulator): two files at once measured 1.29x faster on this machine, with no test changed.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: { name: "suite", include: ["test/**/*.test.ts"], exclude: ["test/docs/**"] },
      },
      {
        // The README and docs run as written, after everything else and alone: their blocks use
        // the ports the docs name (8787), which `start` in other files would otherwise hold.
        extends: true,
        test: { name: "docs", include: ["test/docs/**/*.test.ts"], sequence: { groupOrder: 1 } },
      },
    ],
  },
});
