import { describe, expect } from "vitest";
import { setFixture, stateResources, type ProvidersWorld } from "../helpers/providers-e2e";
import { fixtures } from "../helpers/fixtures";

const RELEASE_SHA = "2b7e151628aed2a6abf7158809cf4f3c762e7160";
const HAND_SHA = "0123456789abcdef0123456789abcdef01234567";

const test = fixtures({ providersWorld: { stack: "providers", options: { program: "hosted" } } });

// The real CLI and the dynamic-provider plugin against the emulator; the program is hosted in
// this process (providers-crash.test.ts runs the same program in the language host's process).
describe("providers through the Pulumi engine", () => {
  let world: ProvidersWorld;
  let snapshotId: unknown;

  test.beforeAll(async ({ providersWorld }) => {
    world = providersWorld;
    await setFixture(world.stack, {
      lock: "true",
      snapshot: "true",
      retain: "true",
      restore: "true",
      extras: "true",
    });
  }, 120_000);

  test("previews every planned create without a single write request", async () => {
    await world.emulator.hooks.clearRequests();
    const preview = await world.preview();
    expect(preview.changeSummary).toEqual({ create: 7 });
    expect(await world.writes()).toEqual([]);
  }, 120_000);

  test("performs them on up", async () => {
    await world.emulator.hooks.clearRequests();
    const up = await world.up();
    expect(up.summary.result).toBe("succeeded");
    expect(up.summary.resourceChanges).toEqual({ create: 7 });
    expect(up.outputs["state"]?.value).toBe("Completed");
    expect(up.outputs["sha"]?.value).toBe(RELEASE_SHA);
    expect(up.outputs["whoami"]?.value).toBe("ops@example.com");
    expect(up.outputs["restoreStatus"]?.value).toBe("Finished");
    expect(up.outputs["configuration"]?.secret).toBe(true);
    snapshotId = up.outputs["snapshotId"]?.value;
    expect(String(snapshotId)).toMatch(/^\d+$/);
    expect((await world.writes()).sort()).toEqual(
      [
        "POST /svc/project/acme-web/environment/uat/deploys",
        "POST /svc/project/acme-web/environment/prod/lock",
        "POST /svc/project/acme-web/snapshots",
        `POST /svc/project/acme-web/snapshots/${String(snapshotId)}`,
        "POST /svc/project/acme-web/git/fetches",
        "POST /api/v1/Page/12/publish",
      ].sort(),
    );
  }, 120_000);

  test("keeps the token out of the state and the serialized providers small", () => {
    const state = world.state();
    expect(state).not.toContain("demo-token");
    // Configuration values (a secret Output) are encrypted, names and values alike.
    expect(state).not.toContain("SS_LOG_LEVEL");
    expect(state).not.toContain(Buffer.from("ops@example.com:demo-token").toString("base64"));
    for (const type of [
      "Deployment",
      "EnvironmentLock",
      "Snapshot",
      "SnapshotRestore",
      "GitFetch",
      "RecordAction",
    ]) {
      const [resource] = stateResources(state, type);
      const provider = String(resource?.inputs["__provider"]);
      expect(provider).toContain("dist/providers/provider-process/index.js");
      // A path relative to the program directory: the state works in any checkout.
      expect(provider).not.toContain(world.project.dir);
      // Nothing of the client, zod or undici travels by value.
      expect(provider).not.toMatch(/createClient|undici|zod|Credentials|demo-token/);
      expect(Buffer.byteLength(provider)).toBeLessThan(2600);
    }
  });

  test("makes a second up a no-op with zero write requests", async () => {
    await world.emulator.hooks.clearRequests();
    const up = await world.up();
    expect(up.summary.resourceChanges).toEqual({ same: 7 });
    expect(await world.writes()).toEqual([]);
  }, 120_000);

  test("updates a new title in place without redeploying", async () => {
    await setFixture(world.stack, { title: "Release 2026-11 (renamed)" });
    await world.emulator.hooks.clearRequests();
    const up = await world.up();
    expect(up.summary.resourceChanges).toEqual({ same: 6, update: 1 });
    expect(await world.writes()).toEqual([]);
  }, 120_000);

  test("warns about a hand deployment in preview without --refresh", async () => {
    await world.emulator.hooks.handDeploy("acme-web", "uat", HAND_SHA);
    const preview = await world.preview();
    expect(preview.changeSummary).toEqual({ same: 7 });
    expect(preview.stdout).toContain(`Drift on acme-web/uat`);
    expect(preview.stdout).toContain(RELEASE_SHA);
    expect(preview.stdout).toContain(HAND_SHA);
    // Which deployment: its id and title, who made it and when (a sha deployment names no ref).
    expect(preview.stdout).toMatch(
      /\(a deployment made by hand: deployment \d+ "Deployed by hand in the dashboard", by ops@example\.com, at \d{4}-\d\d-\d\d \d\d:\d\d UTC\)\./,
    );
  }, 120_000);

  test("plans and performs a redeploy of a hand deployment with self_heal", async () => {
    await setFixture(world.stack, { selfHeal: "true" });
    const preview = await world.preview();
    expect(preview.changeSummary).toMatchObject({ replace: 1 });
    await world.emulator.hooks.clearRequests();
    const up = await world.up();
    expect(up.summary.resourceChanges).toMatchObject({ replace: 1 });
    expect(up.outputs["sha"]?.value).toBe(RELEASE_SHA);
    expect(await world.writes()).toEqual(["POST /svc/project/acme-web/environment/uat/deploys"]);
    const again = await world.preview();
    expect(again.changeSummary).toEqual({ same: 7 });
  }, 120_000);

  test("refuses a restore whose confirm does not name the target environment, in preview", async () => {
    await setFixture(world.stack, { confirm: "prod" });
    const message = await world.preview().then(
      () => "",
      (e: unknown) => String(e),
    );
    expect(message).toContain("[confirm] must equal the target environment's name 'uat'");
    await world.stack.removeConfig("fixture:confirm");
  }, 120_000);

  test("keeps the deployment history on destroy", async () => {
    const before = stateResources(world.state(), "Deployment")[0]?.id;
    await world.emulator.hooks.clearRequests();
    const destroy = await world.destroy();
    expect(destroy.summary.result).toBe("succeeded");
    // The lock goes; the snapshot is retained (retainOnDelete); deployments, fetches and record
    // actions are history and stay.
    expect(await world.writes()).toEqual(["DELETE /svc/project/acme-web/environment/prod/lock"]);
    const res = await fetch(`${world.emulator.url}/svc/project/acme-web/environment/uat/deploys/${before}`, {
      headers: { authorization: `Basic ${Buffer.from("ops@example.com:demo-token").toString("base64")}` },
    });
    expect(res.status).toBe(200);
    const snapshot = await fetch(
      `${world.emulator.url}/svc/project/acme-web/snapshots/${String(snapshotId)}`,
      {
        headers: { authorization: `Basic ${Buffer.from("ops@example.com:demo-token").toString("base64")}` },
      },
    );
    expect(snapshot.status).toBe(200);
  }, 120_000);
});
