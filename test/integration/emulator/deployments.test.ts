import { describe, expect, it } from "vitest";
import {
  DeploymentDocument,
  DeploymentListDocument,
  EnvironmentDocument,
  EnvironmentLockDocument,
} from "../../../src/api";
import { TEST_USERS, startTestEmulator } from "../../helpers/emulator";
import {
  type ApiResponse,
  type Credentials,
  apiCaller,
  errorTitle,
  eventually,
  useTestEmulator,
} from "../../helpers/emulator-http";

const emu = useTestEmulator();
const { call } = emu;

const UAT = "/svc/project/acme-web/environment/uat";
const PROD = "/svc/project/acme-web/environment/prod";
const MAIN_SHA = "8f3c2a1d9e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a";
const RELEASE_SHA = "2b7e151628aed2a6abf7158809cf4f3c762e7160";

function dep(res: ApiResponse) {
  return DeploymentDocument.parse(res.body).data;
}

async function create(env: string, body: Record<string, unknown>, as: Credentials = TEST_USERS.stackManager) {
  return call("POST", `${env}/deploys`, { body, as });
}

async function waitForState(env: string, id: string, states: string[]) {
  return eventually(
    async () => {
      const d = dep(await call("GET", `${env}/deploys/${id}`));
      return states.includes(d.attributes.state) ? d : undefined;
    },
    `deployment ${id} to reach ${states.join("/")}`,
  );
}

describe("creating deployments", () => {
  it("queues at once with bypass_and_start, shows changes, then completes and becomes the current build", async () => {
    const res = await create(UAT, {
      ref_type: "branch",
      ref: "release/2026-11",
      bypass_and_start: true,
      title: "Nov",
    });
    expect(res.status).toBe(201);
    const d = dep(res);
    expect(d.attributes.state).toBe("Queued");
    expect(d.attributes.is_current_build).toBe(true);
    expect(d.attributes.changes).toEqual({ "Code version": { from: "8f3c2a1", to: "2b7e151" } });
    expect(d.attributes.sha).toBe(RELEASE_SHA);
    expect(d.attributes.short_sha).toBe("2b7e151");
    expect(d.attributes.id).toBe(d.id);
    expect(d.attributes.deployer).toEqual({
      id: 1,
      email: "ops@example.com",
      role: "Stack Manager",
      name: "Olivia Ops",
    });
    expect(d.links.self).toBe(`${emu.url}${UAT}/deploys/${d.id}`);
    expect(typeof (res.body as { data: { id: unknown } }).data.id).toBe("string");
    const done = await waitForState(UAT, d.id, ["Completed"]);
    expect(done.attributes.is_current_build).toBe(true);
    expect(done.attributes.changes).toBeUndefined();
    const env = EnvironmentDocument.parse((await call("GET", UAT)).body);
    expect(env.data.attributes.build_sha).toBe(RELEASE_SHA);
    const list = DeploymentListDocument.parse((await call("GET", `${UAT}/deploys`)).body);
    const previous = list.data.find((x) => x.id !== d.id);
    expect(previous?.attributes.state).toBe("Completed");
    expect(previous?.attributes.is_current_build).toBe(false);
    expect(list.data[0]?.relationships?.environment.data.id).toBe("uat");
    expect(list.data[0]?.relationships?.stack.data.id).toBe("acme-web");
  });

  it("creates Approved with bypass and Submitted without, and start queues an approved one", async () => {
    const approved = dep(await create(UAT, { ref_type: "sha", ref: RELEASE_SHA, bypass: true }));
    expect(approved.attributes.state).toBe("Approved");
    expect(approved.attributes.date_approved_unix).toBeGreaterThan(0);
    const submitted = dep(await create(UAT, { ref_type: "tag", ref: "v1.4.0" }));
    expect(submitted.attributes.state).toBe("Submitted");
    expect(submitted.attributes.date_approved_unix).toBe(0);
    const notApproved = await call("POST", `${UAT}/deploys/start`, { body: { id: Number(submitted.id) } });
    expect(notApproved.status).toBe(403);
    expect(errorTitle(notApproved)).toMatch(/^This deployment has not been approved/);
    const started = await call("POST", `${UAT}/deploys/start`, { body: { id: Number(approved.id) } });
    expect(started.status).toBe(200);
    expect(dep(started).attributes.state).toBe("Queued");
    expect(dep(started).attributes.changes).toBeDefined();
    await waitForState(UAT, approved.id, ["Completed"]);
  });

  it("gives deployment ids that are numeric and unique across environments and stacks", async () => {
    const a = dep(await create(UAT, { ref_type: "branch", ref: "main", bypass: true }));
    const b = dep(await create(PROD, { ref_type: "promote_from_uat", bypass: true }));
    const c = dep(
      await create(
        "/svc/project/acme-intranet/environment/test",
        { ref_type: "redeploy" },
        TEST_USERS.releaseManager,
      ),
    );
    const ids = [a.id, b.id, c.id];
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) expect(id).toMatch(/^\d+$/);
    expect(b.attributes.sha).toBe(MAIN_SHA);
  });

  it("answers 1.0 clients with numeric deployment ids", async () => {
    const res = await call("POST", `${UAT}/deploys`, {
      body: { ref_type: "redeploy", bypass: true },
      headers: { "x-api-version": "1.0" },
    });
    const raw = (res.body as { data: { id: unknown; attributes: { id: unknown } } }).data;
    expect(typeof raw.id).toBe("number");
    expect(typeof raw.attributes.id).toBe("number");
    const attributes = (res.body as { data: { attributes: Record<string, unknown> } }).data.attributes;
    expect(attributes["date_created_ago"]).toBe("just now");
    expect(attributes["date_created_nice"]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    const v2 = await call("GET", `${UAT}/deploys/${String(raw.id)}`);
    expect((v2.body as { data: { attributes: object } }).data.attributes).not.toHaveProperty(
      "date_created_ago",
    );
  });

  it.each([
    [{}, "Missing required field 'ref_type' in the request body"],
    [{ ref_type: "commit", ref: "x" }, "Invalid field 'ref_type' in the request body"],
    [{ ref_type: "promote_from_uat", ref: "main" }, "Invalid field 'ref' in the request body: must be empty"],
    [{ ref_type: "redeploy", ref: "main" }, "Invalid field 'ref' in the request body: must be empty"],
    [{ ref_type: "branch" }, "Invalid field 'ref' in the request body: is required"],
    [{ ref_type: "branch", ref: "main", bypass: "yes" }, "Invalid field 'bypass' in the request body"],
    [
      { ref_type: "branch", ref: "main", colour: "red" },
      "Unknown field 'colour' in the request body (allowed: ref_type",
    ],
    [{ ref_type: "sha", ref: "not-a-sha" }, "Invalid field 'ref': 'not-a-sha' is not a commit hash"],
  ])("refuses %j with a 400 naming the field", async (body, title) => {
    const res = await create(UAT, body);
    expect(res.status).toBe(400);
    expect(errorTitle(res)).toContain(title);
  });

  it("refuses malformed JSON, a non-object body and a foreign media type", async () => {
    const malformed = await call("POST", `${UAT}/deploys`, { rawBody: "{nope" });
    expect(malformed.status).toBe(400);
    expect(errorTitle(malformed)).toMatch(/^Malformed JSON in the request body/);
    const list = await call("POST", `${UAT}/deploys`, { body: [1] });
    expect(errorTitle(list)).toBe("The request body must be a JSON object");
    const text = await call("POST", `${UAT}/deploys`, {
      rawBody: "x",
      headers: { "content-type": "text/plain" },
    });
    expect(text.status).toBe(415);
    expect(errorTitle(text)).toBe(
      "Unsupported Content-Type 'text/plain' for the request body (send application/vnd.api+json)",
    );
    const plainJson = await call("POST", `${UAT}/deploys`, {
      body: { ref_type: "redeploy" },
      headers: { "content-type": "application/json" },
    });
    expect(plainJson.status).toBe(201);
  });
});

