/**
 * The HTTP core against undici's MockAgent: cases the emulator cannot produce on demand
 * (pagination, oversized bodies, foreign links, 1.0 error documents, malformed bodies).
 */
import { MockAgent } from "undici";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { StackwrightClient } from "../../../src/client/create-client";
import {
  ConnectionError,
  ConflictError,
  OutcomeUnknownError,
  ResponseTooLargeError,
  UnexpectedResponseError,
  ValidationError,
} from "../../../src/client/errors";
import { capture, testClient } from "../../helpers/client";

const ORIGIN = "https://dash.example.test";
const JSONAPI = { "content-type": "application/vnd.api+json" };

/** A token of this file only; the suite-wide check (test/global-setup.ts) looks for it too. */
const TOKEN = "tok-http-unit";

let agent: MockAgent;
let client: StackwrightClient;

function release(id: string) {
  return { type: "manifestreleases", id, attributes: { sha: `r${id}`, released_unix: 1 } };
}

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  client = testClient({
    baseUrl: ORIGIN,
    email: "ops@example.com",
    token: TOKEN,
    dispatcher: agent,
    maxResponseBytes: 2_048,
    maxPages: 3,
    retry: { baseDelayMs: 0, maxDelayMs: 0 },
  });
});

afterEach(async () => {
  await agent.close();
});

describe("lists", () => {
  it("follows links.next on the same origin and concatenates the pages", async () => {
    const pool = agent.get(ORIGIN);
    pool
      .intercept({ path: "/svc/manifestreleases" })
      .reply(
        200,
        { data: [release("1")], links: { next: `${ORIGIN}/svc/manifestreleases?page=2` } },
        { headers: JSONAPI },
      );
    pool
      .intercept({ path: "/svc/manifestreleases?page=2" })
      .reply(200, { data: [release("2")], links: { next: null } }, { headers: JSONAPI });
    const items = await client.info.manifestReleases();
    expect(items.map((r) => r.id)).toEqual(["1", "2"]);
  });

  it("stops with an error after maxPages instead of buffering an endless list", async () => {
    const pool = agent.get(ORIGIN);
    for (let page = 1; page <= 4; page++) {
      const path = page === 1 ? "/svc/manifestreleases" : `/svc/manifestreleases?page=${page}`;
      pool.intercept({ path }).reply(200, {
        data: [release(String(page))],
        links: { next: `/svc/manifestreleases?page=${page + 1}` },
      });
    }
    await expect(client.info.manifestReleases()).rejects.toThrow(ResponseTooLargeError);
  });

  it("refuses a next link that points at another host, so credentials never travel there", async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: "/svc/manifestreleases" })
      .reply(200, { data: [], links: { next: "https://evil.test/svc/x" } });
    const error = await client.info.manifestReleases().catch(capture);
    expect(UnexpectedResponseError.isInstance(error)).toBe(true);
    expect((error as UnexpectedResponseError).jsonPath).toBe("$.links.next");
  });
});

describe("bodies", () => {
  it("refuses a body whose Content-Length exceeds the byte cap", async () => {
    agent.get(ORIGIN).intercept({ path: "/svc/meta" }).reply(200, "x".repeat(4_096));
    const error = await client.info.whoami().catch(capture);
    expect(ResponseTooLargeError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("exceeds 2048 bytes");
  });

  it("names the JSON path that did not match the schema", async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: "/svc/meta" })
      .reply(200, { meta: { whoami: 5, now: "2026-11-22 06:00:00" } });
    const error = await client.info.whoami().catch(capture);
    expect(UnexpectedResponseError.isInstance(error)).toBe(true);
    expect((error as UnexpectedResponseError).jsonPath).toBe("$.meta.whoami");
    expect((error as Error).message).toContain("at $.meta.whoami");
  });

  it("reports a body that is not JSON", async () => {
    agent.get(ORIGIN).intercept({ path: "/svc/meta" }).reply(200, "<html>");
    await expect(client.info.whoami()).rejects.toThrow("not JSON");
  });

  it("normalises numeric ids to strings", async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: "/svc/project/acme/git/fetches/7" })
      .reply(200, {
        data: {
          type: "fetches",
          id: 7,
          attributes: { status: "n/a" },
          links: { self: `${ORIGIN}/svc/project/acme/git/fetches/7` },
        },
      });
    expect((await client.fetches.get("acme", 7)).id).toBe("7");
  });
});

describe("logging", () => {
  it("a logger that throws does not fail the call", async () => {
    const noisy = testClient({
      baseUrl: ORIGIN,
      email: "ops@example.com",
      token: TOKEN,
      dispatcher: agent,
      logger: () => {
        throw new Error("log sink down");
      },
    });
    agent
      .get(ORIGIN)
      .intercept({ path: "/svc/meta" })
      .reply(200, { meta: { whoami: "ops", now: "2026-11-22 06:00:00" } });
    expect((await noisy.info.whoami()).whoami).toBe("ops");
  });
});

describe("error documents", () => {
  it("understands a 1.0 error document with a numeric status", async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: "/svc/project/acme/environment/uat/lock", method: "POST" })
      .reply(409, { errors: [{ status: 409, title: "Environment locked: freeze" }] });
    const error = await client.locks.lock("acme", "uat", "x").catch(capture);
    expect(ConflictError.isInstance(error)).toBe(true);
    expect((error as ConflictError).titles).toEqual(["Environment locked: freeze"]);
  });

  it("understands a 2.0 error document with a string status", async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: "/svc/project/acme/environment/uat/deploys/start", method: "POST" })
      .reply(400, { errors: [{ status: "400", title: "Bad transition" }] });
    const error = await client.deployments.start("acme", "uat", 3).catch(capture);
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as ValidationError).titles).toEqual(["Bad transition"]);
  });

  it("keeps the request id of a failed response", async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: "/svc/meta" })
      .reply(404, { errors: [{ status: "404", title: "x" }] }, { headers: { "x-request-id": "req-9" } });
    await expect(client.info.whoami()).rejects.toMatchObject({ requestId: "req-9", status: 404 });
  });
});

describe("creates", () => {
  const body = { ref_type: "branch", ref: "main", title: "deploy sw:abcdef12" } as const;
  const path = "/svc/project/acme/environment/uat/deploys";

  it("does not repeat a create whose connection broke, and says the outcome is unknown", async () => {
    agent
      .get(ORIGIN)
      .intercept({ path, method: "POST" })
      .replyWithError(Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }));
    const error = await client.deployments.create("acme", "uat", body).catch(capture);
    expect(OutcomeUnknownError.isInstance(error)).toBe(true);
    expect(ConnectionError.isInstance((error as OutcomeUnknownError).reason)).toBe(true);
    expect(agent.pendingInterceptors()).toHaveLength(0);
  });

  it("refuses a marker that is not in the title or summary", async () => {
    await expect(
      client.deployments.create("acme", "uat", { ...body, title: "t" }, { marker: "sw:abcdef12" }),
    ).rejects.toThrow("[marker] must appear in title or summary");
  });

  it("refuses an invalid body before sending", async () => {
    await expect(
      client.deployments.create("acme", "uat", { ref_type: "promote_from_uat", ref: "main" }),
    ).rejects.toThrow("[input.ref]");
  });
});
