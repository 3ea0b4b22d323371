/**
 * `stackwright status` against a platform whose every list has 50 pages of 7 MB (the emulator
 * behind test/helpers/swelling-proxy.ts): the client's list budgets stop the reads, the command
 * shows the environments it could not read as unknown with one line each, and the process's peak memory stays far from the gigabytes
 * that reading every page reached. The peak is the kernel's (`maxRSS` at the process's exit).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect } from "vitest";
import { DEFAULT_SEED_PATH } from "../../src/emulator";
import { demoCredentials } from "../helpers/emulator";
import { fixtures } from "../helpers/fixtures";
import { startStackwright } from "../helpers/stackwright-process";
import { startSwellingProxy, type SwellingProxy } from "../helpers/swelling-proxy";

/** What the issue allows `status` against 50 pages of 7 MB. */
const PEAK_LIMIT_BYTES = 600 * 1024 * 1024;

const test = fixtures({ seed: DEFAULT_SEED_PATH }).extend(
  "proxy",
  { scope: "file" },
  async ({ emulatorInProcess }, { onCleanup }): Promise<SwellingProxy> => {
    const proxy = await startSwellingProxy(emulatorInProcess.url, { pageBytes: 7_000_000, pages: 50 });
    onCleanup(() => proxy.close());
    return proxy;
  },
);

describe("status against a platform whose lists are 50 pages of 7 MB", () => {
  test("stops each list at its budget, says so in one line per environment, and peaks under 600 MB", async ({
    proxy,
    project,
    scratchDir: scratch,
  }) => {
    // Written at exit by the command's own process: the kernel's record of its peak (KiB).
    const reporter = path.join(scratch, "peak.cjs");
    const peakFile = path.join(scratch, "peak");
    fs.writeFileSync(
      reporter,
      `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(peakFile)}, ` +
        `String(process.resourceUsage().maxRSS)));\n`,
    );
    // Started, not run to its end synchronously: the proxy answers from this process.
    const child = startStackwright(project.dir, ["status", "--project", project.dir], {
      ...project.env,
      ...demoCredentials(proxy.url),
      NODE_OPTIONS: `--require ${reporter}`,
    });
    const status = await child.exited;
    const out = child.output();
    const peakBytes = Number(fs.readFileSync(peakFile, "utf8")) * 1024;
    if (process.env["STACKWRIGHT_SHOW_PEAK"] === "1")
      console.log(`status peak RSS: ${peakBytes / 1024 / 1024} MiB`);
    // The environments whose reads were stopped say so, each on one line, as unknown.
    expect(status, out).toBe(0);
    expect(out).toMatch(/^acme-web\s+uat\s+unknown/m);
    const why = out.split("\n").filter((l) => l.includes("stopped after"));
    expect(why.length, out).toBeGreaterThan(0);
    for (const line of why) {
      expect(line).toMatch(
        /GET \/svc\/projects: stopped after \d+ pages and [\d.]+ MiB, over the 8\.0 MiB one list may read \(maxListBytes\)/,
      );
    }
    expect(peakBytes).toBeLessThan(PEAK_LIMIT_BYTES);
    // Fewer pages were served than the platform offered: the budget stopped the reads early.
    expect(proxy.pagesServed("/svc/projects")).toBeLessThan(50);
  }, 300_000);
});
