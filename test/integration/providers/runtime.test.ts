import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { startTestEmulator, TEST_USERS, type TestEmulator } from "../../helpers/emulator";
import * as deployment from "../../../providers/behaviour/deployment";
import * as lock from "../../../providers/behaviour/environment-lock";
import * as snapshot from "../../../providers/behaviour/snapshot";
import * as restore from "../../../providers/behaviour/snapshot-restore";
import * as gitFetch from "../../../providers/behaviour/git-fetch";
import * as recordAction from "../../../providers/behaviour/record-action";
import { configure } from "../../../providers/behaviour/settings";
import { InitError } from "../../../providers/behaviour/errors";
import type { Props } from "../../../providers/behaviour/common";

const MAIN_SHA = "8f3c2a1d9e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a";
const RELEASE_SHA = "2b7e151628aed2a6abf7158809cf4f3c762e7160";
const PROVIDER = "exports.handler = () => ({})";

let emulator: TestEmulator;

function useCredentials(user: { email: string; token: string }): Promise<void> {
  const values: Record<string, string> = {
    "stackwright:apiUrl": emulator.url,
    "stackwright:email": user.email,
    "stackwright:apiToken": user.token,
  };
  return configure({ config: { get: (key) => values[key] } });
}

/** Runs the provider's check, then create, as the engine would. */
async function checkThenCreate(
  provider: {
    check(o: Props, n: Props): Promise<{ inputs: Props; failures: unknown[] }>;
    create(p: Props): Promise<{ id: string; outs: Props }>;
  },
  news: Props,
): Promise<{ id: string; outs: Props; inputs: Props }> {
  const checked = await provider.check({}, { ...news, __provider: PROVIDER });
  expect(checked.failures).toEqual([]);
  const created = await provider.create(checked.inputs);
  return { ...created, inputs: checked.inputs };
}

async function writes(): Promise<string[]> {
  return (await emulator.hooks.requests())
    .filter((r) => r.method !== "GET" && !r.path.startsWith("/_emulator"))
    .map((r) => `${r.method} ${r.path}`);
}

const uatMain: Props = {
  stack: "acme-web",
  environment: "uat",
  ref_type: "branch",
  ref: "release/2026-11",
  title: "Release 2026-11",
  marker_seed: "test/e2e/Deployment/uat",
  timeout_seconds: 20,
};

beforeAll(async () => {
  emulator = await startTestEmulator();
});
afterAll(async () => emulator?.close());
beforeEach(async () => {
  await emulator.hooks.reset();
  await emulator.hooks.clearRequests();
  await useCredentials(TEST_USERS.stackManager);
});