describe("roles", () => {
  it("lets a Team Member deploy to UAT but not to production, and not bypass there", async () => {
    expect((await create(UAT, { ref_type: "redeploy", bypass: true }, TEST_USERS.teamMember)).status).toBe(
      201,
    );
    const prod = await create(PROD, { ref_type: "redeploy" }, TEST_USERS.teamMember);
    expect(prod.status).toBe(403);
    expect(errorTitle(prod)).toBe(
      "Your role 'Team Member' may not deploy to production environment 'acme-web/prod'",
    );
  });

  it("lets a Deployer bypass on production but not lock", async () => {
    expect((await create(PROD, { ref_type: "redeploy", bypass: true }, TEST_USERS.deployer)).status).toBe(
      201,
    );
    const lock = await call("POST", `${PROD}/lock`, { body: { lock_message: "x" }, as: TEST_USERS.deployer });
    expect(lock.status).toBe(403);
  });

  it("answers 404 to a non-member trying to deploy", async () => {
    const res = await create(UAT, { ref_type: "redeploy" }, TEST_USERS.outsider);
    expect(res.status).toBe(404);
  });
});

describe("the state machine", () => {
  it("invalidates a submitted deployment and refuses to invalidate it twice, naming transition and state", async () => {
    const d = dep(await create(UAT, { ref_type: "redeploy" }));
    const res = await call("POST", `${UAT}/deploys/invalidate`, { body: { id: Number(d.id) } });
    expect(res.status).toBe(200);
    expect(dep(res).attributes.state).toBe("Invalid");
    expect(dep(res).attributes.changes).toBeDefined();
    const again = await call("POST", `${UAT}/deploys/invalidate`, { body: { id: Number(d.id) } });
    expect(again.status).toBe(400);
    expect(errorTitle(again)).toBe(
      `Cannot invalidate a deployment in state 'Invalid' (allowed from: New, Submitted, Approved, Rejected): deployment ${d.id}`,
    );
  });

  it("soft-deletes a pending deployment: hidden from the list unless asked for by state", async () => {
    const d = dep(await create(UAT, { ref_type: "redeploy" }));
    const del = await call("DELETE", `${UAT}/deploys/${d.id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
    expect(dep(await call("GET", `${UAT}/deploys/${d.id}`)).attributes.state).toBe("Deleted");
    const list = DeploymentListDocument.parse((await call("GET", `${UAT}/deploys`)).body);
    expect(list.data.map((x) => x.id)).not.toContain(d.id);
    const deleted = DeploymentListDocument.parse((await call("GET", `${UAT}/deploys?state=Deleted`)).body);
    expect(deleted.data.map((x) => x.id)).toEqual([d.id]);
    const again = await call("DELETE", `${UAT}/deploys/${d.id}`);
    expect(again.status).toBe(400);
    expect(errorTitle(again)).toContain("Cannot delete a deployment in state 'Deleted'");
  });

  it("refuses to delete a completed deployment", async () => {
    const list = DeploymentListDocument.parse((await call("GET", `${UAT}/deploys?state=Completed`)).body);
    const res = await call("DELETE", `${UAT}/deploys/${list.data[0]?.id}`);
    expect(res.status).toBe(400);
    expect(errorTitle(res)).toContain("state 'Completed'");
  });

  it("lets a person approve or reject a submitted deployment through the hooks", async () => {
    const a = dep(await create(UAT, { ref_type: "redeploy" }));
    const approved = DeploymentDocument.parse(await emu.hooks.approve("acme-web", "uat", a.id)).data;
    expect(approved.attributes.state).toBe("Approved");
    await expect(emu.hooks.approve("acme-web", "uat", a.id)).rejects.toThrow(/400.*not Submitted/);
    const b = dep(await create(UAT, { ref_type: "redeploy" }));
    const rejected = DeploymentDocument.parse(await emu.hooks.reject("acme-web", "uat", b.id)).data;
    expect(rejected.attributes.state).toBe("Rejected");
  });

  it("fails the next deployment when scripted, and keeps the build", async () => {
    await emu.hooks.nextOutcome("acme-web", "uat");
    const d = dep(await create(UAT, { ref_type: "sha", ref: RELEASE_SHA, bypass_and_start: true }));
    const failed = await waitForState(UAT, d.id, ["Failed", "Completed"]);
    expect(failed.attributes.state).toBe("Failed");
    expect(failed.attributes.is_current_build).toBe(false);
    const env = EnvironmentDocument.parse((await call("GET", UAT)).body);
    expect(env.data.attributes.build_sha).toBe(MAIN_SHA);
    const next = dep(await create(UAT, { ref_type: "sha", ref: RELEASE_SHA, bypass_and_start: true }));
    expect((await waitForState(UAT, next.id, ["Failed", "Completed"])).attributes.state).toBe("Completed");
  });

  it("allows one deployment in progress per environment", async () => {
    const emulator = await startTestEmulator({ speed: "realistic" });
    try {
      const slow = apiCaller(emulator.url);
      const first = await slow("POST", `${UAT}/deploys`, {
        body: { ref_type: "redeploy", bypass_and_start: true },
      });
      expect(first.status).toBe(201);
      const second = await slow("POST", `${UAT}/deploys`, {
        body: { ref_type: "redeploy", bypass_and_start: true },
      });
      expect(second.status).toBe(409);
      expect(errorTitle(second)).toContain("another deployment is in progress");
      const approved = dep(
        await slow("POST", `${UAT}/deploys`, { body: { ref_type: "redeploy", bypass: true } }),
      );
      const start = await slow("POST", `${UAT}/deploys/start`, { body: { id: Number(approved.id) } });
      expect(start.status).toBe(409);
      expect(errorTitle(start)).toContain("another deployment is in progress");
      const prod = await slow("POST", `${PROD}/deploys`, {
        body: { ref_type: "redeploy", bypass_and_start: true },
      });
      expect(prod.status).toBe(201);
    } finally {
      await emulator.close();
    }
  });

  it("records a hand deployment as Completed and moves the build (drift)", async () => {
    const sha = "0123456789abcdef0123456789abcdef01234567";
    const d = DeploymentDocument.parse(await emu.hooks.handDeploy("acme-web", "prod", sha)).data;
    expect(d.attributes).toMatchObject({ state: "Completed", sha, is_current_build: true });
    const env = EnvironmentDocument.parse((await call("GET", PROD)).body);
    expect(env.data.attributes.build_sha).toBe(sha);
  });
});

describe("the locked flag of a deployment", () => {
  it("keeps other users from invalidating or deleting it, but not its deployer", async () => {
    const d = dep(await create(UAT, { ref_type: "redeploy", locked: true }, TEST_USERS.deployer));
    const other = await call("POST", `${UAT}/deploys/invalidate`, { body: { id: Number(d.id) } });
    expect(other.status).toBe(403);
    expect(errorTitle(other)).toBe(
      `Deployment ${d.id} is locked by deployer@example.com; only they may invalidate it`,
    );
    expect((await call("DELETE", `${UAT}/deploys/${d.id}`)).status).toBe(403);
    const own = await call("DELETE", `${UAT}/deploys/${d.id}`, { as: TEST_USERS.deployer });
    expect(own.status).toBe(204);
  });
});

describe("locks", () => {
  it("blocks creating and starting deployments with 409 naming the lock message, until unlocked", async () => {
    const approved = dep(await create(UAT, { ref_type: "redeploy", bypass: true }));
    const lock = await call("POST", `${UAT}/lock`, { body: { lock_message: "Change freeze" } });
    expect(lock.status).toBe(202);
    expect(EnvironmentLockDocument.parse(lock.body).data).toEqual({
      type: "environmentlock",
      id: "acme-web:uat",
      attributes: { locked: true, lock_message: "Change freeze" },
    });
    const created = await create(UAT, { ref_type: "redeploy" });
    expect(created.status).toBe(409);
    expect(errorTitle(created)).toBe(
      "Environment 'acme-web/uat' is locked, cannot create a deployment: Change freeze",
    );
    const started = await call("POST", `${UAT}/deploys/start`, { body: { id: Number(approved.id) } });
    expect(started.status).toBe(409);
    expect(errorTitle(started)).toContain("Change freeze");
    const unlock = await call("DELETE", `${UAT}/lock`);
    expect(unlock.status).toBe(204);
    expect((await call("POST", `${UAT}/deploys/start`, { body: { id: Number(approved.id) } })).status).toBe(
      200,
    );
  });

  it("starts locked environments from the seed", async () => {
    const res = await call("POST", "/svc/project/acme-intranet/environment/prod/deploys", {
      body: { ref_type: "redeploy" },
      as: TEST_USERS.releaseManager,
    });
    expect(res.status).toBe(409);
    expect(errorTitle(res)).toContain("Change freeze until 2026-12-01");
  });
});

describe("list filters", () => {
  it("filters by state, deployer, title, summary and the time ranges", async () => {
    const mine = dep(await create(UAT, { ref_type: "redeploy", title: "Alpha release", summary: "first" }));
    const theirs = dep(
      await create(UAT, { ref_type: "redeploy", title: "Beta", summary: "second" }, TEST_USERS.deployer),
    );
    const ids = async (query: string) =>
      DeploymentListDocument.parse((await call("GET", `${UAT}/deploys?${query}`)).body).data.map((d) => d.id);
    expect(await ids("deployer_email=deployer@example.com")).toEqual([theirs.id]);
    expect(await ids("title=alpha")).toEqual([mine.id]);
    expect(await ids("summary=SECOND")).toEqual([theirs.id]);
    expect(await ids("state=Submitted")).toEqual([theirs.id, mine.id]);
    expect(await ids("state=Completed")).toHaveLength(1);
    const created = mine.attributes.date_created_unix;
    expect(await ids(`lastedited_from_unix=${created}`)).toEqual([theirs.id, mine.id]);
    expect(await ids(`lastedited_from_unix=${created + 3600}`)).toEqual([]);
    // Only the seeded deployment has started.
    expect(await ids("datestarted_from_unix=0")).toHaveLength(1);
    expect(await ids("datestarted_to_unix=1735693199")).toEqual([]);
    expect(await ids("datestarted_from_unix=1735693200&datestarted_to_unix=1735693200")).toHaveLength(1);
  });

  it("refuses an unknown state, a non-integer time and an unknown filter, naming them", async () => {
    const state = await call("GET", `${UAT}/deploys?state=Done`);
    expect(state.status).toBe(400);
    expect(errorTitle(state)).toContain("Invalid field 'state' in the query");
    const time = await call("GET", `${UAT}/deploys?datestarted_from_unix=yesterday`);
    expect(errorTitle(time)).toContain("'datestarted_from_unix'");
    const unknown = await call("GET", `${UAT}/deploys?colour=red`);
    expect(errorTitle(unknown)).toContain("Unknown field 'colour' in the query");
  });
});
