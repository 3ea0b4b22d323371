import { spawn } from "node:child_process";
import * as path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import {
  setFixture,
  startProvidersWorld,
  stateResources,
  type ProvidersWorld,
} from "../helpers/providers-e2e";
import { killTree } from "../helpers/stackwright-process";

const CREATE_DEPLOYMENT = "POST /svc/project/acme-web/environment/uat/deploys";
const CREATE_SNAPSHOT = "POST /svc/project/acme-web/snapshots";
const AUTH = `Basic ${Buffer.from("ops@example.com:demo-token").toString("base64")}`;

/**
 * Runs `pulumi up` in its own process group, waits (bounded) until every request of `creates`
 * reached the emulator, then SIGKILLs the whole tree (CLI, language host, provider plugin) and
 * removes the lock the killed update left, as an operator would with `pulumi cancel`.
 */
async function upKilledAfter(world: ProvidersWorld, creates: readonly string[]): Promise<void> {
  const child = spawn(
    path.join(world.project.dir, ".tools", "bin", "pulumi"),
    ["up", "--yes", "--skip-preview", "--non-interactive", "--stack", world.stackName],
    { cwd: world.project.dir, env: { ...world.project.env }, detached: true, stdio: "ignore" },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    let seen = false;
    for (let i = 0; i < 600 && !seen; i++) {
      const writes = await world.writes();
      seen = creates.every((c) => writes.includes(c));
      if (!seen) await new Promise((r) => setTimeout(r, 100));
    }
    expect(seen).toBe(true);
  } finally {
    if (child.pid !== undefined) killTree(child.pid);
    await exited;
  }
  await fetch(`${world.emulator.url}/_emulator/faults`, { method: "DELETE" });
  await world.stack.cancel();
}

/** Makes the first poll after a create hang, so the kill lands between create and completion. */
async function hangFirstPoll(world: ProvidersWorld, pathPattern: string): Promise<void> {
  await world.emulator.hooks.fault({
    method: "GET",
    path: pathPattern,
    kind: "latency",
    latency_ms: 20_000,
    count: 1,
  });
}

async function api<T>(world: ProvidersWorld, apiPath: string): Promise<T> {
  const res = await fetch(`${world.emulator.url}${apiPath}`, { headers: { authorization: AUTH } });
  return (await res.json()) as T;
}

/** A world of its own for the test (a killed engine's state is not another case's start), closed after it. */
async function worldOfTest(stackName: string): Promise<ProvidersWorld> {
  const world = await startProvidersWorld(stackName);
  onTestFinished(() => world.close());
  return world;
}

// Crash safety: `pulumi up` killed right after the create request, then run again.
describe("a pulumi up killed right after a create request", () => {
  it("leaves exactly one deployment, owned by the state, after a rerun", async () => {
    const world = await worldOfTest("crash");
    await hangFirstPoll(world, "/svc/project/acme-web/environment/uat/deploys/*");
    await world.emulator.hooks.clearRequests();
    await upKilledAfter(world, [CREATE_DEPLOYMENT]);

    const up = await world.up();
    expect(up.summary.result).toBe("succeeded");
    expect((await world.writes()).filter((w) => w === CREATE_DEPLOYMENT)).toHaveLength(1);
    const [owned] = stateResources(world.state(), "Deployment");
    expect(owned?.outputs["state"]).toBe("Completed");
    // The program ran in the language host's own process: the serialized provider names its
    // module relative to that process's directory, not this checkout.
    const provider = String(owned?.inputs["__provider"]);
    expect(provider).toContain("dist/providers/provider-process/index.js");
    expect(provider).not.toContain(world.project.dir);
    const marker = String(owned?.outputs["marker"]);
    const list = await api<{ data: { id: string; attributes: { summary: string } }[] }>(
      world,
      "/svc/project/acme-web/environment/uat/deploys",
    );
    const mine = list.data.filter((d) => d.attributes.summary.includes(marker));
    expect(mine.map((d) => String(d.id))).toEqual([owned?.id]);
  }, 180_000);

  it("leaves exactly one snapshot, owned by the state, after a rerun", async () => {
    const world = await worldOfTest("crash-snapshot");
    await setFixture(world.stack, { snapshot: "true" });
    await hangFirstPoll(world, "/svc/project/acme-web/snapshots/transfer/*");
    await world.emulator.hooks.clearRequests();
    await upKilledAfter(world, [CREATE_SNAPSHOT]);

    const up = await world.up();
    expect(up.summary.result).toBe("succeeded");
    const writes = await world.writes();
    expect(writes.filter((w) => w === CREATE_SNAPSHOT)).toHaveLength(1);
    expect(writes.filter((w) => w === CREATE_DEPLOYMENT)).toHaveLength(1);
    const [owned] = stateResources(world.state(), "Snapshot");
    expect(owned?.outputs["snapshot_status"]).toBe("complete");
    const marker = String(owned?.outputs["marker"]);
    const list = await api<{ data: { id: string }[] }>(world, "/svc/project/acme-web/snapshots");
    const notes = await Promise.all(
      list.data.map(async (s) => {
        const full = await api<{ data: { id: string; attributes: { notes: string | null } } }>(
          world,
          `/svc/project/acme-web/snapshots/${String(s.id)}`,
        );
        return { id: String(full.data.id), notes: full.data.attributes.notes ?? "" };
      }),
    );
    expect(notes.filter((s) => s.notes.includes(marker)).map((s) => s.id)).toEqual([owned?.id]);
  }, 180_000);
});
