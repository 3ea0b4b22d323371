import * as net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CliError, exitCodeOf } from "../../../src/cli/kit/exit-codes";
import { PREFLIGHT_RETRY, preflight, type PreflightInput } from "../../../src/project/preflight";
import { TEST_USERS, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { startForwardProxy } from "../../helpers/forward-proxy";
import { makeTestCa, startTlsFront } from "../../helpers/test-tls";

let emulator: TestEmulator;
beforeAll(async () => {
  emulator = await startTestEmulator();
});
afterAll(async () => {
  await emulator.close();
});

const { stackManager } = TEST_USERS;
const acmeWeb = { name: "acme-web", file: "stacks-config/acme-web.yaml" };

function input(env: Record<string, string>, overrides: Partial<PreflightInput> = {}): PreflightInput {
  return {
    command: "preview",
    stacks: [acmeWeb],
    config: () => undefined,
    env,
    timeouts: { connectMs: 2_000, headersMs: 5_000 },
    ...overrides,
  };
}

function settings(baseUrl: string, token: string = stackManager.token): Record<string, string> {
  return {
    STACKWRIGHT_API_URL: baseUrl,
    STACKWRIGHT_EMAIL: stackManager.email,
    STACKWRIGHT_API_TOKEN: token,
  };
}

/** The one line the user reads, after checking it is a usage error (exit 2) without the token. */
async function refusal(run: Promise<unknown>, token: string = stackManager.token): Promise<string> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CliError);
  expect(exitCodeOf(error)).toBe(2);
  const line = (error as Error).message;
  expect(line.split("\n")).toHaveLength(1);
  expect(line).not.toContain(token);
  return line;
}

