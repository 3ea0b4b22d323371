import type { EngineEvent } from "@pulumi/pulumi/automation";
import { describe, expect } from "vitest";
import { setFixture, stateResources, type ProvidersWorld } from "../helpers/providers-e2e";
import { fixtures } from "../helpers/fixtures";

const AUTH = `Basic ${Buffer.from("ops@example.com:demo-token").toString("base64")}`;

/** The platform's log of a deployment, as its log endpoint gives it. */
async function deploymentLog(world: ProvidersWorld, id: string): Promise<string[]> {
  const res = await fetch(`${world.emulator.url}/svc/project/acme-web/environment/uat/deploys/log/${id}`, {
    headers: { authorization: AUTH },
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { message: string[] };
  return body.message;
}

/** The messages of the update's diagnostic events (what the engine shows the user). */
function diagnostics(events: EngineEvent[]): string[] {
  return events.flatMap((e) =>
    e.diagnosticEvent === undefined ? [] : [e.diagnosticEvent.message.trimEnd()],
  );
}

const test = fixtures({ providersWorld: { stack: "logs", options: { program: "hosted" } } });

// The platform's log reaches the operator's terminal through the real engine: provider output
// becomes the update's diagnostics, each log line once, labelled with what it belongs to.
describe("deployment logs in the update's output", () => {
  let world: ProvidersWorld;

  test.beforeAll(async ({ providersWorld }) => {
    world = providersWorld;
  }, 120_000);

  test("shows each line of the deployment's log once while up waits for it", async () => {
    const events: EngineEvent[] = [];
    const up = await world.up({ onEvent: (e) => events.push(e) });
    expect(up.summary.result).toBe("succeeded");
    const id = String(stateResources(world.state(), "Deployment")[0]?.id);
    const log = await deploymentLog(world, id);
    expect(log.length).toBeGreaterThan(0);
    const prefix = `[stackwright] deployment ${id} on acme-web/uat | `;
    const shown = diagnostics(events)
      .flatMap((m) => m.split("\n"))
      .filter((l) => l.startsWith(prefix))
      .map((l) => l.slice(prefix.length));
    expect(shown).toEqual(log);
    expect(up.stdout).toContain(`${prefix}${log.at(-1) ?? ""}`);
  }, 120_000);

  test("ends a failed deployment's error with the last lines of its log", async () => {
    await world.emulator.hooks.nextOutcome("acme-web", "uat", "fail", "composer install ran out of memory");
    await setFixture(world.stack, { trigger: "fail-with-log" });
    const message = await world.up().then(
      () => "",
      (e: unknown) => String(e),
    );
    expect(message).toMatch(/ended Failed/);
    const id = String(stateResources(world.state(), "Deployment")[0]?.id);
    const log = await deploymentLog(world, id);
    const tail = log.slice(-20);
    expect(message).toContain(`Last ${tail.length} lines of its log:`);
    for (const line of tail) expect(message).toContain(`  ${line}`);
    expect(message).toContain("composer install ran out of memory");
  }, 120_000);

  test("ends a failed snapshot's error with the reason from its transfer's log", async () => {
    await setFixture(world.stack, { trigger: "after-failure" });
    await world.emulator.hooks.nextTransferFailure("acme-web", "uat", "disk full on the backup volume");
    await setFixture(world.stack, { snapshot: "true" });
    const message = await world.up().then(
      () => "",
      (e: unknown) => String(e),
    );
    expect(message).toContain("Snapshot of acme-web/uat failed");
    expect(message).toMatch(/Last \d+ lines of its log:/);
    expect(message).toContain("disk full on the backup volume");
  }, 120_000);
});
