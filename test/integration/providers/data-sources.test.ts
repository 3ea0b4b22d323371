import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestEmulator, useDemoCredentials, type TestEmulator } from "../../helpers/emulator";
import {
  fetchConfiguration,
  fetchDeployments,
  fetchDomains,
  fetchEnvironment,
  fetchManifestReleases,
  fetchModules,
  fetchRecord,
  fetchSnapshots,
  fetchStack,
  fetchStacks,
  fetchTeam,
  fetchWhitelist,
  fetchWhoAmI,
  resetDataCache,
} from "../../../providers/data";

let emulator: TestEmulator;
let restoreEnv: (() => void) | undefined;

beforeAll(async () => {
  emulator = await startTestEmulator();
  restoreEnv = useDemoCredentials(emulator.url);
});
afterAll(async () => {
  restoreEnv?.();
  await emulator?.close();
});
beforeEach(async () => {
  resetDataCache();
  await emulator.hooks.reset();
  await emulator.hooks.clearRequests();
});

async function apiRequests(): Promise<string[]> {
  return (await emulator.hooks.requests())
    .filter((r) => !r.path.startsWith("/_emulator"))
    .map((r) => `${r.method} ${r.path}`);
}

describe("data sources against the emulator", () => {
  it("answer every read of the API", async () => {
    const env = { stack: "acme-web", environment: "uat" };
    expect((await fetchWhoAmI()).whoami).toBe("ops@example.com");
    expect((await fetchStacks()).map((s) => s.id)).toContain("acme-web");
    expect((await fetchStack({ stack: "acme-web" })).attributes.name).toBe("acme-web");
    expect((await fetchTeam({ stack: "acme-web" })).length).toBeGreaterThan(0);
    expect((await fetchEnvironment(env)).attributes.build_sha).toMatch(/^[0-9a-f]{40}$/);
    expect((await fetchModules({ ...env, filters: ["silverstripe/cms"] })).map((m) => m.id)).toEqual([
      "silverstripe/cms",
    ]);
    expect((await fetchDomains(env)).map((d) => d.id)).toEqual(["uat.acme.example.com"]);
    expect((await fetchConfiguration(env))[0]?.attributes.configuration?.["APP_ENV"]).toBe("uat");
    expect((await fetchWhitelist(env)).attributes.enabled).toBe(true);
    expect((await fetchManifestReleases()).length).toBe(2);
    expect(
      (await fetchDeployments({ ...env, filters: { state: "Completed", title: "Initial UAT build" } }))
        .length,
    ).toBe(1);
    expect((await fetchSnapshots({ stack: "acme-web" })).length).toBe(3);
    expect((await fetchRecord({ class_name: "Page", record_id: 12 })).ClassName).toBe("Page");
  });

  it("make one request per distinct call in a run", async () => {
    const env = { stack: "acme-web", environment: "uat" };
    await Promise.all([
      fetchEnvironment(env),
      fetchEnvironment({ environment: "uat", stack: "acme-web" }),
      fetchEnvironment(env),
    ]);
    await fetchEnvironment(env);
    await fetchEnvironment({ stack: "acme-web", environment: "prod" });
    await fetchDeployments({ ...env, filters: { state: "Completed" } });
    await fetchDeployments({ ...env, filters: { state: "Completed" } });
    await fetchDeployments({ ...env, filters: { state: "Failed" } });
    expect(await apiRequests()).toEqual([
      "GET /svc/project/acme-web/environment/uat",
      "GET /svc/project/acme-web/environment/prod",
      "GET /svc/project/acme-web/environment/uat/deploys?state=Completed",
      "GET /svc/project/acme-web/environment/uat/deploys?state=Failed",
    ]);
  });
});
