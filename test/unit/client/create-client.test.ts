import { inspect } from "node:util";
import { MockAgent } from "undici";
import { describe, expect, it } from "vitest";
import { Credentials } from "../../../src/client/auth";
import { createClient, isLoopbackHost, type ClientOptions } from "../../../src/client/create-client";
import { clientOptionsFromEnv } from "../../../src/client/env";
import { InvalidOptionsError } from "../../../src/client/errors";
import { capture, recordCredentials } from "../../helpers/client";

const TOKEN = "tok-unit-3c9f1e";
const base: ClientOptions = { baseUrl: "https://dash.example.test", email: "ops@example.com", token: TOKEN };
recordCredentials(base.email, TOKEN);

function optionsError(options: unknown): InvalidOptionsError {
  try {
    createClient(options as ClientOptions);
  } catch (error) {
    if (InvalidOptionsError.isInstance(error)) return capture(error);
    throw error;
  }
  throw new Error("expected InvalidOptionsError");
}

/**
 * Asks `whoami` through a client of `baseUrl` whose requests go to a MockAgent that answers only
 * that origin (no network), so the answer proves where the request went.
 */
async function whoamiOver(baseUrl: string, options: Partial<ClientOptions> = {}): Promise<string> {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const origin = new URL(baseUrl).origin;
  agent
    .get(origin)
    .intercept({ path: "/svc/meta" })
    .reply(
      200,
      { meta: { whoami: `ops at ${origin}`, now: "2026-11-23 10:00:00" } },
      { headers: { "content-type": "application/vnd.api+json" } },
    );
  const client = createClient({ ...base, ...options, baseUrl, dispatcher: agent });
  try {
    return (await client.info.whoami()).whoami ?? "";
  } finally {
    await client.close();
    await agent.close();
  }
}

describe("createClient", () => {
  it("accepts https and merges overrides over the defaults", async () => {
    const client = createClient({ ...base, retry: { maxAttempts: 2 }, poll: { intervalMs: 5 } });
    expect(client.settings.retry.maxAttempts).toBe(2);
    expect(client.settings.retry.baseDelayMs).toBe(250);
    expect(client.settings.poll.intervalMs).toBe(5);
    await client.close();
  });

  it("rejects an unknown option and lists the allowed ones", () => {
    const error = optionsError({ ...base, retries: 3 });
    expect(error.message).toContain("unknown option [retries]");
    expect(error.message).toContain("allowed: baseUrl, email, token, allowInsecureHttp");
  });

  it("rejects an unknown nested option and lists the allowed nested ones", () => {
    expect(optionsError({ ...base, retry: { attempts: 3 } }).message).toContain(
      "unknown option [retry.attempts]; allowed: maxAttempts, baseDelayMs",
    );
  });

  it("names the property of an invalid value without echoing the value", () => {
    const error = optionsError({ ...base, token: 12345, maxConnections: 0 });
    expect(error.message).toContain("[token]");
    expect(error.message).toContain("[maxConnections]");
    expect(error.message).not.toContain("12345");
  });

  it("refuses plain http to a non-loopback host unless allowInsecureHttp is set", async () => {
    expect(optionsError({ ...base, baseUrl: "http://dash.example.test" }).message).toContain(
      "allowInsecureHttp",
    );
    expect(await whoamiOver("http://dash.example.test", { allowInsecureHttp: true })).toBe(
      "ops at http://dash.example.test",
    );
  });

  it("allows plain http to loopback, sending the request there", async () => {
    for (const url of ["http://127.0.0.1:9", "http://localhost:9", "http://[::1]:9"]) {
      expect(await whoamiOver(url)).toBe(`ops at ${url}`);
    }
  });

  it("refuses credentials, queries and other schemes in the base URL", () => {
    expect(optionsError({ ...base, baseUrl: "https://a:b@dash.example.test" }).message).toContain(
      "credentials",
    );
    expect(optionsError({ ...base, baseUrl: "https://dash.example.test/?x=1" }).message).toContain("query");
    expect(optionsError({ ...base, baseUrl: "ftp://dash.example.test" }).message).toContain("https");
    expect(optionsError({ ...base, baseUrl: "not a url" }).message).toContain("absolute URL");
  });

  it("keeps the token out of the client's own serialization", async () => {
    const client = createClient(base);
    expect(JSON.stringify(client.settings)).not.toContain(TOKEN);
    expect(inspect(client, { depth: 10, showHidden: true })).not.toContain(TOKEN);
    expect(inspect(client, { depth: 10, showHidden: true })).not.toContain(
      Buffer.from(`ops@example.com:${TOKEN}`).toString("base64"),
    );
    await client.close();
  });
});

describe("isLoopbackHost", () => {
  it("recognises loopback names and addresses only", () => {
    expect(["localhost", "127.0.0.1", "127.1.2.3", "[::1]", "::1"].every(isLoopbackHost)).toBe(true);
    expect(["example.com", "10.0.0.1", "127.0.0.1.nip.io", "localhost.evil"].some(isLoopbackHost)).toBe(
      false,
    );
  });
});

describe("Credentials", () => {
  it("builds a Basic header but prints as redacted", () => {
    const credentials = new Credentials("ops@example.com", TOKEN);
    expect(credentials.authorization()).toBe(
      `Basic ${Buffer.from(`ops@example.com:${TOKEN}`).toString("base64")}`,
    );
    expect(JSON.stringify(credentials)).toBe('{"email":"ops@example.com","token":"[redacted]"}');
    expect(inspect(credentials)).not.toContain(TOKEN);
    expect(Object.keys(credentials)).toEqual(["email"]);
  });
});

describe("clientOptionsFromEnv", () => {
  it("reads the three variables", () => {
    expect(
      clientOptionsFromEnv({
        STACKWRIGHT_API_URL: "https://x",
        STACKWRIGHT_EMAIL: "a@b",
        STACKWRIGHT_API_TOKEN: TOKEN,
      }),
    ).toEqual({ baseUrl: "https://x", email: "a@b", token: TOKEN });
  });
  it("names the missing ones", () => {
    expect(() => clientOptionsFromEnv({ STACKWRIGHT_API_URL: "https://x" })).toThrow(
      "Missing environment variables: STACKWRIGHT_EMAIL, STACKWRIGHT_API_TOKEN",
    );
  });
});
