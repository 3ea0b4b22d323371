import { describe, expect, it } from "vitest";
import { GitFetchDocument, SnapshotDocument, SnapshotListDocument, TransferDocument } from "../../../src/api";
import { TEST_USERS, startTestEmulator } from "../../helpers/emulator";
import {
  type ApiResponse,
  apiCaller,
  errorTitle,
  eventually,
  useTestEmulator,
} from "../../helpers/emulator-http";

const emu = useTestEmulator();
const { call } = emu;

const STACK = "/svc/project/acme-web";

function transfer(res: ApiResponse) {
  return TransferDocument.parse(res.body).data;
}

async function finished(id: string) {
  return eventually(async () => {
    const t = transfer(await call("GET", `${STACK}/snapshots/transfer/${id}`));
    return t.attributes.status === "Finished" ? t : undefined;
  }, `transfer ${id} to finish`);
}

describe("snapshots", () => {
  it("creates a snapshot through a transfer that links the snapshot once finished", async () => {
    // Held before its first step, so the list is read while the snapshot is surely pending (at
    // `instant` speed the three steps take a few ms, less than one request on a loaded machine).
    await emu.hooks.stallNextTransfer("acme-web", "uat", 2_000);
    const res = await call("POST", `${STACK}/snapshots`, {
      body: { environment: "uat", mode: "db", notes: "before release" },
    });
    expect(res.status).toBe(202);
    const t = transfer(res);
    expect(t.attributes).toEqual({
      status: "n/a",
      direction: "create",
      mode: "db",
      include_resampled: false,
    });
    expect(t.relationships.snapshot.data).toBeNull();
    expect(t.links.self).toBe(`${emu.url}${STACK}/snapshots/transfer/${t.id}`);
    expect(typeof (res.body as { data: { id: unknown } }).data.id).toBe("number");
    const pending = SnapshotListDocument.parse((await call("GET", `${STACK}/snapshots`)).body).data[0];
    expect(pending?.attributes).toMatchObject({
      snapshot_status: "pending",
      size: "",
      can_download: "false",
    });
    expect(pending?.links.download_link).toBe("");
    const done = await finished(t.id);
    const snapId = done.relationships.snapshot.data?.id;
    expect(snapId).toBe(pending?.id);
    const snap = SnapshotDocument.parse((await call("GET", `${STACK}/snapshots/${snapId}`)).body).data;
    expect(snap.attributes).toMatchObject({
      snapshot_status: "complete",
      mode: "db",
      notes: "before release",
    });
    expect(Number(snap.attributes.size)).toBeGreaterThan(0);
  });

  it.each([
    [{ mode: "db" }, "Missing required field 'environment' in the request body"],
    [{ environment: "uat" }, "Missing required field 'mode' in the request body"],
    [{ environment: "uat", mode: "files" }, "Invalid field 'mode' in the request body"],
    [
      { environment: "nope", mode: "db" },
      "Invalid field 'environment': stack 'acme-web' has no environment 'nope'",
    ],
    [{ environment: "uat", mode: "db", include_resampled: "no" }, "Invalid field 'include_resampled'"],
  ])("refuses snapshot body %j naming the field", async (body, title) => {
    const res = await call("POST", `${STACK}/snapshots`, { body });
    expect(res.status).toBe(400);
    expect(errorTitle(res)).toContain(title);
  });

  it("allows one transfer per environment at a time", async () => {
    const slow = await startTestEmulator({ speed: "realistic" });
    try {
      const c = apiCaller(slow.url);
      expect(
        (await c("POST", `${STACK}/snapshots`, { body: { environment: "uat", mode: "db" } })).status,
      ).toBe(202);
      const second = await c("POST", `${STACK}/snapshots`, { body: { environment: "uat", mode: "all" } });
      expect(second.status).toBe(409);
      expect(errorTitle(second)).toContain("Another transfer is in progress on 'acme-web/uat'");
      const restore = await c("POST", `${STACK}/snapshots/12`, {
        body: { environment: "uat", mode: "assets" },
      });
      expect(restore.status).toBe(409);
      expect(
        (await c("POST", `${STACK}/snapshots`, { body: { environment: "prod", mode: "db" } })).status,
      ).toBe(202);
    } finally {
      await slow.close();
    }
  });

  it("refuses snapshots and restores on a locked environment with the lock message", async () => {
    await call("POST", `${STACK}/environment/uat/lock`, { body: { lock_message: "Data migration" } });
    const snap = await call("POST", `${STACK}/snapshots`, { body: { environment: "uat", mode: "db" } });
    expect(snap.status).toBe(409);
    expect(errorTitle(snap)).toBe(
      "Environment 'acme-web/uat' is locked, cannot take a snapshot: Data migration",
    );
    const restore = await call("POST", `${STACK}/snapshots/10`, { body: { environment: "uat", mode: "db" } });
    expect(restore.status).toBe(409);
    expect(errorTitle(restore)).toContain("Data migration");
  });

  it("restores into production after a backup snapshot by default", async () => {
    const res = await call("POST", `${STACK}/snapshots/10`, { body: { environment: "prod", mode: "db" } });
    expect(res.status).toBe(202);
    const t = transfer(res);
    expect(t.attributes).toEqual({ status: "n/a", direction: "restore", mode: "db", skip_build: false });
    expect(t.relationships.snapshot.data?.id).toBe("10");
    expect(t.relationships.environment.data.id).toBe("prod");
    await finished(t.id);
    const list = SnapshotListDocument.parse((await call("GET", `${STACK}/snapshots`)).body).data;
    const backup = SnapshotDocument.parse((await call("GET", `${STACK}/snapshots/${list[0]?.id}`)).body).data;
    expect(backup.attributes).toMatchObject({ is_backup: true, snapshot_status: "complete", mode: "db" });
    expect(backup.attributes.notes).toBe("Automatic backup before restoring snapshot 10");
  });

  it("makes no backup on UAT unless asked, and makes one when asked", async () => {
    const before = SnapshotListDocument.parse((await call("GET", `${STACK}/snapshots`)).body).data.length;
    await finished(
      transfer(await call("POST", `${STACK}/snapshots/10`, { body: { environment: "uat", mode: "db" } })).id,
    );
    expect(SnapshotListDocument.parse((await call("GET", `${STACK}/snapshots`)).body).data).toHaveLength(
      before,
    );
    const asked = await call("POST", `${STACK}/snapshots/10`, {
      body: { environment: "uat", mode: "db", backup_existing_data: true, skip_build: true },
    });
    expect(transfer(asked).attributes.skip_build).toBe(true);
    await finished(transfer(asked).id);
    expect(SnapshotListDocument.parse((await call("GET", `${STACK}/snapshots`)).body).data).toHaveLength(
      before + 1,
    );
  });

  it("refuses a restore whose mode the snapshot does not contain", async () => {
    const db = await call("POST", `${STACK}/snapshots/12`, { body: { environment: "uat", mode: "db" } });
    expect(db.status).toBe(400);
    expect(errorTitle(db)).toBe("The snapshot is missing the database.");
    const all = await call("POST", `${STACK}/snapshots/11`, { body: { environment: "uat", mode: "all" } });
    expect(errorTitle(all)).toBe("The snapshot is missing the assets.");
    const assets = await call("POST", `${STACK}/snapshots/11`, {
      body: { environment: "uat", mode: "assets" },
    });
    expect(errorTitle(assets)).toBe("The snapshot is missing the assets.");
  });

  it("keeps Team Members out of production restores and Deployers in", async () => {
    const member = await call("POST", `${STACK}/snapshots/10`, {
      body: { environment: "prod", mode: "db" },
      as: TEST_USERS.teamMember,
    });
    expect(member.status).toBe(403);
    expect(errorTitle(member)).toContain(
      "may not restore snapshots into production environment 'acme-web/prod'",
    );
    const uat = await call("POST", `${STACK}/snapshots/10`, {
      body: { environment: "uat", mode: "db" },
      as: TEST_USERS.teamMember,
    });
    expect(uat.status).toBe(202);
    const deployer = await call("POST", `${STACK}/snapshots`, {
      body: { environment: "prod", mode: "db" },
      as: TEST_USERS.deployer,
    });
    expect(deployer.status).toBe(202);
  });

  it("deletes a snapshot for good and answers 404 afterwards", async () => {
    const del = await call("DELETE", `${STACK}/snapshots/12`);
    expect(del.status).toBe(204);
    expect((await call("GET", `${STACK}/snapshots/12`)).status).toBe(404);
    expect((await call("DELETE", `${STACK}/snapshots/12`)).status).toBe(404);
  });

  it("answers 404 for snapshots and transfers of another stack", async () => {
    expect((await call("GET", `${STACK}/snapshots/999`)).status).toBe(404);
    expect((await call("GET", `${STACK}/snapshots/transfer/999`)).status).toBe(404);
  });
});

describe("git fetches", () => {
  it("queues a fetch with status n/a and completes it", async () => {
    const res = await call("POST", `${STACK}/git/fetches`);
    expect(res.status).toBe(202);
    const f = GitFetchDocument.parse(res.body).data;
    expect(f.attributes.status).toBe("n/a");
    expect(f.links.self).toBe(`${emu.url}${STACK}/git/fetches/${f.id}`);
    const done = await eventually(async () => {
      const now = GitFetchDocument.parse((await call("GET", `${STACK}/git/fetches/${f.id}`)).body).data;
      return now.attributes.status === "Complete" ? now : undefined;
    }, "fetch to complete");
    expect(done.id).toBe(f.id);
  });

  it("accepts an empty JSON object as the fetch body and refuses unknown fields", async () => {
    expect((await call("POST", `${STACK}/git/fetches`, { body: {} })).status).toBe(202);
    const bad = await call("POST", `${STACK}/git/fetches`, { body: { branch: "main" } });
    expect(bad.status).toBe(400);
    expect(errorTitle(bad)).toContain("Unknown field 'branch'");
  });
});
