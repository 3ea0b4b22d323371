import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type StackwrightClient } from "../../../src/client";
import { StackFileSchema } from "../../../src/config";
import { driftReport, FleetStatus, observeFleet } from "../../../src/observe";
import { openStateStore } from "../../../src/state-backend/store";
import { startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { deploymentResource, failedVerification, writeCheckpoint } from "../../helpers/verifications";

/** Of the test seed: what acme-web's uat and prod run. */
const UAT_SHA = "8f3c2a1d9e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a";
const PROD_SHA = "3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f";

const acmeWeb = StackFileSchema.parse({
  stack: "acme-web",
  environments: {
    uat: { deployment: { ref_type: "branch", ref: "main" } },
    prod: { deployment: { ref_type: "sha", ref: "9".repeat(40) } },
  },
});

// What the last up recorded of its checks, read from a real state backend, beside the platform's answers.
describe("observing a fleet whose builds were verified", () => {
  let emulator: TestEmulator;
  let client: StackwrightClient;
  let dir: string;

  beforeAll(async () => {
    emulator = await startTestEmulator();
    client = createClient({ baseUrl: emulator.url, email: "ops@example.com", token: "demo-token" });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "sw-observe-verify-"));
    writeCheckpoint(dir, "dev.acme-web", [
      deploymentResource("acme-web", "uat", {
        ref_type: "branch",
        ref: "main",
        sha: UAT_SHA,
        id: "1",
        verification: failedVerification(UAT_SHA, "1"),
      }),
      // prod's pinned build failed its checks; the build that ran before it runs again.
      deploymentResource("acme-web", "prod", {
        sha: "9".repeat(40),
        id: "7",
        verification: failedVerification("9".repeat(40), "7", {
          result: "rolled_back",
          rolled_back_to: { deployment_id: "3", sha: PROD_SHA, result: "passed" },
        }),
      }),
    ]);
  });

  afterAll(async () => {
    await client?.close();
    await emulator?.close();
    if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("says verify failed and rolled back, with the check, the answer and both shas, in status and drift --json", async () => {
    const status = await observeFleet({
      target: "dev",
      project: "stackwright",
      store: openStateStore(`file://${path.join(dir, ".stackwright", "state")}`),
      client,
      stacks: [
        {
          apiStack: "acme-web",
          pulumiStack: "dev.acme-web",
          file: "stacks-config/acme-web.yaml",
          config: acmeWeb,
        },
      ],
      apiConcurrency: 2,
      now: new Date("2026-11-25T10:00:00Z"),
    });
    expect(FleetStatus.parse(status)).toEqual(status);
    const [uat, prod] = status.stacks[0]?.environments ?? [];
    expect(uat?.sync).toBe("verify failed");
    expect(uat?.reason).toContain('check 1 (/health): expected status 200; got 503 "Down for maintenance"');
    expect(uat?.verification?.answer?.status).toBe(503);
    expect(prod?.sync).toBe("rolled back");
    expect(prod?.reason).toContain("9999999 failed verification");
    expect(prod?.reason).toContain("rolled back to 3c4d5e6 (deployment 3, passed)");
    expect(status.counts).toMatchObject({ "verify failed": 1, "rolled back": 1 });

    const { report } = driftReport(status, new Map());
    expect(report.verifications.map((v) => [v.environment, v.result])).toEqual([
      ["uat", "failed"],
      ["prod", "passed"],
    ]);
  });
});
