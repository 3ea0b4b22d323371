import { spawn } from "node:child_process";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProvidersWorld, stateResources, type ProvidersWorld } from "../helpers/providers-e2e";

const CREATE = "POST /svc/project/acme-web/environment/uat/deploys";

// Crash safety: `pulumi up` killed right after the create request, then run again.
describe("a pulumi up killed right after creating a deployment", () => {
  let world: ProvidersWorld;

  beforeAll(async () => {
    world = await startProvidersWorld("crash");
  }, 120_000);
  afterAll(async () => world?.close());

  it("leaves exactly one deployment, owned by the state, after a rerun", async () => {
    // The first poll after the create hangs, so the kill lands between create and completion.
    await world.emulator.hooks.fault({
      method: "GET",
      path: "/svc/project/acme-web/environment/uat/deploys/*",
      kind: "latency",
      latency_ms: 20_000,
      count: 1,
    });
    await world.emulator.hooks.clearRequests();
    const child = spawn(
      path.join(world.project.dir, ".tools", "bin", "pulumi"),
      ["up", "--yes", "--skip-preview", "--non-interactive", "--stack", "crash"],
      { cwd: world.project.dir, env: { ...world.project.env }, detached: true, stdio: "ignore" },
    );
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    try {
      let created = false;
      for (let i = 0; i < 600 && !created; i++) {
        created = (await world.writes()).includes(CREATE);
        if (!created) await new Promise((r) => setTimeout(r, 100));
      }
      expect(created).toBe(true);
    } finally {
      // The whole process tree: CLI, language host and provider plugin share its group.
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      await exited;
    }
    await fetch(`${world.emulator.url}/_emulator/faults`, { method: "DELETE" });
    // A killed update leaves the stack's lock behind; `pulumi cancel` is what an operator runs.
    await world.stack.cancel();

    const up = await world.stack.up();
    expect(up.summary.result).toBe("succeeded");
    const creates = (await world.writes()).filter((w) => w === CREATE);
    expect(creates).toHaveLength(1);
    const [owned] = stateResources(world.state(), "Deployment");
    expect(owned?.outputs["state"]).toBe("Completed");
    const marker = String(owned?.outputs["marker"]);
    const list = await fetch(`${world.emulator.url}/svc/project/acme-web/environment/uat/deploys`, {
      headers: { authorization: `Basic ${Buffer.from("ops@example.com:demo-token").toString("base64")}` },
    });
    const deployments = ((await list.json()) as { data: { id: string; attributes: { summary: string } }[] })
      .data;
    const mine = deployments.filter((d) => d.attributes.summary.includes(marker));
    expect(mine.map((d) => String(d.id))).toEqual([owned?.id]);
  }, 180_000);
});
