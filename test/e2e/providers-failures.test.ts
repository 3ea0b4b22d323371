import { describe, expect } from "vitest";
import { TEST_USERS } from "../helpers/emulator";
import { setCredentials, setFixture, stateResources, type ProvidersWorld } from "../helpers/providers-e2e";
import { fixtures } from "../helpers/fixtures";

const AUTH = `Basic ${Buffer.from("ops@example.com:demo-token").toString("base64")}`;

/** The message of a failed Automation API call (stdout and stderr of the CLI included). */
async function failure(run: Promise<unknown>): Promise<string> {
  try {
    await run;
  } catch (error) {
    return String(error);
  }
  throw new Error("expected the update to fail");
}

const test = fixtures({ providersWorld: { stack: "failures", options: { program: "hosted" } } });

// Each failure must end with a clear message and a state the next run continues from.
describe("provider failure paths through the Pulumi engine", () => {
  let world: ProvidersWorld;

  test.beforeAll(async ({ providersWorld }) => {
    world = providersWorld;
    const up = await world.up();
    expect(up.summary.result).toBe("succeeded");
  }, 120_000);

  test("fails a failed deployment with its title and link, records it, and deploys again next run", async () => {
    await world.emulator.hooks.nextOutcome("acme-web", "uat", "fail");
    await setFixture(world.stack, { trigger: "fail-once" });
    const message = await failure(world.up());
    expect(message).toMatch(/Deployment \d+ "Release 2026-11" on acme-web\/uat ended Failed/);
    expect(message).toMatch(
      /http:\/\/127\.0\.0\.1:\d+\/svc\/project\/acme-web\/environment\/uat\/deploys\/\d+/,
    );
    const [recorded] = stateResources(world.state(), "Deployment");
    expect(recorded?.outputs["state"]).toBe("Failed");
    const failedId = recorded?.id;
    expect(failedId).toMatch(/^\d+$/);

    const preview = await world.preview();
    expect(preview.changeSummary).toMatchObject({ replace: 1 });
    const up = await world.up();
    expect(up.summary.result).toBe("succeeded");
    expect(up.outputs["state"]?.value).toBe("Completed");
    expect(up.outputs["deploymentId"]?.value).not.toBe(failedId);
  }, 180_000);

  test("names the lock when the environment is locked, and deploys once it is unlocked", async () => {
    const lockUrl = `${world.emulator.url}/svc/project/acme-web/environment/uat/lock`;
    const headers = { authorization: AUTH, "content-type": "application/vnd.api+json" };
    const locked = await fetch(lockUrl, {
      method: "POST",
      headers,
      body: JSON.stringify({ lock_message: "Frozen for the audit" }),
    });
    expect(locked.status).toBe(202);
    await setFixture(world.stack, { trigger: "while-locked" });
    const message = await failure(world.up());
    expect(message).toContain("Frozen for the audit");
    expect(message).toContain("Deployment on acme-web/uat could not be created");

    expect((await fetch(lockUrl, { method: "DELETE", headers })).status).toBe(204);
    const up = await world.up();
    expect(up.summary.result).toBe("succeeded");
    expect(up.outputs["state"]?.value).toBe("Completed");
  }, 180_000);

  test("reports a permission error clearly and continues with the right credentials", async () => {
    await setCredentials(world.stack, TEST_USERS.teamMember);
    await setFixture(world.stack, { environment: "prod", trigger: "" });
    const message = await failure(world.up());
    expect(message).toContain("Deployment on acme-web/prod could not be created");
    expect(message).toContain("STACKWRIGHT_PERMISSION");
    expect(message).not.toContain(TEST_USERS.teamMember.token);

    await setCredentials(world.stack, TEST_USERS.stackManager);
    const up = await world.up();
    expect(up.summary.result).toBe("succeeded");
    expect(up.outputs["state"]?.value).toBe("Completed");
  }, 180_000);

  test("times out with the bound in the message and finishes the wait on the next run", async () => {
    await world.emulator.hooks.fault({
      method: "GET",
      path: "/svc/project/acme-web/environment/prod/deploys/*",
      kind: "latency",
      latency_ms: 4000,
      count: 1,
    });
    await setFixture(world.stack, { trigger: "slow", timeout: "1" });
    const message = await failure(world.up());
    expect(message).toMatch(/did not finish within 1 s/);
    const [recorded] = stateResources(world.state(), "Deployment");
    expect(recorded?.id).toMatch(/^\d+$/);

    await setFixture(world.stack, { timeout: "60" });
    await world.emulator.hooks.clearRequests();
    const up = await world.up();
    expect(up.summary.result).toBe("succeeded");
    expect(up.outputs["deploymentId"]?.value).toBe(recorded?.id);
    expect((await world.writes()).filter((w) => w.startsWith("POST"))).toEqual([]);
  }, 180_000);
});
