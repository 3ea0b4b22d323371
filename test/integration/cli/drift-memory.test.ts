import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pathToFileURL } from "node:url";
import { keepDriftMemory, readDriftMemory } from "../../../src/cli/observation/drift-memory";
import { driftMemoryKey, openStateStore, type StateStore } from "../../../src/state-backend";
import { driftReport, type EnvironmentStatus, type FleetStatus } from "../../../src/observe";
import { countSync } from "../../../src/observe/model";
import { startS3Server, type TestS3Server } from "../../helpers/s3-server";

const SHA_A = "8f3c2a1d9e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a";
const SHA_B = "2b7e151628aed2a6abf7158809cf4f3c762e7160";

function fleet(drifted: boolean, at: string): FleetStatus {
  const env: EnvironmentStatus = {
    stack: "acme-web",
    environment: "uat",
    desired: { ref_type: "branch", ref: "main" },
    applied: { ref_type: "branch", ref: "main", sha: SHA_A, deployment_id: "1" },
    verification: null,
    live: { sha: drifted ? SHA_B : SHA_A, short_sha: "", deployment: null },
    sync: drifted ? "drifted" : "in sync",
    reason: null,
    drift: drifted ? { kind: "hand deployment", since: null, by: "dev@example.com" } : null,
    lock: null,
    window: null,
    newest: null,
    recent: [],
    failure_log: null,
  };
  const stacks = [
    {
      stack: "acme-web",
      pulumi_stack: "dev.acme-web",
      file: "stacks-config/acme-web.yaml",
      last_up: null,
      confirmed_at: null,
      error: null,
      environments: [env],
    },
  ];
  return {
    kind: "stackwright.status",
    version: 1,
    target: "dev",
    generated_at: at,
    counts: countSync(stacks),
    stacks,
  };
}

/** One drift check as the command makes it: read the record, report, keep the record. */
async function check(store: StateStore, drifted: boolean, at: string) {
  const before = await readDriftMemory(store, "stackwright", "dev.acme-web");
  const { report, memories } = driftReport(fleet(drifted, at), new Map([["acme-web", before]]));
  const next = memories.get("acme-web");
  if (next !== undefined) await keepDriftMemory(store, "stackwright", "dev.acme-web", before, next);
  return report.drift.map((d) => d.status);
}

// The drift memory through both kinds of state backend the engine uses.
describe.each(["file", "s3"] as const)("the drift memory in a %s backend", (kind) => {
  let store: StateStore;
  let s3: TestS3Server | undefined;
  let dir: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-drift-"));
    if (kind === "s3") {
      s3 = await startS3Server();
      Object.assign(process.env, s3.env);
      store = openStateStore(s3.backendUrl("team"));
    } else {
      store = openStateStore(pathToFileURL(dir).href);
    }
  }, 60_000);

  afterAll(async () => {
    await s3?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("makes three checks say new, still and resolved, and leaves no record for a clean stack", async () => {
    expect(await check(store, true, "2026-11-25T10:00:00.000Z")).toEqual(["new"]);
    expect(await store.read(driftMemoryKey("stackwright", "dev.acme-web"))).toContain('"hand deployment"');
    expect(await check(store, true, "2026-11-25T11:00:00.000Z")).toEqual(["still"]);
    expect((await readDriftMemory(store, "stackwright", "dev.acme-web"))?.reported[0]?.first_reported).toBe(
      "2026-11-25T10:00:00.000Z",
    );
    expect(await check(store, false, "2026-11-25T12:00:00.000Z")).toEqual(["resolved"]);
    expect(await store.read(driftMemoryKey("stackwright", "dev.acme-web"))).toBeUndefined();
    expect(await check(store, false, "2026-11-25T13:00:00.000Z")).toEqual([]);
  }, 60_000);
});
