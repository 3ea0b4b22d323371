import * as net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CliError, exitCodeOf } from "../../../src/cli/exit-codes";
import { preflight, type PreflightInput } from "../../../src/cli/preflight";
import { TEST_USERS, startTestEmulator, type TestEmulator } from "../../helpers/emulator";

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
});
