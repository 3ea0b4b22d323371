import { request } from "undici";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_SEED_PATH } from "../../../src/emulator";
import { type TestEmulator, basicAuth, startTestEmulator, TEST_USERS } from "../../helpers/emulator";

const UAT_SHA = "8f3c2a1d9e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a";
const OTHER_SHA = "2b7e151628aed2a6abf7158809cf4f3c762e7160";

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ seed: DEFAULT_SEED_PATH });
});
afterAll(() => emu.close());
beforeEach(() => emu.hooks.reset());

async function site(path: string) {
  const res = await request(`${emu.url}/_sites/acme-web/uat${path}`, { reset: true });
  return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
}

async function environmentUrl(): Promise<string> {
  const { stackManager } = TEST_USERS;
  const res = await request(`${emu.url}/svc/project/acme-web/environment/uat`, {
    headers: { authorization: basicAuth(stackManager.email, stackManager.token) },
  });
  const doc = (await res.body.json()) as { data: { attributes: { url: string } } };
  return doc.data.attributes.url;
}

describe("the sites the emulator serves", () => {
  it("gives an environment whose seed url starts with {emulator} the URL of its site on the emulator", async () => {
    expect(await environmentUrl()).toBe(`${emu.url}/_sites/acme-web/uat`);
  });

  it("answers as the build the environment runs, with its sha in a header and the body, without credentials", async () => {
    const page = await site("/health");
    expect(page.status).toBe(200);
    expect(page.headers["x-build-sha"]).toBe(UAT_SHA);
    expect(page.body).toContain(UAT_SHA);
  });

  it("answers as the new build once a deployment changed it", async () => {
    await emu.hooks.handDeploy("acme-web", "uat", OTHER_SHA);
    const page = await site("/");
    expect(page.headers["x-build-sha"]).toBe(OTHER_SHA);
  });

  it("answers a scripted status and body from the next request on, for that build only", async () => {
    await emu.hooks.site("acme-web", "uat", { sha: UAT_SHA, status: 503, body: "maintenance" });
    expect(await site("/")).toMatchObject({ status: 503, body: "maintenance" });
    expect(await site("/")).toMatchObject({ status: 503, body: "maintenance" });
    await emu.hooks.handDeploy("acme-web", "uat", OTHER_SHA);
    expect((await site("/")).status).toBe(200);
  });

  it("resets the connection of a build scripted to, and answers again once cleared", async () => {
    await emu.hooks.site("acme-web", "uat", { reset: true });
    await expect(site("/")).rejects.toThrow();
    await emu.hooks.clearSite("acme-web", "uat");
    expect((await site("/")).status).toBe(200);
  });

  it("serves a body of the size asked for", async () => {
    await emu.hooks.site("acme-web", "uat", { body: "ab", body_bytes: 100_001 });
    expect((await site("/")).body.length).toBe(100_001);
  });

  it("counts the requests a site answered and logs none of them as API requests", async () => {
    await site("/a");
    await site("/b");
    expect(await emu.hooks.siteRequests("acme-web", "uat")).toEqual({ build_sha: UAT_SHA, requests: 2 });
    expect((await emu.hooks.requests()).filter((r) => r.path.startsWith("/_sites"))).toEqual([]);
  });

  it("answers 404 for an environment it does not have", async () => {
    const res = await request(`${emu.url}/_sites/acme-web/nope/`, { reset: true });
    expect(res.statusCode).toBe(404);
    await res.body.text();
  });
});
