import * as fs from "node:fs";
import * as path from "node:path";
import Ajv from "ajv";
import { afterAll, describe, expect } from "vitest";
import { stringify } from "yaml";
import { createClient, type StackwrightClient } from "../../src/client";
import { DRIFT_SCHEMA_FILE, STATUS_SCHEMA_FILE, type DriftReport, type FleetStatus } from "../../src/observe";
import { confirmationKey, driftMemoryKey } from "../../src/state-backend";
import { defaultTestAnswers, type EmulatorHooks } from "../helpers/emulator";
import { fixtures, type Stackwright } from "../helpers/fixtures";
import { repoRoot, type ScratchProject } from "../helpers/scratch-project";
import { waitFor } from "../helpers/stackwright-process";

const SHA_A = "8f3c2a1d9e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a";
const SHA_B = "2b7e151628aed2a6abf7158809cf4f3c762e7160";
/**
 * One site per sync state, and `steady`, in sync and left alone; `hidden` is a stack the operator
 * is not a member of.
 */
const SITES = ["in-sync", "by-hand", "busy", "waiting", "broken", "fresh", "steady"] as const;
const DEPLOYED = SITES.filter((s) => s !== "fresh");
/** The site with a lock added to its file while it stays in sync: only the engine sees it. */
const LOCKED_FILE = stringify({
  stack: "in-sync",
  environments: { uat: { deployment: { ref_type: "branch", ref: "main" }, lock: { message: "Freeze" } } },
});

/** The sites a read-only member (the scheduled check's user) sees too. */
const READ = new Set<string>(["in-sync", "steady"]);

function seedYaml(): string {
  const stack = (name: string, members: boolean) => ({
    name,
    members: members
      ? [
          { email: "ops@example.com", role: "Stack Manager" },
          ...(READ.has(name) ? [{ email: "reader@example.com", role: "Team Member" }] : []),
        ]
      : [],
    refs: { main: SHA_A, hotfix: SHA_B },
    environments: [
      {
        name: "uat",
        usage: "UAT",
        build_sha: SHA_A,
        deployments: [
          { sha: SHA_A, ref_type: "branch", ref: "main", title: "Initial", deployer: "ops@example.com" },
        ],
      },
    ],
  });
  return stringify({
    users: [
      { email: "ops@example.com", token: "demo-token", first_name: "Olivia", surname: "Ops" },
      { email: "dev@example.com", token: "dev-token", first_name: "Devi", surname: "Member" },
      { email: "reader@example.com", token: "reader-token", first_name: "Rea", surname: "Der" },
    ],
    stacks: [...SITES.map((s) => stack(s, true)), stack("hidden", false)],
  });
}

const siteFile = (name: string) =>
  stringify({ stack: name, environments: { uat: { deployment: { ref_type: "branch", ref: "main" } } } });

// STACKWRIGHT_TEST_ANSWERS=platform runs the same against the platform's reduced list items.
const test = fixtures({
  seed: { yaml: seedYaml() },
  project: { stacksConfig: Object.fromEntries([...SITES, "hidden"].map((s) => [`${s}.yaml`, siteFile(s)])) },
});

