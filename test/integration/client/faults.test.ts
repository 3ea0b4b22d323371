/**
 * Faults injected through the emulator's hooks, asserting from its request log exactly which
 * requests the client made: retries where they are safe, never where they could duplicate.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { beforeEach, describe, expect, it } from "vitest";
import {
  ConnectionError,
  OutcomeUnknownError,
  RateLimitError,
  ServerError,
  TimeoutError,
  type ClientLogEvent,
  type StackwrightClient,
} from "../../../src/client";
import { HELD_PAST_TIMEOUT_MS, STACK, calls, failure, newMarker, useClientWorld } from "../../helpers/client";
import type { Deployment } from "../../../src/api";
import { defaultTestAnswers, type FaultInput } from "../../helpers/emulator";

/** What the clients of the current test logged (the world records them for the token check too). */
let events: ClientLogEvent[] = [];
beforeEach(() => {
  events = [];
});
const world = useClientWorld({ retry: { maxAttempts: 3 }, logger: (event) => events.push(event) });

const DEPLOYS = `/svc/project/${STACK}/environment/uat/deploys`;
const SNAPSHOTS = `/svc/project/${STACK}/snapshots`;

/**
 * Attempts as the client saw them: `METHOD path -> status|failure`. Used where the server's log
 * cannot help: the emulator logs a request when it finishes, and one whose client timed out and
 * left is never logged.
 */
function attempts(): string[] {
  return events.flatMap((e) =>
    e.event === "response"
      ? [`${e.method} ${e.path.split("?")[0] ?? e.path} -> ${e.status}`]
      : e.event === "network-error"
        ? [`${e.method} ${e.path} -> ${e.failure}`]
        : [],
  );
}

/** A client whose requests time out after 50 ms, logging into `events`. */
function impatient(): StackwrightClient {
  return world.newClient({ headersTimeoutMs: 50, logger: (e) => events.push(e) });
}

/** Makes the next `method` request to `path` (a pattern) meet `fault`, once. */
async function faultOnce(
  method: "GET" | "POST" | "DELETE",
  path: string,
  fault: Omit<FaultInput, "method" | "path" | "count">,
): Promise<void> {
  await world.hooks.fault({ method, path, count: 1, ...fault });
}

/** Creates a deployment on uat with a new marker in its title (or summary); returns both. */
async function createMarked(
  client: StackwrightClient,
  field: "title" | "summary" = "title",
): Promise<{ marker: string; deployment: Deployment }> {
  const marker = newMarker();
  const where = field === "title" ? { title: marker } : { summary: marker };
  const deployment = await client.deployments.create(
    STACK,
    "uat",
    { ref_type: "branch", ref: "main", ...where },
    { marker },
  );
  return { marker, deployment };
}

/** An Approved deployment on uat (bypass), with the request log cleared after its creation. */
async function approvedOnUat(): Promise<Deployment> {
  const d = await world.client.deployments.create(STACK, "uat", {
    ref_type: "branch",
    ref: "main",
    bypass: true,
  });
  await world.hooks.clearRequests();
  return d;
}

async function deploymentsWith(marker: string): Promise<number> {
  const all = await world.newClient().deployments.list(STACK, "uat");
  return all.filter((d) => (d.attributes.title ?? "").includes(marker)).length;
}

describe("idempotent reads", () => {
  it.each([502, 503, 504] as const)("are retried after a %i and then succeed", async (status) => {
    await world.hooks.fault({ method: "GET", path: "/svc/meta", kind: "status", status, count: 2 });
    await world.client.info.whoami();
    expect(await calls(world.hooks)).toEqual(["GET /svc/meta", "GET /svc/meta", "GET /svc/meta"]);
  });

  it("stop at the attempt limit and report the last error", async () => {
    await world.hooks.fault({ method: "GET", path: "/svc/meta", kind: "status", status: 503, count: 10 });
    expect(ServerError.isInstance(await failure(world.client.info.whoami()))).toBe(true);
    expect(await calls(world.hooks)).toHaveLength(3);
  });

  it("are not retried after a 500", async () => {
    await world.hooks.fault({ method: "GET", path: "/svc/meta", kind: "status", status: 500, count: 2 });
    expect(ServerError.isInstance(await failure(world.client.info.whoami()))).toBe(true);
    expect(await calls(world.hooks)).toEqual(["GET /svc/meta"]);
  });

  it("wait as long as Retry-After says after a 429", async () => {
    await faultOnce("GET", "/svc/meta", { kind: "status", status: 429, retry_after: 1 });
    await world.client.info.whoami();
    expect(await calls(world.hooks)).toHaveLength(2);
    expect(events.filter((e) => e.event === "retry").map((e) => e.event === "retry" && e.delayMs)).toEqual([
      1_000,
    ]);
  });

  it("give up at once when Retry-After exceeds maxRetryAfterMs", async () => {
    await faultOnce("GET", "/svc/meta", { kind: "status", status: 429, retry_after: 3_600 });
    expect(RateLimitError.isInstance(await failure(world.client.info.whoami()))).toBe(true);
    expect(await calls(world.hooks)).toHaveLength(1);
  });

  it("are retried after a dropped connection", async () => {
    await faultOnce("GET", "/svc/projects", { kind: "drop" });
    expect(await world.client.stacks.list()).toHaveLength(1);
    expect(await calls(world.hooks)).toEqual(["GET /svc/projects", "GET /svc/projects"]);
  });

  it("are retried after a response slower than the timeout", async () => {
    await faultOnce("GET", "/svc/meta", { kind: "latency", latency_ms: HELD_PAST_TIMEOUT_MS });
    await impatient().info.whoami();
    expect(attempts()).toEqual(["GET /svc/meta -> timeout", "GET /svc/meta -> 200"]);
  });

  it("match fault patterns with * and ** segments", async () => {
    await faultOnce("GET", "/svc/project/*/environment/**", { kind: "status", status: 503 });
    await world.client.environments.domains(STACK, "uat");
    expect(await calls(world.hooks)).toHaveLength(2);
  });
});

