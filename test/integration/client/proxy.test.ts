/**
 * The client through a real forward proxy on 127.0.0.1 (test/helpers/forward-proxy.ts): the
 * proxy variables of the client's environment, NO_PROXY's forms, STACKWRIGHT_PROXY for the API
 * alone, proxy credentials that never show, one pool shared by the clients of a process, and a
 * certificate the process does not trust. `api.stackwright.test` and `files.stackwright.test`
 * resolve only through the proxy, so a request that bypassed it fails.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConnectionError, createClient, type ClientOptions } from "../../../src/client";
import { TEST_USERS, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { startForwardProxy, type ForwardProxy } from "../../helpers/forward-proxy";
import { makeTestCa, startTlsFront, type TestCa, type TlsFront } from "../../helpers/test-tls";

const { stackManager } = TEST_USERS;
const hosts: Record<string, string> = { "api.stackwright.test": "127.0.0.1" };
let emulator: TestEmulator;
let port = 0;
let proxy: ForwardProxy;
let dir = "";

beforeAll(async () => {
  // Absolute links (a snapshot's download_link) name a host other than the API's: port 80 of
  // files.stackwright.test, which the proxies send to the emulator.
  emulator = await startTestEmulator({ publicUrl: "http://files.stackwright.test" });
  port = Number(new URL(emulator.url).port);
  hosts["files.stackwright.test:80"] = `127.0.0.1:${port}`;
  proxy = await startForwardProxy({ hosts });
  dir = mkdtempSync(join(tmpdir(), "sw-proxy-"));
});
afterAll(async () => {
  await emulator?.close();
  await proxy?.close();
  rmSync(dir, { recursive: true, force: true });
});

function client(baseUrl: string, environment: Record<string, string>, extra: Partial<ClientOptions> = {}) {
  return createClient({
    baseUrl,
    email: stackManager.email,
    token: stackManager.token,
    allowInsecureHttp: true,
    environment,
    retry: { maxAttempts: 1 },
    ...extra,
  });
}

async function failure(run: Promise<unknown>): Promise<Error> {
  return run.then(
    () => {
      throw new Error("expected a failure");
    },
    (e: unknown) => e as Error,
  );
}

describe("the client behind a forward proxy", () => {
  it("reaches an API that only the proxy can resolve, through HTTP_PROXY", async () => {
    const before = proxy.connections(`api.stackwright.test:${port}`);
    const c = client(`http://api.stackwright.test:${port}`, { HTTP_PROXY: proxy.url });
    try {
      expect((await c.info.whoami()).whoami).toBeTruthy();
    } finally {
      await c.close();
    }
    expect(proxy.connections(`api.stackwright.test:${port}`)).toBeGreaterThan(before);
  });

  it("reads the lower-case variables too", async () => {
    const before = proxy.connections();
    const c = client(`http://api.stackwright.test:${port}`, { http_proxy: proxy.url });
    try {
      await c.info.whoami();
    } finally {
      await c.close();
    }
    expect(proxy.connections()).toBeGreaterThan(before);
  });

  it("goes direct to the hosts NO_PROXY names, in each usual form", async () => {
    const forms = ["127.0.0.1", `127.0.0.1:${port}`, "*", "localhost,127.0.0.1", ".0.0.1"];
    for (const noProxy of forms) {
      const before = proxy.connections();
      for (const env of [{ NO_PROXY: noProxy }, { no_proxy: noProxy }]) {
        const c = client(`http://127.0.0.1:${port}`, { HTTP_PROXY: proxy.url, ...env });
        try {
          await c.info.whoami();
        } finally {
          await c.close();
        }
      }
      expect(proxy.connections(), `NO_PROXY=${noProxy}`).toBe(before);
    }
    // A NO_PROXY entry for another port or host leaves the proxy in use.
    const before = proxy.connections();
    const c = client(`http://127.0.0.1:${port}`, {
      HTTP_PROXY: proxy.url,
      NO_PROXY: `127.0.0.1:1,example.com`,
    });
    try {
      await c.info.whoami();
    } finally {
      await c.close();
    }
    expect(proxy.connections(`127.0.0.1:${port}`)).toBeGreaterThan(0);
    expect(proxy.connections()).toBeGreaterThan(before);
  });

  it("downloads a snapshot whose link is on another host through the same proxy", async () => {
    const c = client(`http://api.stackwright.test:${port}`, { HTTP_PROXY: proxy.url });
    try {
      const created = await c.snapshots.create("acme-web", { environment: "uat", mode: "db" });
      if (created.kind !== "transfer") throw new Error("expected a transfer");
      const transfer = await c.waitForTransfer("acme-web", created.transfer.id);
      const id = transfer.relationships?.snapshot?.data?.id ?? "";
      const before = proxy.connections("files.stackwright.test:80");
      const file = join(dir, "snapshot.sspak");
      const result = await c.snapshots.download("acme-web", id, { to: file });
      expect(statSync(file).size).toBe(result.bytes);
      expect(proxy.connections("files.stackwright.test:80")).toBeGreaterThan(before);
    } finally {
      await c.close();
    }
  });

  it("sends the API alone through STACKWRIGHT_PROXY, and other hosts through the environment's proxy", async () => {
    const apiProxy = await startForwardProxy({ hosts });
    const c = client(`http://api.stackwright.test:${port}`, {
      HTTP_PROXY: proxy.url,
      STACKWRIGHT_PROXY: apiProxy.url,
    });
    try {
      const created = await c.snapshots.create("acme-web", { environment: "uat", mode: "db" });
      if (created.kind !== "transfer") throw new Error("expected a transfer");
      const transfer = await c.waitForTransfer("acme-web", created.transfer.id);
      const id = transfer.relationships?.snapshot?.data?.id ?? "";
      const files = proxy.connections("files.stackwright.test:80");
      await c.snapshots.download("acme-web", id, { to: join(dir, "other.sspak") });
      expect(apiProxy.connections(`api.stackwright.test:${port}`)).toBeGreaterThan(0);
      expect(apiProxy.connections("files.stackwright.test:80")).toBe(0);
      expect(proxy.connections("files.stackwright.test:80")).toBeGreaterThan(files);
    } finally {
      await c.close();
      await apiProxy.close();
    }
  });

  it("authenticates to a proxy that asks for credentials, and never shows them", async () => {
    const password = "proxy-secret-4711";
    const guarded = await startForwardProxy({ hosts, credentials: { user: "runner", password } });
    try {
      const c = client(`http://api.stackwright.test:${port}`, { HTTP_PROXY: guarded.urlWithCredentials });
      try {
        await c.info.whoami();
      } finally {
        await c.close();
      }
      expect(guarded.connections()).toBeGreaterThan(0);
      const wrong = guarded.urlWithCredentials.replace(password, "wrong-secret-0815");
      const bad = client(`http://api.stackwright.test:${port}`, { HTTP_PROXY: wrong });
      const error = await failure(bad.info.whoami()).finally(() => bad.close());
      expect(guarded.refused()).toBeGreaterThan(0);
      for (const text of [error.message, JSON.stringify(error), String(error.stack)]) {
        expect(text).not.toContain("wrong-secret-0815");
        expect(text).not.toContain(password);
      }
    } finally {
      await guarded.close();
    }
  });

  it("holds the requests in flight to the API within one pool shared by the process's clients", async () => {
    const counter = await startForwardProxy({ hosts });
    const env = { HTTP_PROXY: counter.url, STACKWRIGHT_API_CONCURRENCY: "2" };
    const clients = Array.from({ length: 4 }, () => client(`http://api.stackwright.test:${port}`, env));
    try {
      await Promise.all(clients.flatMap((c) => Array.from({ length: 5 }, () => c.stacks.list())));
      // One tunnel per connection of the pool: 2 for 20 requests of 4 clients.
      expect(counter.connections()).toBe(2);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
      await counter.close();
    }
  });
});

describe("the client and a certificate it does not trust", () => {
  let ca: TestCa;
  let front: TlsFront;
  beforeAll(async () => {
    ca = makeTestCa(["api.stackwright.test"]);
    front = await startTlsFront(ca, port);
  });
  afterAll(async () => {
    await front?.close();
    ca?.remove();
  });

  it("fails at once with one line naming the host and NODE_EXTRA_CA_CERTS", async () => {
    const before = proxy.connections(`api.stackwright.test:${front.port}`);
    const c = client(
      `https://api.stackwright.test:${front.port}`,
      { HTTPS_PROXY: proxy.url },
      {
        retry: { maxAttempts: 4 },
      },
    );
    const error = await failure(c.info.whoami()).finally(() => c.close());
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.message).toBe(
      `GET /svc/meta: TLS to api.stackwright.test:${front.port} failed: its certificate is not signed by a CA ` +
        `this process trusts (UNABLE_TO_VERIFY_LEAF_SIGNATURE); if a private CA signs it, set NODE_EXTRA_CA_CERTS to that CA's PEM file`,
    );
    // Not retried: one tunnel.
    expect(proxy.connections(`api.stackwright.test:${front.port}`)).toBe(before + 1);
  });
});
