import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect } from "vitest";
import { parse, stringify } from "yaml";
import { stackFileJsonSchema } from "../../src/config";
import { openTarget } from "../../src/cli/fleet/open-target";
import { confirmWithoutEngine, makeReadsDir, openShortcut } from "../../src/cli/fleet/shortcut";
import { confirmationKey } from "../../src/cli/state/confirmations";
import { lockTargetOf } from "../../src/project/lock-target";
import type { EmulatorHooks } from "../helpers/emulator";
import { fixtures, type RunningEmulator, type Stackwright } from "../helpers/fixtures";
import type { ScratchProject } from "../helpers/scratch-project";
import { runToEnd } from "../helpers/stackwright-process";
import { applyEdit, schemaLeafEdits } from "../helpers/schema-edits";

const STACK = "dev.acme-web";
const FILE = `stack: acme-web
environments:
  uat:
    deployment:
      ref_type: branch
      ref: main
      approval: bypass_and_start
  prod:
    lock:
      message: Freeze
`;

const test = fixtures({ project: { stacksConfig: { "acme-web.yaml": FILE } } });

// The fingerprint shortcut through the real `stackwright up`, the real engine and the emulator:
// one scratch project, one API stack, runs in the order an operator would meet them.
describe("an up confirmed without the engine", () => {
  let project: ScratchProject;
  let emulator: RunningEmulator;
  let hooks: EmulatorHooks;
  let env: Record<string, string>;
  let stackwright: Stackwright;
  const stackFile = () => path.join(project.dir, "stacks-config", "acme-web.yaml");
  const record = () => path.join(project.stateDir, ...confirmationKey("stackwright", STACK).split("/"));
  const checkpoint = () => fs.readFileSync(project.stateFile(STACK));

  const run = async (args: string[], bin = "stackwright") =>
    bin === "stackwright"
      ? await stackwright(args)
      : runToEnd(project.dir, path.join(project.dir, ".tools", "bin", "pulumi"), args, {
          ...project.pulumiEnv(),
          ...env,
        });
  const clearRequests = () => hooks.clearRequests().catch(() => hooks.clearRequests());
  const requests = async () =>
    (await hooks.requests().catch(() => hooks.requests())).filter((r) => !r.path.startsWith("/_emulator"));
  const writes = async () =>
    (await requests()).filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);
  const row = (out: string) =>
    out
      .match(/^dev\.acme-web\s+(\S+)\s+(.+?)\s{2,}[\d.]+ s(?:\s{2,}.*)?$/m)
      ?.slice(1, 3)
      .join(" | ");

  test.beforeAll(({ project: scratch, emulator: running, stackwright: cli }) => {
    project = scratch;
    emulator = running;
    ({ hooks, env } = running);
    stackwright = cli;
  }, 120_000);

  test("confirms the up after a no-change run without the engine, reading only, and writing nothing", async () => {
    const first = await run(["up"]);
    expect(first.status, first.out).toBe(0);
    expect(fs.existsSync(record()), "a run that changed something proves nothing").toBe(false);
    const second = await run(["up"]);
    expect(second.status, second.out).toBe(0);
    expect(row(second.out)).toBe("ok | none");
    expect(fs.existsSync(record())).toBe(true);
    const recorded = fs.readFileSync(record(), "utf8");
    expect(recorded).not.toContain("demo-token");

    await clearRequests();
    const before = checkpoint();
    const third = await run(["up", "--summary", path.join(project.dir, "up.md")]);
    expect(third.status, third.out).toBe(0);
    expect(row(third.out), third.out).toBe("ok | no change (confirmed)");
    expect(fs.readFileSync(path.join(project.dir, "up.md"), "utf8")).toContain(
      "confirmed without the engine",
    );
    expect(await writes()).toEqual([]);
    // The engine rewrites the checkpoint on every update; it did not run.
    expect(checkpoint().equals(before)).toBe(true);
    // One read per distinct data-source call (uat's environment), besides the preflight's.
    const reads = (await requests()).map((r) => `${r.method} ${r.path}`);
    expect(reads.filter((r) => r.includes("/environment/uat"))).toHaveLength(1);
  }, 480_000);

  test("runs the engine when any field of the file changes, for every key of the config schema", async () => {
    const target = await openTarget(project.dir, "dev", { ...env, ...makeReadsDir().env }, process.env);
    const shortcut = openShortcut(target, true, "", async () => () => undefined);
    const where = lockTargetOf(project.dir, STACK, target.env);
    const verdict = () => confirmWithoutEngine(where, shortcut.inputs(STACK, stackFile()), shortcut);
    try {
      expect(await verdict()).toEqual({ confirmed: true });
      const original: unknown = parse(FILE);
      const edits = schemaLeafEdits(stackFileJsonSchema(), original);
      // Every leaf of the schema: deployment, lock, snapshots, restores, records, checks, ...
      expect(edits.length).toBeGreaterThan(20);
      for (const edit of edits) {
        fs.writeFileSync(stackFile(), stringify(applyEdit(original, edit)));
        expect(await verdict(), edit.path.join(".")).toMatchObject({ reason: "inputs changed: file" });
      }
      fs.writeFileSync(stackFile(), FILE);
      expect(await verdict()).toEqual({ confirmed: true });
      // The target's settings count too.
      fs.appendFileSync(path.join(project.dir, "Pulumi.dev.yaml"), "\n");
      expect(await verdict()).toMatchObject({ reason: "inputs changed: settings" });
    } finally {
      fs.writeFileSync(stackFile(), FILE);
      fs.writeFileSync(
        path.join(project.dir, "Pulumi.dev.yaml"),
        fs.readFileSync(path.join(project.dir, "Pulumi.dev.yaml"), "utf8").replace(/\n\n$/, "\n"),
      );
      await shortcut.close();
    }
  }, 240_000);

  test("confirms a lock removed by hand exactly as a full run sees it: no change either way", async () => {
    await fetch(`${emulator.url}/svc/project/acme-web/environment/prod/lock`, {
      method: "DELETE",
      headers: { authorization: `Basic ${Buffer.from("ops@example.com:demo-token").toString("base64")}` },
    });
    const shortcut = await run(["up"]);
    expect(row(shortcut.out), shortcut.out).toBe("ok | no change (confirmed)");
    // --full runs the engine; it has no way to read a lock either (there is no endpoint).
    const full = await run(["up", "--full"]);
    expect(full.status, full.out).toBe(0);
    expect(row(full.out)).toBe("ok | none");
  }, 480_000);

  test("runs the engine after a plain pulumi up of the stack, which changed the checkpoint", async () => {
    const plain = await run(
      ["up", "--yes", "--skip-preview", "-s", STACK, "--config-file", "Pulumi.dev.yaml"],
      "pulumi",
    );
    expect(plain.status, plain.out).toBe(0);
    const next = await run(["up"]);
    expect(next.status, next.out).toBe(0);
    expect(next.out).toContain("engine needed: the state changed since (another engine run)");
    expect(row(next.out)).toBe("ok | none");
  }, 480_000);

  test("runs the engine after a deployment made by hand, and warns about the drift as a full run does", async () => {
    await hooks.handDeploy("acme-web", "uat", "2b7e151628aed2a6abf7158809cf4f3c762e7160");
    const next = await run(["up"]);
    expect(next.status, next.out).toBe(0);
    expect(next.out).toContain("engine needed: live read: environment of acme-web/uat changed");
    expect(next.out).toContain("Drift on acme-web/uat");
    expect(row(next.out)).toBe("ok | none");
    // A run that warned proves nothing: the next one warns again.
    expect(fs.existsSync(record())).toBe(false);
  }, 480_000);
});