describe("creates that provably did nothing", () => {
  it.each([429, 503] as const)("are repeated after a %i before processing", async (status) => {
    await faultOnce("POST", DEPLOYS, { kind: "status", status });
    const marker = newMarker();
    await world.client.deployments.create(STACK, "uat", { ref_type: "branch", ref: "main", title: marker });
    expect(await calls(world.hooks)).toEqual([`POST ${DEPLOYS}`, `POST ${DEPLOYS}`]);
    expect(await deploymentsWith(marker)).toBe(1);
  });

  it("are repeated when the connection is refused, and report that nothing was sent", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const local: ClientLogEvent[] = [];
    const refused = world.newClient({
      baseUrl: `http://127.0.0.1:${port}`,
      retry: { maxAttempts: 3 },
      logger: (e) => local.push(e),
    });
    const error = await failure(
      refused.deployments.create(STACK, "uat", { ref_type: "branch", ref: "main" }),
    );
    expect(ConnectionError.isInstance(error)).toBe(true);
    expect((error as ConnectionError).requestSent).toBe(false);
    expect(local.filter((e) => e.event === "network-error")).toHaveLength(3);
  });
});

describe("creates whose outcome is ambiguous, without a marker", () => {
  it.each([
    ["a 502 after processing", { kind: "status", status: 502, phase: "after" }],
    ["a 504 after processing", { kind: "status", status: 504, phase: "after" }],
    ["a dropped connection after processing", { kind: "drop", phase: "after" }],
    ["a dropped connection before processing", { kind: "drop", phase: "before" }],
  ] as const)("are not repeated after %s: OutcomeUnknownError", async (_name, fault) => {
    await faultOnce("POST", DEPLOYS, fault);
    const error = await failure(
      world.client.deployments.create(STACK, "uat", { ref_type: "branch", ref: "main" }),
    );
    expect(OutcomeUnknownError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("may or may not have taken effect");
    expect(await calls(world.hooks)).toEqual([`POST ${DEPLOYS}`]);
  });

  it("are not repeated after a timeout", async () => {
    await faultOnce("POST", DEPLOYS, { kind: "latency", latency_ms: HELD_PAST_TIMEOUT_MS });
    const error = await failure(
      impatient().deployments.create(STACK, "uat", { ref_type: "branch", ref: "main" }),
    );
    expect(OutcomeUnknownError.isInstance(error)).toBe(true);
    expect(TimeoutError.isInstance((error as OutcomeUnknownError).reason)).toBe(true);
    expect(attempts()).toEqual([`POST ${DEPLOYS} -> timeout`]);
  });

  it.each([
    [
      "a restore",
      (c: StackwrightClient) => c.snapshots.restore(STACK, 2, { environment: "uat", mode: "db" }),
      `${SNAPSHOTS}/2`,
    ],
    ["a fetch", (c: StackwrightClient) => c.fetches.create(STACK), `/svc/project/${STACK}/git/fetches`],
    [
      "a lock",
      (c: StackwrightClient) => c.locks.lock(STACK, "uat", "freeze"),
      `/svc/project/${STACK}/environment/uat/lock`,
    ],
    [
      "a record method",
      (c: StackwrightClient) => c.records.callMethod("Page", 12, "publish"),
      "/api/v1/Page/12/publish",
    ],
    [
      "a snapshot",
      (c: StackwrightClient) => c.snapshots.create(STACK, { environment: "uat", mode: "db" }),
      SNAPSHOTS,
    ],
  ])("are not repeated for %s either", async (_name, call, path) => {
    await faultOnce("POST", path, { kind: "status", status: 504, phase: "after" });
    expect(OutcomeUnknownError.isInstance(await failure(call(world.client)))).toBe(true);
    expect(await calls(world.hooks)).toEqual([`POST ${path}`]);
  });
});

/**
 * The read of the found deployment's single view that follows the search when the platform's
 * reduced list items leave out what a caller claiming it needs (none with the documented shapes).
 */
function reread(id: string, outcome = ""): string[] {
  return defaultTestAnswers() === "platform" ? [`GET ${DEPLOYS}/${id}${outcome}`] : [];
}

describe("creates whose outcome is ambiguous, with a marker", () => {
  it("adopt the deployment an attempt made before its response was lost", async () => {
    await faultOnce("POST", DEPLOYS, { kind: "status", status: 504, phase: "after" });
    const { marker, deployment } = await createMarked(world.client);
    expect(deployment.attributes.title).toBe(marker);
    expect(await calls(world.hooks)).toEqual([`POST ${DEPLOYS}`, `GET ${DEPLOYS}`, ...reread(deployment.id)]);
    expect(await deploymentsWith(marker)).toBe(1);
  });

  it("repeat the create once the search shows the dropped attempt made nothing", async () => {
    await faultOnce("POST", DEPLOYS, { kind: "drop", phase: "before" });
    const { marker } = await createMarked(world.client, "summary");
    expect(await calls(world.hooks)).toEqual([`POST ${DEPLOYS}`, `GET ${DEPLOYS}`, `POST ${DEPLOYS}`]);
    expect(await world.newClient().deployments.findByMarker(STACK, "uat", marker)).toBeDefined();
  });

  it("adopt the deployment after a timeout whose request went on to be processed", async () => {
    await faultOnce("POST", DEPLOYS, { kind: "latency", latency_ms: HELD_PAST_TIMEOUT_MS, phase: "after" });
    const { marker, deployment } = await createMarked(impatient());
    expect(attempts()).toEqual([
      `POST ${DEPLOYS} -> timeout`,
      `GET ${DEPLOYS} -> 200`,
      ...reread(deployment.id, " -> 200"),
    ]);
    expect(await deploymentsWith(marker)).toBe(1);
  });

  it("look before repeating even after a 503, in case a proxy answered after the origin acted", async () => {
    await faultOnce("POST", DEPLOYS, { kind: "status", status: 503, phase: "after" });
    const { marker, deployment } = await createMarked(world.client);
    expect(await calls(world.hooks)).toEqual([`POST ${DEPLOYS}`, `GET ${DEPLOYS}`, ...reread(deployment.id)]);
    expect(await deploymentsWith(marker)).toBe(1);
  });

  it("adopt the snapshot an attempt made, found by the marker in its notes", async () => {
    await faultOnce("POST", SNAPSHOTS, { kind: "status", status: 502, phase: "after" });
    const marker = newMarker();
    const result = await world.client.snapshots.create(
      STACK,
      { environment: "uat", mode: "db", notes: marker },
      { marker },
    );
    if (result.kind !== "adopted") throw new Error(`expected an adopted snapshot, got ${result.kind}`);
    expect(result.snapshot.attributes.notes).toBe(marker);
    const log = await calls(world.hooks);
    expect(log.slice(0, 2)).toEqual([`POST ${SNAPSHOTS}`, `GET ${SNAPSHOTS}`]);
    expect(log.filter((c) => c.startsWith("POST"))).toHaveLength(1);
    expect((await world.client.waitForSnapshot(STACK, result.snapshot.id)).attributes.snapshot_status).toBe(
      "complete",
    );
  });
});

describe("transitions and deletes", () => {
  it("a start whose response was lost is confirmed by reading the deployment, not repeated", async () => {
    const d = await approvedOnUat();
    await faultOnce("POST", `${DEPLOYS}/start`, { kind: "drop", phase: "after" });
    const started = await world.client.deployments.start(STACK, "uat", d.id);
    expect(started.attributes.state).not.toBe("Approved");
    expect(await calls(world.hooks)).toEqual([`POST ${DEPLOYS}/start`, `GET ${DEPLOYS}/${d.id}`]);
  });

  it("a start that never happened is repeated after the read shows it still Approved", async () => {
    const d = await approvedOnUat();
    await faultOnce("POST", `${DEPLOYS}/start`, { kind: "drop", phase: "before" });
    expect((await world.client.deployments.start(STACK, "uat", d.id)).attributes.state).toBe("Queued");
    expect(await calls(world.hooks)).toEqual([
      `POST ${DEPLOYS}/start`,
      `GET ${DEPLOYS}/${d.id}`,
      `POST ${DEPLOYS}/start`,
    ]);
  });

  it("a delete whose response was lost counts as done when the repeat finds nothing", async () => {
    const snapshots = await world.client.snapshots.list(STACK);
    const id = snapshots[0]?.id ?? "1";
    await world.hooks.clearRequests();
    await faultOnce("DELETE", `${SNAPSHOTS}/${id}`, { kind: "drop", phase: "after" });
    await world.client.snapshots.delete(STACK, id);
    expect(await calls(world.hooks)).toEqual([`DELETE ${SNAPSHOTS}/${id}`, `DELETE ${SNAPSHOTS}/${id}`]);
  });

  it("an unlock is retried like any idempotent call", async () => {
    await world.client.locks.lock(STACK, "uat", "freeze");
    await world.hooks.clearRequests();
    const lockPath = `/svc/project/${STACK}/environment/uat/lock`;
    await faultOnce("DELETE", lockPath, { kind: "status", status: 502 });
    await world.client.locks.unlock(STACK, "uat");
    expect(await calls(world.hooks)).toEqual([`DELETE ${lockPath}`, `DELETE ${lockPath}`]);
  });
});