describe("Deployment runtime against the emulator", () => {
  it("deploys with bypass_and_start and waits for Completed", async () => {
    const { id, outs } = await checkThenCreate(deployment, uatMain);
    expect(outs["state"]).toBe("Completed");
    expect(outs["sha"]).toBe(RELEASE_SHA);
    expect(outs["deployment_id"]).toBe(id);
    expect(String(outs["marker"])).toMatch(/^sw-[0-9a-f]{20}$/);
    expect(await writes()).toEqual(["POST /svc/project/acme-web/environment/uat/deploys"]);
  });

  it("deploys a package, showing the platform's notes, and records the sha it was built with", async () => {
    const lines: string[] = [];
    const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    let outs: Props;
    try {
      ({ outs } = await checkThenCreate(deployment, {
        ...uatMain,
        ref_type: "package",
        ref: "build-7@4.12.0",
        marker_seed: "test/e2e/Deployment/package",
      }));
    } finally {
      spy.mockRestore();
    }
    expect(outs["state"]).toBe("Completed");
    expect(String(outs["sha"])).toMatch(/^[0-9a-f]{40}$/);
    expect(lines.join("")).toContain(
      "the platform says: Package build-7@4.12.0 is built before it is deployed",
    );
  });

  it("records a package deployment not built yet with a null sha, which is never drift", async () => {
    const { outs } = await checkThenCreate(deployment, {
      ...uatMain,
      ref_type: "package",
      ref: "build-8",
      approval: "request",
      marker_seed: "test/e2e/Deployment/package-requested",
    });
    expect(outs["state"]).toBe("Submitted");
    expect(outs["sha"]).toBeNull();
    expect(deployment.hasDrift({ ...outs, state: "Completed" }, { observed_sha: MAIN_SHA })).toBe(false);
  });

  it("creates an Approved deployment with bypass and then starts it", async () => {
    const { outs } = await checkThenCreate(deployment, { ...uatMain, approval: "bypass" });
    expect(outs["state"]).toBe("Completed");
    expect(await writes()).toEqual([
      "POST /svc/project/acme-web/environment/uat/deploys",
      "POST /svc/project/acme-web/environment/uat/deploys/start",
    ]);
  });

  it("records a requested deployment as Submitted and starts it once a person approved it", async () => {
    const { id, outs, inputs } = await checkThenCreate(deployment, { ...uatMain, approval: "request" });
    expect(outs["state"]).toBe("Submitted");
    expect((await deployment.diff(id, outs, inputs)).changes).toBe(false);
    await emulator.hooks.approve("acme-web", "uat", id);
    const refreshed = await deployment.read(id, { ...outs, __provider: PROVIDER });
    expect(refreshed.props["state"]).toBe("Approved");
    const plan = await deployment.diff(id, refreshed.props, inputs);
    expect(plan).toMatchObject({ changes: true, replaces: [] });
    const updated = await deployment.update(id, refreshed.props, inputs);
    expect(updated.outs["state"]).toBe("Completed");
  });

  it("fetches the repository first when fetch_first is set", async () => {
    const { outs } = await checkThenCreate(deployment, { ...uatMain, fetch_first: true });
    expect(outs["state"]).toBe("Completed");
    expect(await writes()).toEqual([
      "POST /svc/project/acme-web/git/fetches",
      "POST /svc/project/acme-web/environment/uat/deploys",
    ]);
  });

  it("adopts its own deployment on a rerun instead of creating a second one", async () => {
    const first = await checkThenCreate(deployment, uatMain);
    const second = await checkThenCreate(deployment, uatMain);
    expect(second.id).toBe(first.id);
    expect((await writes()).filter((w) => w.endsWith("/deploys"))).toHaveLength(1);
  });

  it("fails a failed deployment with its link and title and still returns its id", async () => {
    await emulator.hooks.nextOutcome("acme-web", "uat", "fail");
    const checked = await deployment.check({}, { ...uatMain, __provider: PROVIDER });
    const error = await deployment.create(checked.inputs).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InitError);
    const init = error as InitError;
    expect(init.message).toContain("Release 2026-11");
    expect(init.message).toContain("/svc/project/acme-web/environment/uat/deploys/");
    expect(init.message).toContain("Failed");
    expect(init.id).toMatch(/^\d+$/);
    expect(init.properties["state"]).toBe("Failed");
    expect(init.properties["__provider"]).toBe(PROVIDER);
    // The next run plans a fresh deployment.
    expect((await deployment.diff(init.id, init.properties, checked.inputs)).replaces).toEqual(["state"]);
  });

  it("reports a timeout with the recorded state and continues waiting on the next run", async () => {
    await emulator.hooks.fault({
      method: "GET",
      path: "/svc/project/acme-web/environment/uat/deploys/*",
      kind: "latency",
      latency_ms: 3000,
      count: 1,
    });
    const checked = await deployment.check({}, { ...uatMain, timeout_seconds: 1, __provider: PROVIDER });
    const error = (await deployment.create(checked.inputs).catch((e: unknown) => e)) as InitError;
    expect(error).toBeInstanceOf(InitError);
    expect(error.message).toContain("did not finish within 1 s");
    const resumed = await deployment.update(error.id, error.properties, {
      ...checked.inputs,
      timeout_seconds: 20,
    });
    expect(resumed.outs["state"]).toBe("Completed");
  });

  it("refuses a production deployment to a Team Member with a clear message", async () => {
    await useCredentials(TEST_USERS.teamMember);
    const checked = await deployment.check({}, { ...uatMain, environment: "prod", __provider: PROVIDER });
    await expect(deployment.create(checked.inputs)).rejects.toThrow(
      /Deployment on acme-web\/prod could not be created: .*STACKWRIGHT_PERMISSION/,
    );
  });

  it("refuses to deploy to a locked environment and names the lock", async () => {
    const l = await checkThenCreate(lock, {
      stack: "acme-web",
      environment: "uat",
      message: "Change freeze",
    });
    expect(l.outs["locked"]).toBe(true);
    await expect(checkThenCreate(deployment, uatMain)).rejects.toThrow(/Change freeze/);
    await lock.remove(l.id, l.outs);
    const { outs } = await checkThenCreate(deployment, uatMain);
    expect(outs["state"]).toBe("Completed");
  });

  it("invalidates a Submitted deployment on delete and keeps a finished one", async () => {
    const pending = await checkThenCreate(deployment, { ...uatMain, approval: "request" });
    await deployment.remove(pending.id, pending.outs);
    const gone = await deployment.read(pending.id, pending.outs);
    expect(gone.props["state"]).toBe("Invalid");
    await emulator.hooks.clearRequests();
    const done = await checkThenCreate(deployment, { ...uatMain, trigger: "again" });
    await emulator.hooks.clearRequests();
    await deployment.remove(done.id, done.outs);
    expect(await writes()).toEqual([]);
    expect((await deployment.read(done.id, done.outs)).props["state"]).toBe("Completed");
  });

  it("adopts an existing deployment by id", async () => {
    const hand = (await emulator.hooks.handDeploy("acme-web", "uat", MAIN_SHA)) as { data: { id: string } };
    await emulator.hooks.clearRequests();
    const { id, outs } = await checkThenCreate(deployment, { ...uatMain, adopt: hand.data.id });
    expect(id).toBe(String(hand.data.id));
    expect(outs["sha"]).toBe(MAIN_SHA);
    expect(await writes()).toEqual([]);
  });

  it("forgets a deployment that no longer exists on refresh", async () => {
    const result = await deployment.read("99999", { ...uatMain });
    expect(result.id).toBe("");
  });
});

