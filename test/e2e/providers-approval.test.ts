import { describe, expect } from "vitest";
import { setFixture, stateResources, type ProvidersWorld } from "../helpers/providers-e2e";
import { fixtures } from "../helpers/fixtures";

const test = fixtures({ providersWorld: { stack: "approval", options: { program: "hosted" } } });

// approval: request — a person approves in the dashboard; `pulumi up --refresh` then starts it.
describe("a requested deployment through the Pulumi engine", () => {
  let world: ProvidersWorld;

  test.beforeAll(async ({ providersWorld }) => {
    world = providersWorld;
    await setFixture(world.stack, { environment: "prod", approval: "request", ref: "release/2026-11" });
  }, 120_000);

  test("refuses invalid inputs in preview, naming the property, before any request", async () => {
    await setFixture(world.stack, { approval: "whenever" });
    await world.emulator.hooks.clearRequests();
    const message = await world.preview().then(
      () => "",
      (e: unknown) => String(e),
    );
    expect(message).toContain("[approval]");
    expect(await world.writes()).toEqual([]);
    await setFixture(world.stack, { approval: "request" });
  }, 120_000);

  test("records the deployment as Submitted and waits for a person", async () => {
    const up = await world.up();
    expect(up.summary.result).toBe("succeeded");
    expect(up.outputs["state"]?.value).toBe("Submitted");
    await world.emulator.hooks.clearRequests();
    const again = await world.up();
    // With the engine's output and result, so that a failure says what the engine did and why.
    expect(again.summary.resourceChanges, `${again.summary.result}:\n${again.stdout}`).toEqual({ same: 2 });
    expect(await world.writes()).toEqual([]);
  }, 120_000);

  test("starts it on the next up --refresh once it was approved", async () => {
    const [recorded] = stateResources(world.state(), "Deployment");
    await world.emulator.hooks.approve("acme-web", "prod", String(recorded?.id));
    await world.emulator.hooks.clearRequests();
    const up = await world.up({ refresh: true });
    expect(up.summary.result).toBe("succeeded");
    expect(up.outputs["state"]?.value).toBe("Completed");
    expect(up.outputs["deploymentId"]?.value).toBe(recorded?.id);
    expect(await world.writes()).toEqual(["POST /svc/project/acme-web/environment/prod/deploys/start"]);
    // Provider stdout reaches the update's output: the progress lines of the wait.
    expect(up.stdout).toContain(
      `[stackwright] deployment ${String(recorded?.id)} on acme-web/prod is approved; starting it`,
    );
  }, 120_000);
});