/** A port on 127.0.0.1 that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("the preflight before the engine starts", () => {
  it("returns who the API says the caller is when every setting is right", async () => {
    expect(await preflight(input(settings(emulator.url)))).toEqual({ whoami: expect.any(String) });
  });

  it("names every missing setting with its variable and config key", async () => {
    const line = await refusal(preflight(input({ STACKWRIGHT_EMAIL: stackManager.email })));
    expect(line).toBe(
      "stackwright preview: no API settings: set STACKWRIGHT_API_URL (or stack config stackwright:apiUrl), " +
        "STACKWRIGHT_API_TOKEN (or stack config stackwright:apiToken)",
    );
  });

  it("refuses a malformed URL and names the variable to change", async () => {
    const line = await refusal(preflight(input(settings("api.example.com/svc"))));
    expect(line).toBe(
      "stackwright preview: STACKWRIGHT_API_URL is not an absolute URL (expected https://host or https://host/base-path) (change STACKWRIGHT_API_URL)",
    );
  });

  it("refuses an http URL off loopback, before sending the token anywhere", async () => {
    const line = await refusal(preflight(input(settings("http://api.example.com"))));
    expect(line).toBe(
      "stackwright preview: STACKWRIGHT_API_URL uses http to api.example.com, which would send the API token in clear text; use https (change STACKWRIGHT_API_URL)",
    );
  });

  it("names the stack config key when the URL comes from the stack's config", async () => {
    const env = { STACKWRIGHT_EMAIL: stackManager.email, STACKWRIGHT_API_TOKEN: stackManager.token };
    const config = (key: string) => (key === "stackwright:apiUrl" ? "http://api.example.com" : undefined);
    const line = await refusal(preflight(input(env, { config })));
    expect(line).toContain("(change stack config stackwright:apiUrl)");
  });

  it("says the API cannot be reached, and which setting points there", async () => {
    const port = await closedPort();
    const line = await refusal(preflight(input(settings(`http://127.0.0.1:${port}`))));
    expect(line).toBe(
      `stackwright preview: cannot reach the API at http://127.0.0.1:${port} (ECONNREFUSED); check STACKWRIGHT_API_URL and that the API is up`,
    );
  });

  it("says the credentials were refused, naming the token and e-mail variables but never the token", async () => {
    const wrong = "not-the-right-token-4711";
    const line = await refusal(preflight(input(settings(emulator.url, wrong))), wrong);
    expect(line).toBe(
      `stackwright preview: the API at ${emulator.url} refused the credentials of ops@example.com (401); check STACKWRIGHT_API_TOKEN and STACKWRIGHT_EMAIL`,
    );
  });

  it("names each stack of stacks-config/ the user cannot see, with its file", async () => {
    const stacks = [acmeWeb, { name: "acme-intranet", file: "stacks-config/acme-intranet.yaml" }];
    const line = await refusal(preflight(input(settings(emulator.url), { stacks })));
    expect(line).toBe(
      "stackwright preview: ops@example.com has no access to stack 'acme-intranet' (stacks-config/acme-intranet.yaml); " +
        "ask an owner of the stack to add this user to its team, or use the credentials of a user who has access " +
        "(STACKWRIGHT_EMAIL, STACKWRIGHT_API_TOKEN)",
    );
  });

  it("says a URL that is not the API's base is not the API", async () => {
    const line = await refusal(preflight(input(settings(`${emulator.url}/not-the-api`))));
    expect(line).toMatch(
      new RegExp(
        `^stackwright preview: ${emulator.url}/not-the-api does not answer like the Deployment Management API \\(.*\\); check STACKWRIGHT_API_URL$`,
      ),
    );
  });

  /** The API's meta endpoint answers 429 with `Retry-After: 1` for its next `count` requests. */
  const metaAnswers429 = (count: number) =>
    emulator.hooks.fault({
      method: "GET",
      path: "/svc/meta",
      kind: "status",
      status: 429,
      retry_after: 1,
      count,
    });

  it("rides out a run of 429s, waiting as Retry-After says, and goes on", async () => {
    await emulator.hooks.clearRequests();
    await metaAnswers429(3);
    expect(await preflight(input(settings(emulator.url)))).toEqual({ whoami: expect.any(String) });
    const metas = (await emulator.hooks.requests()).filter((r) => r.path === "/svc/meta");
    expect(metas.map((r) => r.status)).toEqual([429, 429, 429, 200]);
    // Each repeat came no sooner than the second Retry-After asked for.
    for (let i = 1; i < metas.length; i++) {
      expect((metas[i]?.at_ms ?? 0) - (metas[i - 1]?.at_ms ?? 0)).toBeGreaterThanOrEqual(1_000);
    }
  });

  it("says 'rate limited' (exit 4, try again later) when the 429s outlast its bound", async () => {
    await emulator.hooks.clearFaults();
    await metaAnswers429(50);
    try {
      const error = await preflight(input(settings(emulator.url))).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(CliError);
      expect(exitCodeOf(error)).toBe(4);
      expect((error as Error).message).toBe(
        `stackwright preview: rate limited: the API at ${emulator.url} answered GET /svc/meta with 429 (Too Many Requests) ` +
          `until the preflight's bound (${PREFLIGHT_RETRY.maxAttempts} attempts within 60 s, Retry-After honoured up to 30 s); ` +
          `try again later, or make fewer requests at once (--api-concurrency)`,
      );
      expect((error as Error).message).not.toContain("check STACKWRIGHT_API_URL");
    } finally {
      await emulator.hooks.clearFaults();
    }
  });

  it("retries a 503 like any idempotent GET", async () => {
    await emulator.hooks.clearRequests();
    await emulator.hooks.fault({ method: "GET", path: "/svc/meta", kind: "status", status: 503, count: 2 });
    expect(await preflight(input(settings(emulator.url)))).toEqual({ whoami: expect.any(String) });
    const metas = (await emulator.hooks.requests()).filter((r) => r.path === "/svc/meta");
    expect(metas.map((r) => r.status)).toEqual([503, 503, 200]);
  });

  it("names the host and NODE_EXTRA_CA_CERTS when the API's certificate is not trusted, at once", async () => {
    const ca = makeTestCa(["api.stackwright.test"]);
    const front = await startTlsFront(ca, Number(new URL(emulator.url).port));
    try {
      const line = await refusal(preflight(input(settings(`https://127.0.0.1:${front.port}`))));
      expect(line).toBe(
        `stackwright preview: TLS to 127.0.0.1:${front.port} failed: its certificate is not signed by a CA this process trusts ` +
          `(UNABLE_TO_VERIFY_LEAF_SIGNATURE); if a private CA signs it, set NODE_EXTRA_CA_CERTS to that CA's PEM file`,
      );
    } finally {
      await front.close();
      ca.remove();
    }
  });

  it("names the proxy it went through, without its credentials, when the API cannot be reached", async () => {
    const port = await closedPort();
    const proxy = await startForwardProxy();
    try {
      const withCredentials = proxy.url.replace("http://", "http://runner:proxy-pass-0815@");
      const line = await refusal(
        preflight(input({ ...settings(`https://127.0.0.1:${port}`), HTTPS_PROXY: withCredentials })),
      );
      expect(line).toBe(
        `stackwright preview: cannot reach the API at https://127.0.0.1:${port} (the proxy answered 502 to CONNECT) ` +
          `(through the proxy ${proxy.url} of HTTPS_PROXY, unless NO_PROXY names the host); check STACKWRIGHT_API_URL and that the API is up`,
      );
      expect(line).not.toContain("proxy-pass-0815");
      expect(proxy.connections(`127.0.0.1:${port}`)).toBeGreaterThan(0);
    } finally {
      await proxy.close();
    }
  });

  it("refuses a malformed proxy variable in one line that names it", async () => {
    const line = await refusal(preflight(input({ ...settings(emulator.url), HTTP_PROXY: "not a url" })));
    expect(line).toBe(
      "stackwright preview: HTTP_PROXY is not a URL (expected http://host:port, optionally http://user:password@host:port)",
    );
  });
});