describe("other resource runtimes against the emulator", () => {
  it("locks, re-locks with a new message and unlocks an environment", async () => {
    const l = await checkThenCreate(lock, { stack: "acme-web", environment: "uat", message: "one" });
    const u = await lock.update(l.id, l.outs, { ...l.inputs, message: "two" });
    expect(u.outs["lock_message"]).toBe("two");
    await lock.remove(l.id, u.outs);
    expect(await writes()).toEqual([
      "POST /svc/project/acme-web/environment/uat/lock",
      "POST /svc/project/acme-web/environment/uat/lock",
      "DELETE /svc/project/acme-web/environment/uat/lock",
    ]);
  });

  it("takes a snapshot, waits for it, adopts it on a rerun and deletes it", async () => {
    const args = {
      stack: "acme-web",
      environment: "uat",
      mode: "db",
      notes: "nightly",
      marker_seed: "t/Snapshot/n",
    };
    const s = await checkThenCreate(snapshot, args);
    expect(s.outs["snapshot_status"]).toBe("complete");
    const again = await checkThenCreate(snapshot, args);
    expect(again.id).toBe(s.id);
    await snapshot.remove(s.id, s.outs);
    expect((await snapshot.read(s.id, s.outs)).id).toBe("");
    expect((await writes()).filter((w) => w.startsWith("POST"))).toHaveLength(1);
  });

  /** A database snapshot of acme-web/uat, taken and waited for. */
  const dbSnapshotOfUat = (markerSeed: string) =>
    checkThenCreate(snapshot, { stack: "acme-web", environment: "uat", mode: "db", marker_seed: markerSeed });

  it("restores a snapshot into the confirmed environment and waits", async () => {
    const s = await dbSnapshotOfUat("t/Snapshot/r");
    const r = await checkThenCreate(restore, {
      stack: "acme-web",
      environment: "uat",
      snapshot_id: s.id,
      mode: "db",
      confirm: "uat",
    });
    expect(r.outs["status"]).toBe("Finished");
  });

  // Found by the provider fault fuzz (test/fuzz/provider-faults.test.ts): the next run restored
  // a second time (or failed on the first one still running).
  it("records a restore whose answer was lost as unknown, so no later run restores again", async () => {
    const s = await dbSnapshotOfUat("t/Snapshot/lost");
    await emulator.hooks.fault({
      method: "POST",
      path: "/svc/project/acme-web/snapshots/*",
      kind: "drop",
      phase: "after",
      count: 1,
    });
    const checked = await restore.check(
      {},
      {
        stack: "acme-web",
        environment: "uat",
        snapshot_id: s.id,
        mode: "db",
        confirm: "uat",
        __provider: PROVIDER,
      },
    );
    const error = (await restore.create(checked.inputs).catch((e: unknown) => e)) as InitError;
    expect(error).toBeInstanceOf(InitError);
    expect(error.message).toContain("will not run it again by itself");
    expect(error.properties["status"]).toBe("unknown");
    await emulator.hooks.clearRequests();
    // The engine updates a resource recorded with an init error; refresh reads it: no request.
    await restore.update(error.id, error.properties, checked.inputs);
    expect((await restore.read(error.id, error.properties)).id).toBe(error.id);
    expect(await writes()).toEqual([]);
    expect(
      (await emulator.hooks.transfers("acme-web")).filter((t) => t.direction === "restore"),
    ).toHaveLength(1);
  });

  it("fetches the repository and waits for Complete", async () => {
    const f = await checkThenCreate(gitFetch, { stack: "acme-web" });
    expect(f.outs["status"]).toBe("Complete");
  });

  it("runs a record method", async () => {
    const r = await checkThenCreate(recordAction, { class_name: "Page", record_id: 12, method: "publish" });
    expect(r.id).toContain("Page/12/publish");
    expect(await writes()).toEqual(["POST /api/v1/Page/12/publish"]);
  });
});
