import { describe, expect } from "vitest";
import { readLocks } from "../../src/cli/state/locks";
import { openStateStore } from "../../src/state-backend/store";
import { basicAuth } from "../helpers/emulator";
import { fixtures, type InProcessEmulator } from "../helpers/fixtures";
import { runInProject } from "../helpers/in-process";
import type { ScratchProject } from "../helpers/scratch-project";
import { commandLine, descendants, parentPid, startStackwright } from "../helpers/stackwright-process";

// Stackwright's own program, which the `stackwright` process hosts for the engine (src/program/
// host.ts), stopped by SIGINT (a cancelled CI job) while a deployment is in flight; then run again.
const DEPLOYS = "/svc/project/acme-web/environment/uat/deploys";

const test = fixtures({
  project: {
    stacksConfig: {
      "web.yaml":
        "stack: acme-web\nenvironments:\n  uat:\n    deployment:\n      ref_type: branch\n      ref: main\n      approval: bypass_and_start\n",
    },
  },
});

describe("a stack whose program the stackwright process hosts", () => {
  let emulator: InProcessEmulator;
  let project: ScratchProject;
  let env: Record<string, string>;

  test.beforeAll(({ emulatorInProcess, project: scratch }) => {
    [emulator, project] = [emulatorInProcess, scratch];
    env = { ...project.env, ...emulator.env };
  }, 120_000);

  const markedDeployments = async () => {
    const credentials = emulator.env;
    const res = await fetch(`${emulator.url}${DEPLOYS}`, {
      headers: {
        authorization: basicAuth(
          credentials["STACKWRIGHT_EMAIL"] ?? "",
          credentials["STACKWRIGHT_API_TOKEN"] ?? "",
        ),
      },
    });
    const doc = (await res.json()) as { data: { attributes: { summary: string | null } }[] };
    return doc.data.filter((d) => (d.attributes.summary ?? "").includes("[stackwright "));
  };

  test("stops gracefully on SIGINT, releases the lock, and a rerun finishes with one deployment", async () => {
    // The first poll answers after 3 s: the signal lands while the deployment is in flight.
    await emulator.hooks.fault({
      method: "GET",
      path: `${DEPLOYS}/*`,
      kind: "latency",
      latency_ms: 3_000,
      count: 1,
    });
    const run = startStackwright(project.dir, ["up", "--project", project.dir], env);
    await run.waitForOutput((o) => o.includes("created (Queued)"), "the deployment created, its wait begun");
    // Mid-run, the engine and the shared provider host (a child of the CLI itself) are there, but
    // no language host, no program process and no provider plugin started by the engine.
    const below = descendants(run.pid).map(commandLine);
    const children = descendants(run.pid)
      .filter((pid) => parentPid(pid) === run.pid)
      .map(commandLine);
    expect(
      children.filter((c) => c.includes("plugin-host/main.js --shared")),
      below.join("\n"),
    ).toHaveLength(1);
    expect(
      below.filter(
        (c) => c.includes("pulumi-resource-pulumi-nodejs") || /provider-host\/main\.js 127\./.test(c),
      ),
    ).toEqual([]);
    expect(below.filter((c) => c.includes("pulumi-language-nodejs") || c.includes("cmd/run"))).toEqual([]);
    process.kill(run.pid, "SIGINT");
    expect(await run.exited, run.output()).toBe(130);
    expect(run.output()).toContain("SIGINT received: stopping gracefully");
    const store = openStateStore(env["PULUMI_BACKEND_URL"] ?? "");
    expect(await readLocks(store, "stackwright", "dev.acme-web")).toEqual([]);

    // The interrupted run is a process of its own; the rerun needs none (the test's process).
    const again = await runInProject(project.dir, ["up", "--project", project.dir], env);
    expect(again.status, again.out).toBe(0);
    expect(again.out).not.toContain("removed a stale lock");
    expect(await markedDeployments()).toHaveLength(1);
  }, 180_000);
});
