/** Every client method against the emulator over real HTTP, one happy path each. */
import { describe, expect, it } from "vitest";
import { NotFoundError } from "../../../src/client";
import { STACK, calls, capture, failure, newMarker, useClientWorld } from "../../helpers/client";

const world = useClientWorld();

describe("info", () => {
  it("whoami names the caller", async () => {
    expect((await world.client.info.whoami()).whoami).toBeTruthy();
    expect(await calls(world.hooks)).toEqual(["GET /svc/meta"]);
  });

  it("manifestReleases lists the releases", async () => {
    expect((await world.client.info.manifestReleases()).map((r) => r.attributes.sha)).toEqual([
      "2026.11.1",
      "2026.11.2",
    ]);
  });
});

describe("stacks", () => {
  it("list returns only stacks the caller may view", async () => {
    expect((await world.client.stacks.list()).map((s) => s.id)).toEqual([STACK]);
  });

  it("get returns the stack with its environments, id as a string", async () => {
    const stack = await world.client.stacks.get(STACK);
    expect(typeof stack.id).toBe("string");
    expect(stack.relationships?.environments?.data.map((e) => e.id).sort()).toEqual(["prod", "uat"]);
  });

  it("team lists the members with their roles", async () => {
    const team = await world.client.stacks.team(STACK);
    expect(team.map((m) => m.attributes.role)).toContain("Stack Manager");
  });
});

describe("environments", () => {
  it("get returns the environment", async () => {
    expect((await world.client.environments.get(STACK, "uat")).attributes.name).toBe("uat");
  });

  it("modules returns all modules, or only the filtered ones", async () => {
    expect(await world.client.environments.modules(STACK, "uat")).toHaveLength(2);
    const only = await world.client.environments.modules(STACK, "uat", { filters: ["silverstripe/cms"] });
    expect(only.map((m) => m.attributes.name)).toEqual(["silverstripe/cms"]);
  });

  it("domains, configuration and whitelist read the environment's settings", async () => {
    expect((await world.client.environments.domains(STACK, "prod")).map((d) => d.id).sort()).toEqual([
      "acme.example.com",
      "www.acme.example.com",
    ]);
    expect(
      (await world.client.environments.configuration(STACK, "uat"))[0]?.attributes.configuration,
    ).toMatchObject({ APP_ENV: "uat" });
    expect((await world.client.environments.whitelist(STACK, "uat")).attributes.enabled).toBe(true);
  });
});

describe("deployments", () => {
  it("create with bypass_and_start queues at once and get reads it back", async () => {
    const created = await world.client.deployments.create(STACK, "uat", {
      ref_type: "branch",
      ref: "main",
      bypass_and_start: true,
      title: "t1",
    });
    expect(created.attributes.state).toBe("Queued");
    expect(created.attributes.changes).toBeDefined();
    const read = await world.client.deployments.get(STACK, "uat", created.id);
    expect(read.id).toBe(created.id);
  });

  it("list applies the filters of endpoint 8", async () => {
    await world.client.deployments.create(STACK, "uat", {
      ref_type: "branch",
      ref: "main",
      bypass: true,
      title: "filtered",
    });
    const approved = await world.client.deployments.list(STACK, "uat", { state: "Approved" });
    expect(approved.map((d) => d.attributes.title)).toEqual(["filtered"]);
    expect((await world.hooks.requests()).at(-1)?.path).toContain("state=Approved");
  });

  it("start queues an approved deployment", async () => {
    const d = await world.client.deployments.create(STACK, "uat", {
      ref_type: "tag",
      ref: "v1.4.0",
      bypass: true,
    });
    expect(d.attributes.state).toBe("Approved");
    expect((await world.client.deployments.start(STACK, "uat", d.id)).attributes.state).toBe("Queued");
  });

  it("invalidate retires a submitted deployment", async () => {
    const d = await world.client.deployments.create(STACK, "prod", { ref_type: "promote_from_uat" });
    expect(["New", "Submitted"]).toContain(d.attributes.state);
    expect((await world.client.deployments.invalidate(STACK, "prod", d.id)).attributes.state).toBe("Invalid");
  });

  it("delete removes a deployment that never started", async () => {
    const d = await world.client.deployments.create(STACK, "prod", { ref_type: "promote_from_uat" });
    await world.client.deployments.delete(STACK, "prod", d.id);
    const after = await world.client.deployments.get(STACK, "prod", d.id).catch((e: unknown) => capture(e));
    if (NotFoundError.isInstance(after)) return;
    expect((after as { attributes: { state: string } }).attributes.state).toBe("Deleted");
  });

  it("findByMarker finds the deployment whose title carries the marker", async () => {
    const marker = newMarker();
    const d = await world.client.deployments.create(
      STACK,
      "uat",
      { ref_type: "branch", ref: "main", title: `deploy ${marker}` },
      { marker },
    );
    expect((await world.client.deployments.findByMarker(STACK, "uat", marker))?.id).toBe(d.id);
    expect(await world.client.deployments.findByMarker(STACK, "uat", newMarker())).toBeUndefined();
  });
});

