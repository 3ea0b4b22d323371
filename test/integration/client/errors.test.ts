/** Every error class, each produced by a real HTTP response (or a real refused connection). */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AbortedError,
  AuthenticationError,
  ConflictError,
  ConnectionError,
  ErrorCode,
  InvalidArgumentError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ResponseTooLargeError,
  ServerError,
  TimeoutError,
  UnexpectedResponseError,
  ValidationError,
} from "../../../src/client";
import {
  HELD_PAST_TIMEOUT_MS,
  STACK,
  calls,
  failure,
  testClient,
  useClientWorld,
} from "../../helpers/client";
import { TEST_USERS } from "../../helpers/emulator";

const world = useClientWorld();

describe("errors from real responses", () => {
  it("a wrong token gives AuthenticationError with the 401 title", async () => {
    const error = await failure(world.newClient({ token: "wrong-token" }).info.whoami());
    expect(AuthenticationError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      status: 401,
      code: ErrorCode.Authentication,
      method: "GET",
      path: "/svc/meta",
    });
  });

  it("starting a deployment that is not approved gives PermissionError", async () => {
    const d = await world.client.deployments.create(STACK, "prod", { ref_type: "promote_from_uat" });
    const error = await failure(world.client.deployments.start(STACK, "prod", d.id));
    expect(PermissionError.isInstance(error)).toBe(true);
    expect((error as PermissionError).titles.join()).toContain("not been approved");
  });

  it("an unknown stack gives NotFoundError", async () => {
    const error = await failure(world.client.stacks.get("no-such-stack"));
    expect(NotFoundError.isInstance(error)).toBe(true);
    expect((error as NotFoundError).status).toBe(404);
  });

  it("deploying to a locked environment gives ConflictError carrying the lock message", async () => {
    const release = world.newClient(TEST_USERS.releaseManager);
    const error = await failure(
      release.deployments.create("acme-intranet", "prod", { ref_type: "branch", ref: "main", bypass: true }),
    );
    expect(ConflictError.isInstance(error)).toBe(true);
    expect((error as ConflictError).titles.join()).toContain("Change freeze until 2026-12-01");
    expect(await calls(world.hooks)).toHaveLength(1);
  });

  it("an illegal transition gives ValidationError naming it", async () => {
    const d = await world.client.deployments.create(STACK, "uat", {
      ref_type: "branch",
      ref: "main",
      bypass_and_start: true,
    });
    await world.client.waitForDeployment(STACK, "uat", d.id);
    const error = await failure(world.client.deployments.invalidate(STACK, "uat", d.id));
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as ValidationError).status).toBe(400);
  });

  it("a 429 that outlasts the retries gives RateLimitError with the server's hint", async () => {
    await world.hooks.fault({ path: "/svc/meta", kind: "status", status: 429, retry_after: 120, count: 5 });
    const error = await failure(world.client.info.whoami());
    expect(RateLimitError.isInstance(error)).toBe(true);
    expect((error as RateLimitError).retryAfterMs).toBe(120_000);
  });

  it("a 500 gives ServerError", async () => {
    await world.hooks.fault({ path: "/svc/meta", kind: "status", status: 500, count: 1 });
    expect(ServerError.isInstance(await failure(world.client.info.whoami()))).toBe(true);
  });

  it("a refused connection gives ConnectionError that says the request was never sent", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const error = await failure(
      world.newClient({ baseUrl: `http://127.0.0.1:${port}`, retry: { maxAttempts: 2 } }).info.whoami(),
    );
    expect(ConnectionError.isInstance(error)).toBe(true);
    expect((error as ConnectionError).requestSent).toBe(false);
  });

  it("a response slower than headersTimeoutMs gives TimeoutError stating the bound", async () => {
    await world.hooks.fault({
      path: "/svc/meta",
      kind: "latency",
      latency_ms: HELD_PAST_TIMEOUT_MS,
      count: 1,
    });
    const error = await failure(
      world.newClient({ headersTimeoutMs: 50, retry: { maxAttempts: 1 } }).info.whoami(),
    );
    expect(TimeoutError.isInstance(error)).toBe(true);
    expect((error as TimeoutError).message).toContain("50 ms");
  });

  it("a body larger than maxResponseBytes gives ResponseTooLargeError", async () => {
    const error = await failure(world.newClient({ maxResponseBytes: 100 }).stacks.list());
    expect(ResponseTooLargeError.isInstance(error)).toBe(true);
  });

  it("a caller's abort gives AbortedError", async () => {
    await world.hooks.fault({ path: "/svc/meta", kind: "latency", latency_ms: 1_000, count: 1 });
    const controller = new AbortController();
    const pending = world.client.info.whoami({ signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    expect(AbortedError.isInstance(await failure(pending))).toBe(true);
  });

  it("an abort during the backoff before a retry gives AbortedError without another request", async () => {
    await world.hooks.fault({ path: "/svc/meta", kind: "status", status: 429, retry_after: 30, count: 1 });
    const controller = new AbortController();
    const pending = world
      .newClient({
        logger: (event) => {
          if (event.event === "retry") controller.abort();
        },
      })
      .info.whoami({ signal: controller.signal });
    expect(AbortedError.isInstance(await failure(pending))).toBe(true);
    expect(await calls(world.hooks)).toEqual(["GET /svc/meta"]);
  });

  it("a name that would alter the path gives InvalidArgumentError and sends nothing", async () => {
    await world.hooks.clearRequests();
    for (const bad of ["../x", "a/b", "", " uat", "u\nat"]) {
      expect(InvalidArgumentError.isInstance(await failure(world.client.environments.get(STACK, bad)))).toBe(
        true,
      );
      expect(InvalidArgumentError.isInstance(await failure(world.client.stacks.get(bad)))).toBe(true);
    }
    expect(InvalidArgumentError.isInstance(await failure(world.client.records.get("../Page", 1)))).toBe(true);
    expect(await world.hooks.requests()).toEqual([]);
  });
});

describe("errors from a server that breaks the contract", () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/vnd.api+json" });
      res.end(JSON.stringify({ data: [{ type: "stacks", id: "x", attributes: { name: 1 } }] }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  it("a body of the wrong shape gives UnexpectedResponseError naming the JSON path", async () => {
    const c = testClient({ baseUrl: url, ...TEST_USERS.stackManager });
    const error = await failure(c.stacks.list());
    await c.close();
    expect(UnexpectedResponseError.isInstance(error)).toBe(true);
    expect((error as UnexpectedResponseError).jsonPath).toBe("$.data[0].attributes.name");
  });
});