// `status` and `drift` against a fleet in every sync state, through the real command, the real
// engine (for the first up only) and the emulator.
describe("status and drift of a fleet in every sync state", () => {
  let project: ScratchProject;
  let hooks: EmulatorHooks;
  let stackwright: Stackwright;
  let client: StackwrightClient;
  let pulumiLog: string;
  const out = (name: string) => path.join(project.dir, name);
  const run = (args: string[]) => stackwright(args);
  // A hook's kept-alive connection may have been closed by the emulator while a command ran: once more.
  const again = <T>(call: () => Promise<T>) => call().catch(() => call());
  const requests = async () =>
    (await again(() => hooks.requests())).filter((r) => !r.path.startsWith("/_emulator"));
  const clearRequests = () => again(() => hooks.clearRequests());
  const ajv = new Ajv({ strict: false });
  /** The Pulumi stacks whose engine previewed since the log was cleared. */
  const previewed = () =>
    fs
      .readFileSync(pulumiLog, "utf8")
      .split("\n")
      .filter((line) => line.startsWith("preview"))
      .map((line) => /--stack (\S+)/.exec(line)?.[1]);
  const schema = (file: string) =>
    ajv.compile(JSON.parse(fs.readFileSync(path.join(repoRoot, file), "utf8")));

  test.beforeAll(async ({ project: scratch, emulator, stackwright: cli }) => {
    [project, hooks, stackwright] = [scratch, emulator.hooks, cli];
    client = createClient({ baseUrl: emulator.url, email: "ops@example.com", token: "demo-token" });
    // Every `pulumi` process the runs start is logged: status and drift must start none.
    pulumiLog = path.join(project.dir, "pulumi-calls.log");
    fs.unlinkSync(path.join(project.dir, ".tools"));
    fs.mkdirSync(path.join(project.dir, ".tools", "bin"), { recursive: true });
    for (const entry of fs.readdirSync(path.join(repoRoot, ".tools", "bin"))) {
      const real = fs.realpathSync(path.join(repoRoot, ".tools", "bin", entry));
      const wrapper = path.join(project.dir, ".tools", "bin", entry);
      if (entry === "pulumi") {
        fs.writeFileSync(wrapper, `#!/bin/sh\necho "$*" >> '${pulumiLog}'\nexec '${real}' "$@"\n`, {
          mode: 0o755,
        });
      } else fs.symlinkSync(real, wrapper);
    }

    const up = await run(["up", ...DEPLOYED]);
    expect(up.status, up.out).toBe(0);
    // The second up changes nothing and leaves each stack's proof (its confirmation record).
    const proving = await run(["up", ...DEPLOYED]);
    expect(proving.status, proving.out).toBe(0);
    for (const site of DEPLOYED) {
      const key = confirmationKey("stackwright", `dev.${site}`);
      expect(fs.existsSync(path.join(project.stateDir, ...key.split("/"))), site).toBe(true);
    }
    // One environment per state, made on the platform after the up.
    await hooks.handDeploy("by-hand", "uat", SHA_B);
    await hooks.stallNext("busy", "uat", 600_000);
    await client.deployments.create("busy", "uat", {
      ref_type: "branch",
      ref: "hotfix",
      bypass_and_start: true,
    });
    await client.deployments.create("waiting", "uat", { ref_type: "branch", ref: "hotfix" });
    await hooks.nextOutcome("broken", "uat", "fail", "composer install failed");
    const failing = await client.deployments.create("broken", "uat", {
      ref_type: "branch",
      ref: "hotfix",
      bypass_and_start: true,
    });
    await waitFor(
      async () => (await client.deployments.get("broken", "uat", failing.id)).attributes.state === "Failed",
      "the broken site's deployment to fail",
    );
    await waitFor(
      async () =>
        (await client.deployments.list("busy", "uat")).some((d) => d.attributes.state === "Deploying"),
      "the busy site's deployment to be deploying",
    );
  }, 600_000);

  afterAll(async () => {
    await client?.close();
  });

  test("reports each site's sync state as JSON that validates against its schema, reading only and starting no engine", async () => {
    fs.writeFileSync(pulumiLog, "");
    await clearRequests();
    const result = await run(["status", "--json", "-"]);
    expect(result.status, result.out).toBe(0);
    const status = JSON.parse(result.out) as FleetStatus;
    const valid = schema(STATUS_SCHEMA_FILE);
    expect(valid(status), JSON.stringify(valid.errors)).toBe(true);
    const sync = Object.fromEntries(status.stacks.map((s) => [s.stack, s.environments[0]?.sync]));
    expect(sync).toEqual({
      "in-sync": "in sync",
      steady: "in sync",
      "by-hand": "drifted",
      busy: "deploying",
      waiting: "awaiting approval",
      broken: "failed",
      fresh: "not yet deployed",
      hidden: "unknown",
    });
    const byStack = new Map(status.stacks.map((s) => [s.stack, s]));
    expect(byStack.get("by-hand")?.environments[0]?.drift).toMatchObject({ kind: "hand deployment" });
    expect(byStack.get("broken")?.environments[0]?.failure_log?.join("\n")).toContain(
      "composer install failed",
    );
    expect(byStack.get("hidden")?.error).toContain("does not let this user see it");
    expect(byStack.get("in-sync")?.last_up).toMatchObject({ result: "succeeded" });
    expect(status.counts).toMatchObject({ "in sync": 2, drifted: 1, failed: 1, unknown: 1 });

    expect(fs.readFileSync(pulumiLog, "utf8"), "no pulumi process").toBe("");
    const seen = await requests();
    expect(seen.filter((r) => r.method !== "GET")).toEqual([]);
    const paths = seen.map((r) => r.path);
    expect(paths.length, "one GET per distinct read").toBe(new Set(paths).size);
    expect(paths.some((p) => p.includes("/hidden/"))).toBe(false);
  }, 240_000);

  test("prints a table with the counts first, without colour when not on a terminal, and writes the page", async () => {
    const result = await run(["status", "--html", out("fleet.html")]);
    expect(result.status, result.out).toBe(0);
    const lines = result.out.split("\n");
    expect(lines[0]).toBe(
      "dev: 2 in sync · 1 drifted · 1 deploying · 1 awaiting approval · 1 failed · 1 not yet deployed · 1 unknown",
    );
    expect(result.out).not.toContain("\u001b[");
    expect(result.out).toMatch(/^by-hand\s+uat\s+drifted\s+branch main\s+2b7e151/m);
    const html = fs.readFileSync(out("fleet.html"), "utf8");
    for (const state of [
      "in sync",
      "drifted",
      "deploying",
      "awaiting approval",
      "failed",
      "not yet deployed",
      "unknown",
    ]) {
      expect(html).toContain(`data-sync="${state.replace(/ /g, "-")}"`);
    }
  }, 240_000);

  test("proves a clean fleet without the engine, with no more reads than status makes", async () => {
    fs.writeFileSync(pulumiLog, "");
    await clearRequests();
    const statusRun = await run(["status", "in-sync", "steady"]);
    expect(statusRun.status, statusRun.out).toBe(0);
    const statusReads = (await requests()).map((r) => `${r.method} ${r.path}`).sort();
    await clearRequests();
    const drift = await run(["drift", "in-sync", "steady", "--json", out("proved.json")]);
    expect(drift.status, drift.out).toBe(0);
    expect(drift.out).toContain("2 of 2 stack(s) proved without the engine");
    const report = JSON.parse(fs.readFileSync(out("proved.json"), "utf8")) as DriftReport;
    expect(report.stacks).toEqual([
      { stack: "in-sync", checked_by: "proof", reason: null },
      { stack: "steady", checked_by: "proof", reason: null },
    ]);
    expect(fs.readFileSync(pulumiLog, "utf8"), "no pulumi process").toBe("");
    // The proof's recorded reads (each environment's document) are the observation's own answers.
    expect((await requests()).map((r) => `${r.method} ${r.path}`).sort()).toEqual(statusReads);
  }, 240_000);

  test("takes the proof of the release user's up for a read-only user's check, whose own reads answer the same", async () => {
    fs.writeFileSync(pulumiLog, "");
    await clearRequests();
    const reader = await stackwright(["drift", "in-sync", "steady"], {
      STACKWRIGHT_EMAIL: "reader@example.com",
      STACKWRIGHT_API_TOKEN: "reader-token",
    });
    expect(reader.status, reader.out).toBe(0);
    expect(reader.out).toContain("2 of 2 stack(s) proved without the engine");
    expect(fs.readFileSync(pulumiLog, "utf8"), "no pulumi process").toBe("");
    expect((await requests()).filter((r) => r.method !== "GET")).toEqual([]);
  }, 240_000);

  test("exits 0 on a clean stack, 5 on drift and 1 when a check cannot be made, combining error > drift > clean", async () => {
    expect((await run(["drift", "in-sync"])).status).toBe(0);
    expect((await run(["drift", "in-sync", "by-hand"])).status).toBe(5);
    expect((await run(["drift", "in-sync", "by-hand", "hidden"])).status).toBe(1);
    expect((await run(["drift", "hidden"])).status).toBe(1);
    const all = await run(["drift"]);
    expect(all.status, all.out).toBe(1);
    // The platform's list items name no deployer: the line then says who made it no more.
    const who = defaultTestAnswers() === "platform" ? "" : " (by ops@example.com";
    expect(all.out).toContain(`by-hand/uat: hand deployment, runs 2b7e151${who}`);
  }, 240_000);

  test("says new, still and resolved across three runs, remembered in the state backend", async () => {
    const key = driftMemoryKey("stackwright", "dev.by-hand");
    fs.rmSync(path.join(project.stateDir, ...key.split("/")), { force: true });
    const report = async (n: number) => {
      const file = out(`drift-${n}.json`);
      const result = await run(["drift", "by-hand", "--json", file, "--summary", out(`drift-${n}.md`)]);
      const parsed = JSON.parse(fs.readFileSync(file, "utf8")) as DriftReport;
      const valid = schema(DRIFT_SCHEMA_FILE);
      expect(valid(parsed), JSON.stringify(valid.errors)).toBe(true);
      return { status: result.status, report: parsed };
    };
    fs.writeFileSync(pulumiLog, "");
    await clearRequests();
    const first = await report(1);
    expect(first.status).toBe(5);
    expect(first.report.drift).toMatchObject([{ status: "new", kind: "hand deployment", live_sha: SHA_B }]);
    expect(fs.existsSync(path.join(project.stateDir, ...key.split("/")))).toBe(true);
    const second = await report(2);
    expect(second.status).toBe(5);
    expect(second.report.drift).toMatchObject([
      { status: "still", first_reported: first.report.generated_at },
    ]);
    await again(() => hooks.handDeploy("by-hand", "uat", SHA_A));
    const third = await report(3);
    expect(third.status).toBe(0);
    expect(third.report.drift).toMatchObject([{ status: "resolved", stack: "by-hand", environment: "uat" }]);
    expect(fs.readFileSync(out("drift-3.md"), "utf8")).toContain(
      "| resolved | by-hand/uat | hand deployment |",
    );
    // The drift runs read only (the hand deployment above is the test's own write) and start no engine.
    expect(fs.readFileSync(pulumiLog, "utf8")).toBe("");
    const writes = (await requests()).filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);
    expect(writes).toEqual([]);
  }, 240_000);

  test("runs the engine's preview only for the stack whose proof does not hold, and reports what it plans", async () => {
    // A lock added to the file: the reads cannot see it (the deployment is as desired), the engine can.
    const file = path.join(project.dir, "stacks-config", "in-sync.yaml");
    const original = fs.readFileSync(file, "utf8");
    fs.writeFileSync(file, LOCKED_FILE);
    try {
      fs.writeFileSync(pulumiLog, "");
      await clearRequests();
      const drift = await run(["drift", "in-sync", "steady", "--json", out("planned.json")]);
      expect(drift.status, drift.out).toBe(5);
      expect(drift.out).toContain(
        "1 of 2 stack(s) proved without the engine; the engine's preview ran for 1",
      );
      expect(drift.out).toContain("engine   in-sync: no proof: inputs changed: file");
      const report = JSON.parse(fs.readFileSync(out("planned.json"), "utf8")) as DriftReport;
      expect(report.drift).toMatchObject([
        { stack: "in-sync", environment: "uat", kind: "planned change", status: "new" },
      ]);
      expect(report.stacks).toEqual([
        { stack: "in-sync", checked_by: "engine", reason: "no proof: inputs changed: file" },
        { stack: "steady", checked_by: "proof", reason: null },
      ]);
      expect(previewed()).toEqual(["dev.in-sync"]);
      expect(fs.readFileSync(pulumiLog, "utf8")).toMatch(/^preview .*--refresh/m);
      const writes = (await requests()).filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);
      expect(writes).toEqual([]);
    } finally {
      fs.writeFileSync(file, original);
    }
    // The file as it was: the proof holds again, but only the engine can resolve what it planned.
    fs.writeFileSync(pulumiLog, "");
    const after = await run(["drift", "in-sync", "steady", "--json", out("planned-2.json")]);
    expect(after.status, after.out).toBe(0);
    const resolved = JSON.parse(fs.readFileSync(out("planned-2.json"), "utf8")) as DriftReport;
    expect(resolved.drift).toMatchObject([{ stack: "in-sync", kind: "planned change", status: "resolved" }]);
    expect(resolved.stacks[0]).toMatchObject({ stack: "in-sync", checked_by: "engine" });
    expect(previewed()).toEqual(["dev.in-sync"]);
    // Nothing left to resolve: the proof alone answers again.
    fs.writeFileSync(pulumiLog, "");
    expect((await run(["drift", "in-sync", "steady"])).status).toBe(0);
    expect(fs.readFileSync(pulumiLog, "utf8")).toBe("");
  }, 300_000);

  test("with --full runs the engine's preview on every stack, proven or not, and counts what it would change as drift", async () => {
    const file = path.join(project.dir, "stacks-config", "in-sync.yaml");
    const original = fs.readFileSync(file, "utf8");
    fs.writeFileSync(file, LOCKED_FILE);
    try {
      fs.writeFileSync(pulumiLog, "");
      await clearRequests();
      const full = await run(["drift", "in-sync", "steady", "--full", "--json", out("full.json")]);
      expect(full.status, full.out).toBe(5);
      const report = JSON.parse(fs.readFileSync(out("full.json"), "utf8")) as DriftReport;
      expect(report.drift).toMatchObject([
        { stack: "in-sync", environment: "uat", kind: "planned change", status: "new" },
      ]);
      expect(report.stacks.map((c) => c.checked_by)).toEqual(["engine", "engine"]);
      expect(previewed().sort()).toEqual(["dev.in-sync", "dev.steady"]);
      const writes = (await requests()).filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);
      expect(writes).toEqual([]);
    } finally {
      fs.writeFileSync(file, original);
    }
  }, 300_000);
});
