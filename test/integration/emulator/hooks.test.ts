import { request } from "undici";
import { describe, expect, it } from "vitest";
import { DeploymentListDocument, EnvironmentLockDocument, isDeploymentInProgress } from "../../../src/api";
import { startTestEmulator } from "../../helpers/emulator";
import { apiCaller, errorTitle, eventually, useTestEmulator } from "../../helpers/emulator-http";

const emu = useTestEmulator();
const { call } = emu;

const UAT = "/svc/project/acme-web/environment/uat";

async function hook(method: "GET" | "POST" | "DELETE", path: string, body?: unknown) {
  const res = await request(`${emu.url}/_emulator${path}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text === "" ? undefined : (JSON.parse(text) as unknown) };
}

describe("request log", () => {
  it("logs a request whose client gave up before the answer, with status 0", async () => {
    await emu.hooks.fault({ path: "/svc/meta", kind: "latency", latency_ms: 5_000, count: 1 });
    const gaveUp = request(`${emu.url}/svc/meta`, { signal: AbortSignal.timeout(100) });
    await expect(gaveUp).rejects.toThrow();
    // The abort reaches the server asynchronously, later on a loaded machine (a second of polls
    // was too short beside the engine tests): waited for, at least the fault's 5 s.
    const log = await eventually(
      async () => {
        const seen = await emu.hooks.requests();
        return seen.length === 0 ? undefined : seen;
      },
      "the aborted request in the emulator's log",
      1_200,
    );
    expect(log.map(({ method, path, status }) => ({ method, path, status }))).toEqual([
      { method: "GET", path: "/svc/meta", status: 0 },
    ]);
  });

  it("logs requests in arrival order with path and query, without the hook calls", async () => {
    await call("GET", "/svc/meta?x=1");
    await call("GET", "/svc/project/nope");
    const log = await emu.hooks.requests();
    expect(log.map(({ seq, method, path, status }) => ({ seq, method, path, status }))).toEqual([
      { seq: 1, method: "GET", path: "/svc/meta?x=1", status: 200 },
      { seq: 2, method: "GET", path: "/svc/project/nope", status: 404 },
    ]);
    expect(log[0]?.at_ms).toBeGreaterThan(1_700_000_000_000);
    await emu.hooks.clearRequests();
    expect(await emu.hooks.requests()).toEqual([]);
  });
});

describe("faults", () => {
  it("answers the next N matching requests with a status and Retry-After, then recovers", async () => {
    const id = await emu.hooks.fault({
      method: "GET",
      path: "/svc/meta",
      kind: "status",
      status: 429,
      retry_after: 3,
      count: 2,
    });
    expect(id).toMatch(/./);
    for (let i = 0; i < 2; i++) {
      const res = await call("GET", "/svc/meta");
      expect(res.status).toBe(429);
      expect(res.headers["retry-after"]).toBe("3");
      expect(res.headers["content-type"]).toBe("application/vnd.api+json");
      expect(errorTitle(res)).toContain("Too Many Requests");
    }
    expect((await call("GET", "/svc/meta")).status).toBe(200);
    expect((await emu.hooks.requests()).map((r) => r.status)).toEqual([429, 429, 200]);
  });

  it("matches * to one segment and ** to any rest, and by method", async () => {
    await emu.hooks.fault({
      path: "/svc/project/*/environment/*/deploys",
      kind: "status",
      status: 503,
      count: 1,
    });
    expect((await call("GET", `${UAT}/deploys/100`)).status).toBe(200);
    expect((await call("GET", `${UAT}/deploys`)).status).toBe(503);
    await emu.hooks.fault({ method: "POST", path: "/svc/**", kind: "status", status: 500, count: 1 });
    expect((await call("GET", "/svc/projects")).status).toBe(200);
    expect((await call("POST", `${UAT}/lock`, { body: {} })).status).toBe(500);
  });

  it("with phase before, changes nothing", async () => {
    await emu.hooks.fault({ method: "POST", path: `${UAT}/lock`, kind: "status", status: 502, count: 1 });
    expect((await call("POST", `${UAT}/lock`, { body: { lock_message: "m" } })).status).toBe(502);
    const deploy = await call("POST", `${UAT}/deploys`, { body: { ref_type: "redeploy" } });
    expect(deploy.status).toBe(201);
  });

  it("with phase after, commits the change and loses the response (a lost POST)", async () => {
    await emu.hooks.fault({
      method: "POST",
      path: `${UAT}/deploys`,
      kind: "status",
      status: 504,
      count: 1,
      phase: "after",
    });
    const lost = await call("POST", `${UAT}/deploys`, { body: { ref_type: "redeploy", title: "lost" } });
    expect(lost.status).toBe(504);
    const list = DeploymentListDocument.parse((await call("GET", `${UAT}/deploys?title=lost`)).body);
    expect(list.data).toHaveLength(1);
  });

  it("drops the connection without a response, before or after the handler", async () => {
    await emu.hooks.fault({ path: `${UAT}/lock`, kind: "drop", count: 1 });
    await expect(call("POST", `${UAT}/lock`, { body: { lock_message: "never" } })).rejects.toThrow();
    const unlocked = await call("POST", `${UAT}/deploys`, { body: { ref_type: "redeploy" } });
    expect(unlocked.status).toBe(201);
    await emu.hooks.fault({ method: "POST", path: `${UAT}/lock`, kind: "drop", count: 1, phase: "after" });
    await expect(call("POST", `${UAT}/lock`, { body: { lock_message: "kept" } })).rejects.toThrow();
    expect((await call("GET", "/svc/meta")).status).toBe(200);
    const relock = await call("POST", `${UAT}/deploys`, { body: { ref_type: "redeploy" } });
    expect(errorTitle(relock)).toContain("kept");
    const statuses = (await emu.hooks.requests()).map((r) => [r.method, r.status]);
    expect(statuses).toEqual([
      ["POST", 0],
      ["POST", 201],
      ["POST", 0],
      ["GET", 200],
      ["POST", 409],
    ]);
  });

  it("delays with latency and then answers normally", async () => {
    await emu.hooks.fault({ path: "/svc/meta", kind: "latency", latency_ms: 30, count: 1 });
    expect((await call("GET", "/svc/meta")).status).toBe(200);
    await emu.hooks.fault({ path: `${UAT}/lock`, kind: "latency", latency_ms: 10, count: 1, phase: "after" });
    const res = await call("POST", `${UAT}/lock`, { body: {} });
    expect(EnvironmentLockDocument.parse(res.body).data.attributes.locked).toBe(true);
  });

  it.each([
    [
      { path: "/svc/meta", kind: "status", count: 1 },
      "Invalid field 'status' in the request body: is required",
    ],
    [{ path: "/svc/meta", kind: "status", status: 418, count: 1 }, "Invalid field 'status'"],
    [{ path: "/svc/meta", kind: "latency", count: 1 }, "Invalid field 'latency_ms'"],
    [{ path: "/svc/meta", kind: "drop", count: 0 }, "Invalid field 'count'"],
    [{ path: "/svc/meta", kind: "drop", count: 1, when: "now" }, "Unknown field 'when'"],
    [{ path: "svc/meta", kind: "drop", count: 1 }, "Invalid field 'path'"],
    [{ kind: "drop", count: 1 }, "Missing required field 'path'"],
    [{ path: "/svc/meta?x=1", kind: "drop", count: 1 }, "leave out the query string"],
  ])("refuses fault %j", async (body, title) => {
    const res = await hook("POST", "/faults", body);
    expect(res.status).toBe(400);
    expect((res.body as { errors: { title: string }[] }).errors[0]?.title).toContain(title);
  });

  it("are cleared by reset, with the request log", async () => {
    await emu.hooks.fault({ path: "/svc/meta", kind: "status", status: 500, count: 5 });
    await call("GET", "/svc/meta");
    await emu.hooks.reset();
    expect(await emu.hooks.requests()).toEqual([]);
    expect((await call("GET", "/svc/meta")).status).toBe(200);
  });
});

describe("hooks", () => {
  it("reset brings the world back to the seed", async () => {
    await call("POST", `${UAT}/lock`, { body: { lock_message: "x" } });
    await emu.hooks.reset();
    expect((await call("POST", `${UAT}/deploys`, { body: { ref_type: "redeploy" } })).status).toBe(201);
  });

  it("refuse unknown fields, unknown hooks and unknown environments", async () => {
    expect((await hook("POST", "/reset", { all: true })).status).toBe(400);
    expect(
      (await hook("POST", "/project/acme-web/environment/uat/next-outcome", { outcome: "pass" })).status,
    ).toBe(400);
    expect((await hook("POST", "/project/acme-web/environment/uat/hand-deploy", { sha: "abc" })).status).toBe(
      400,
    );
    expect(
      (await hook("POST", "/project/acme-web/environment/nope/next-outcome", { outcome: "fail" })).status,
    ).toBe(404);
    expect((await hook("POST", "/project/acme-web/environment/uat/deploys/12345/approve")).status).toBe(404);
    expect((await hook("GET", "/nothing")).status).toBe(404);
  });
});

describe("close", () => {
  it("ends with a request held by a latency fault and a deployment still running", async () => {
    const other = await startTestEmulator({ speed: "realistic" });
    const c = apiCaller(other.url);
    await other.hooks.fault({
      method: "POST",
      path: `${UAT}/deploys`,
      kind: "latency",
      latency_ms: 60_000,
      count: 1,
      phase: "after",
    });
    const body = { ref_type: "redeploy", title: "held", bypass_and_start: true };
    const held = c("POST", `${UAT}/deploys`, { body }).catch((err: unknown) => err);
    // The handler commits the deployment before the fault holds its answer: once the deployment
    // is listed, the request is inside the server, waiting.
    const running = await eventually(async () => {
      const list = DeploymentListDocument.parse((await c("GET", `${UAT}/deploys?title=held`)).body);
      return list.data[0];
    }, "the held request's deployment to be listed");
    expect(isDeploymentInProgress(running.attributes.state)).toBe(true);
    await other.close();
    expect(await held).toBeInstanceOf(Error);
  });
});
