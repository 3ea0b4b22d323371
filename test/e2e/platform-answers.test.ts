/**
 * The main paths of the engine against an emulator that answers as the real platform does
 * (`--answers platform`: list items without dates, deployer, links or is_current_build; create
 * responses without deployer and links; a numeric id in the single view). The same paths run
 * against the documented answers in providers.test.ts and providers-crash.test.ts; this is the
 * focused subset that keeps the suite's time reasonable.
 */
import { describe, expect } from "vitest";
import { createClient, type StackwrightClient } from "../../src/client";
import { TEST_USERS } from "../helpers/emulator";
import { setFixture, stateResources, type ProvidersWorld } from "../helpers/providers-e2e";
import { fixtures } from "../helpers/fixtures";

const RELEASE_SHA = "2b7e151628aed2a6abf7158809cf4f3c762e7160";
const HAND_SHA = "0123456789abcdef0123456789abcdef01234567";
const DEPLOYS = "/svc/project/acme-web/environment/uat/deploys";

const test = fixtures({
  providersWorld: {
    stack: "platform",
    user: TEST_USERS.stackManager,
    options: { answers: "platform", program: "hosted" },
  },
}).extend("platformClient", { scope: "file" }, ({ providersWorld }, { onCleanup }): StackwrightClient => {
  const client = createClient({ baseUrl: providersWorld.emulator.url, ...TEST_USERS.stackManager });
  onCleanup(() => client.close());
  return client;
});

describe("the engine against platform-shaped answers", () => {
  let world: ProvidersWorld;
  let client: StackwrightClient;

  test.beforeAll(({ providersWorld, platformClient }) => {
    [world, client] = [providersWorld, platformClient];
  }, 120_000);

  const deploymentIdInState = () => stateResources(world.state(), "Deployment")[0]?.id;

  test("deploys on up and changes nothing on the next up", async () => {
    const up = await world.up();
    expect(up.summary.result).toBe("succeeded");
    expect(up.outputs["state"]?.value).toBe("Completed");
    expect(up.outputs["sha"]?.value).toBe(RELEASE_SHA);
    await world.emulator.hooks.clearRequests();
    const again = await world.up();
    expect(again.summary.resourceChanges).not.toHaveProperty("create");
    expect(again.summary.resourceChanges).not.toHaveProperty("update");
    expect(await world.writes()).toEqual([]);
  }, 180_000);

  test("warns about a hand deployment in preview", async () => {
    await world.emulator.hooks.handDeploy("acme-web", "uat", HAND_SHA, { ref_type: "branch", ref: "hotfix" });
    const preview = await world.preview();
    expect(preview.stdout).toContain("Drift on acme-web/uat");
    expect(preview.stdout).toContain(HAND_SHA);
    // The warning names the hand deployment as far as the reduced list tells: no deployer, no date.
    expect(preview.stdout).toMatch(
      /\(a deployment made by hand: deployment \d+ "Deployed by hand in the dashboard", from branch hotfix\)\./,
    );
    // The reduced list names the hand deployment's ref.
    const listed = await client.deployments.list("acme-web", "uat");
    expect(listed.find((d) => d.attributes.sha === HAND_SHA)?.attributes.ref_name).toBe("hotfix");
  }, 180_000);

  test("creates exactly one deployment when the create's answer is lost", async () => {
    const before = (await client.deployments.list("acme-web", "uat")).length;
    await world.emulator.hooks.fault({
      method: "POST",
      path: DEPLOYS,
      kind: "status",
      status: 504,
      phase: "after",
      count: 1,
    });
    await setFixture(world.stack, { trigger: "after-the-hotfix" });
    await world.emulator.hooks.clearRequests();
    const up = await world.up();
    expect(up.summary.result).toBe("succeeded");
    expect(up.outputs["state"]?.value).toBe("Completed");
    expect((await world.writes()).filter((w) => w === `POST ${DEPLOYS}`)).toHaveLength(1);
    expect(await client.deployments.list("acme-web", "uat")).toHaveLength(before + 1);
  }, 180_000);

  test("adopts an existing deployment by id", async () => {
    const hand = (await world.emulator.hooks.handDeploy("acme-web", "uat", RELEASE_SHA)) as {
      data: { id: string };
    };
    await setFixture(world.stack, { adopt: hand.data.id });
    await world.emulator.hooks.clearRequests();
    const up = await world.up();
    expect(up.summary.result).toBe("succeeded");
    expect(deploymentIdInState()).toBe(hand.data.id);
    expect((await world.writes()).filter((w) => w.startsWith("POST"))).toEqual([]);
  }, 180_000);
});
