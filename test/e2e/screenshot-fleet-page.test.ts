import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect } from "vitest";
import { browserTestsRun } from "../helpers/browser";
import { fixtures } from "../helpers/fixtures";
import { repoRoot } from "../helpers/scratch-project";

/** Width and height of a PNG, from its IHDR chunk. */
function pngSize(file: string): { width: number; height: number } {
  const bytes = fs.readFileSync(file);
  expect(bytes.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

// The operator guide's picture of the fleet page, regenerated as CONTRIBUTING.md says, into a temporary path.
const test = fixtures();

describe.runIf(browserTestsRun())("the script that shoots the guide's fleet page", () => {
  test("shoots the demo fleet with an in sync, a drifted, an awaiting and a failed environment", ({
    scratchDir: dir,
  }) => {
    const out = path.join(dir, "fleet-page.png");
    const run = spawnSync("bash", ["scripts/screenshot-fleet-page.sh", out], {
      cwd: repoRoot,
      encoding: "utf8",
      timeout: 600_000,
    });
    const output = `${run.stdout}${run.stderr}`;
    expect(run.status, output).toBe(0);
    expect(output).toContain(`wrote ${out}: 1 in sync · 1 drifted · 1 awaiting approval · 1 failed`);
    const size = pngSize(out);
    expect(size.width).toBe(1100);
    expect(size.height).toBeGreaterThan(400);
    // The committed picture is one the same script made.
    expect(pngSize(path.join(repoRoot, "docs", "fleet-page.png")).width).toBe(1100);
  }, 600_000);
});