describe("snapshots", () => {
  it("list and get read the seeded snapshots, get with notes", async () => {
    const list = await world.client.snapshots.list(STACK);
    expect(list.length).toBeGreaterThanOrEqual(3);
    const first = list[0];
    if (first === undefined) throw new Error("no snapshot");
    const full = await world.client.snapshots.get(STACK, first.id);
    expect(full.id).toBe(first.id);
    expect(full.attributes).toHaveProperty("notes");
  });

  it("create returns a transfer, transfer reads it, and findByMarker finds the snapshot", async () => {
    const marker = newMarker();
    const created = await world.client.snapshots.create(
      STACK,
      { environment: "uat", mode: "db", notes: `nightly ${marker}` },
      { marker },
    );
    if (created.kind !== "transfer") throw new Error("expected a transfer");
    expect(created.transfer.attributes.direction).toBe("create");
    const finished = await world.client.waitForTransfer(STACK, created.transfer.id);
    expect((await world.client.snapshots.transfer(STACK, finished.id)).attributes.status).toBe("Finished");
    const found = await world.client.snapshots.findByMarker(STACK, marker, { environment: "uat" });
    expect(found?.id).toBe(finished.relationships?.snapshot?.data?.id);
  });

  it("restore starts a restore transfer and delete removes a snapshot", async () => {
    const list = await world.client.snapshots.list(STACK);
    const db = list.find((s) => s.attributes.mode === "db");
    if (db === undefined) throw new Error("no db snapshot");
    const transfer = await world.client.snapshots.restore(STACK, db.id, { environment: "uat", mode: "db" });
    expect(transfer.attributes.direction).toBe("restore");
    await world.client.waitForTransfer(STACK, transfer.id);
    await world.client.snapshots.delete(STACK, db.id);
    expect(NotFoundError.isInstance(await failure(world.client.snapshots.get(STACK, db.id)))).toBe(true);
  });
});

describe("fetches", () => {
  it("create queues a fetch and get reads it", async () => {
    const queued = await world.client.fetches.create(STACK);
    expect(typeof queued.id).toBe("string");
    expect((await world.client.fetches.get(STACK, queued.id)).id).toBe(queued.id);
  });
});

describe("locks", () => {
  it("lock stores the message and unlock removes it", async () => {
    const lock = await world.client.locks.lock(STACK, "uat", "freeze");
    expect(lock.attributes).toEqual({ locked: true, lock_message: "freeze" });
    await world.client.locks.unlock(STACK, "uat");
    expect(await calls(world.hooks)).toEqual([
      "POST /svc/project/acme-web/environment/uat/lock",
      "DELETE /svc/project/acme-web/environment/uat/lock",
    ]);
  });
});

describe("records", () => {
  it("get reads a record with api_access", async () => {
    const record = await world.client.records.get("Page", 12);
    expect(record).toMatchObject({ ID: "12", ClassName: "Page", Title: "Home" });
  });

  it("callMethod runs a method and returns the record afterwards", async () => {
    const result = await world.client.records.callMethod("Page", 12, "publish");
    expect(result.record).toMatchObject({ IsPublished: true });
  });

  it("the routes the platform does not implement answer NotFoundError naming the action", async () => {
    const attempts = [
      world.client.records.related("Page", 12, "Children"),
      world.client.records.search("Page", { Title: "Home" }),
      world.client.records.update("Page", 12, { Title: "x" }),
      world.client.records.replaceRelation("Page", 12, "Children", [1]),
      world.client.records.appendRelation("Page", 12, "Children", [1]),
      world.client.records.delete("Page", 12),
      world.client.records.unlink("Page", 12, "Children", 3),
    ];
    for (const attempt of attempts) {
      const error = await failure(attempt);
      expect(NotFoundError.isInstance(error)).toBe(true);
      expect((error as NotFoundError).titles[0]).toMatch(/^Action '.+' isn't available on class Page\.$/);
    }
  });
});
