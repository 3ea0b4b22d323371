import { describe, expect } from "vitest";
import { setFixture, stateResources, type ProvidersWorld } from "../helpers/providers-e2e";
import { fixtures } from "../helpers/fixtures";

const TYPES = ["Deployment", "EnvironmentLock", "Snapshot", "SnapshotRestore", "GitFetch", "RecordAction"];
const AUTH = `Basic ${Buffer.from("ops@example.com:demo-token").toString("base64")}`;

/** Refreshes, then previews: the operations an acceptance step expects to change nothing. */
async function refreshThenPreview(world: ProvidersWorld): Promise<Record<string, number>> {
  const refreshed = await world.refresh();
  expect(refreshed.summary.result).toBe("succeeded");
  const preview = await world.preview();
  return Object.fromEntries(
    Object.entries(preview.changeSummary).filter(([op, n]) => op !== "same" && (n ?? 0) > 0),
  ) as Record<string, number>;
}

async function status(world: ProvidersWorld, path: string): Promise<number> {
  return (await fetch(`${world.emulator.url}${path}`, { headers: { authorization: AUTH } })).status;
}

const test = fixtures({ providersWorld: { stack: "acceptance", options: { program: "hosted" } } });

// Terraform-style acceptance steps for every resource type, through the real engine: create,
// refresh, empty plan; update, refresh, empty plan; destroy, and the platform shows each object
// gone, or kept where deleting keeps history (deployments, restores, fetches, record actions).
describe("acceptance steps of every resource type", () => {
  let world: ProvidersWorld;
  const ids: Record<string, string> = {};

  test.beforeAll(async ({ providersWorld }) => {
    world = providersWorld;
    await setFixture(world.stack, { lock: "true", snapshot: "true", restore: "true", extras: "true" });
  }, 120_000);

  test("creates each, and a refresh then a preview plan no change", async () => {
    const up = await world.up();
    expect(up.summary.result).toBe("succeeded");
    for (const type of TYPES) {
      const [r] = stateResources(world.state(), type);
      expect(r?.id, type).toBeTruthy();
      ids[type] = String(r?.id);
    }
    expect(await refreshThenPreview(world)).toEqual({});
  }, 240_000);

  test("updates each, and a refresh then a preview plan no change", async () => {
    await setFixture(world.stack, {
      title: "Release 2026-11, retitled",
      lockMessage: "Audit",
      // A new mode takes a new snapshot (new notes alone would apply to the next one).
      snapshotMode: "all",
      snapshotNotes: "weekly",
      restoreTrigger: "again",
      extrasTrigger: "again",
    });
    const up = await world.up();
    expect(up.summary.result).toBe("succeeded");
    // Title and lock message change in place; the others are one-shot objects, made anew.
    expect(up.summary.resourceChanges).toMatchObject({ update: 2, replace: 4 });
    expect(await world.emulator.hooks.lock("acme-web", "prod")).toEqual({
      locked: true,
      lock_message: "Audit",
    });
    expect(await status(world, `/svc/project/acme-web/snapshots/${ids["Snapshot"]}`)).toBe(404);
    expect(await refreshThenPreview(world)).toEqual({});
    for (const type of TYPES) ids[type] = String(stateResources(world.state(), type)[0]?.id);
  }, 240_000);

  test("destroys each: gone from the platform, or kept as history where delete keeps it", async () => {
    const destroyed = await world.destroy();
    expect(destroyed.summary.result).toBe("succeeded");
    expect(await refreshThenPreview(world)).toMatchObject({ create: 7 });
    expect(stateResources(world.state(), "Deployment")).toEqual([]);
    // Gone: the lock and the snapshot.
    expect(await world.emulator.hooks.lock("acme-web", "prod")).toEqual({ locked: false, lock_message: "" });
    expect(await status(world, `/svc/project/acme-web/snapshots/${ids["Snapshot"]}`)).toBe(404);
    // Kept as history: the finished deployment, the restore and the fetch.
    expect(await status(world, `/svc/project/acme-web/environment/uat/deploys/${ids["Deployment"]}`)).toBe(
      200,
    );
    expect(await status(world, `/svc/project/acme-web/snapshots/transfer/${ids["SnapshotRestore"]}`)).toBe(
      200,
    );
    expect(await status(world, `/svc/project/acme-web/git/fetches/${ids["GitFetch"]}`)).toBe(200);
  }, 240_000);
});
