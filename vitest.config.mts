import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Makes the run's records directory for the client helper; its teardown fails the run if any
    // recorded error or log line holds a token (see test/global-setup.ts).
    globalSetup: ["test/global-setup.ts"],
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
