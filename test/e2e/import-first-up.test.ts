/**
 * Day one of a team with live sites, end to end: `stackwright import --all --track main` on a
 * seeded platform (sha, branch and package deployments, a locked production, an environment never
 * deployed; one environment at main's head, so it tracks the branch),
 * then `validate`, `preview`, `up` and `up` again through the real engine. Nothing may change on
 * the platform: the preview plans only adoptions, the first up makes zero write requests (counted
 * on the emulator's request log) while it records every resource in the per-file stacks, and the
 * second up is confirmed without the engine. Then the first promotion: the live build the up
 * adopted is Stackwright's (no --allow-drift), refused before that up with what to do, and a
 * later hand deployment is still refused.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect } from "vitest";
import { HistoryDocument } from "../../src/cli/commands/history";
import { createClient } from "../../src/client";
import { FleetStatus } from "../../src/observe";
import type { EmulatorHooks } from "../helpers/emulator";
import { fixtures, type RunningEmulator, type Stackwright } from "../helpers/fixtures";
import { repoRoot, type ScratchProject } from "../helpers/scratch-project";

const SEED = path.join(repoRoot, "test", "fixtures", "import", "seed.yaml");
const STACKS = ["dev.blog", "dev.shop"];
/** What shop/uat runs in the seed: deployment 101, imported and adopted. */
const SHOP_UAT = "a1b2c3d4e5f60718293a4b5c6d7e8f9011223344";
/** The head of shop's release branch in the seed, deployed by hand in the last case. */
const HOTFIX = "b2c3d4e5f60718293a4b5c6d7e8f901122334455";

const test = fixtures({ seed: SEED, project: { stacksConfig: {} } });

describe("the first runs after stackwright import", () => {
  let project: ScratchProject;
  let emulator: RunningEmulator;
  let hooks: EmulatorHooks;
  let stackwright: Stackwright;

  const run = async (args: string[]) => {
    const result = await stackwright(args);
    expect(result.out).not.toContain("demo-token");
    return result;
  };
  const requests = async () =>
    (await hooks.requests())
      .filter((r) => !r.path.startsWith("/_emulator"))
      .map((r) => `${r.method} ${r.path}`);
  const writes = async () => (await requests()).filter((r) => !r.startsWith("GET "));
  const shopFile = () => fs.readFileSync(path.join(project.dir, "stacks-config", "shop.yaml"), "utf8");
  const promoteShop = () => run(["promote", "shop", "--from", "uat", "--to", "prod"]);
  /** `history shop uat --json`: per deployment, its id, marker and whether an up adopted it. */
  const shopUatHistory = async () => {
    const history = await run(["history", "shop", "uat", "--json"]);
    expect(history.status, history.out).toBe(0);
    return HistoryDocument.parse(JSON.parse(history.out)).deployments.map((d) => [
      d.id,
      d.stackwright_marker,
      d.adopted,
    ]);
  };
  /** `status shop --json -`: shop/uat's sync state and the kind of its drift. */
  const shopUatStatus = async () => {
    const status = await run(["status", "shop", "--json", "-"]);
    expect(status.status, status.out).toBe(0);
    const uat = FleetStatus.parse(JSON.parse(status.out))
      .stacks.find((s) => s.stack === "shop")
      ?.environments.find((e) => e.environment === "uat");
    return [uat?.sync, uat?.drift?.kind ?? null];
  };
  const rows = (out: string) =>
    Object.fromEntries(
      STACKS.map((stack) => [
        stack,
        // stack, result, changes, duration, and the "why the engine ran" column when a row has one.
        new RegExp(`^${stack.replace(".", "\\.")}\\s+(\\S+)\\s+(.+?)\\s{2,}[\\d.]+ s(?:\\s{2,}.*)?$`, "m")
          .exec(out)
          ?.slice(1, 3)
          .join(" | "),
      ]),
    );

  /** The deployment ids the stack's checkpoint records, sorted. */
  const adopted = (stack: string): string[] => {
    const checkpoint = JSON.parse(fs.readFileSync(project.stateFile(stack), "utf8")) as {
      checkpoint: { latest: { resources?: { type: string; outputs?: Record<string, unknown> }[] } };
    };
    return (checkpoint.checkpoint.latest.resources ?? [])
      .filter((r) => r.type === "pulumi-nodejs:dynamic/stackwright:Deployment")
      .map((r) => String(r.outputs?.["deployment_id"]))
      .sort();
  };

  test.beforeAll(async ({ project: scratch, emulator: running, stackwright: cli }) => {
    [project, emulator, hooks, stackwright] = [scratch, running, running.hooks, cli];
    const client = createClient({ baseUrl: emulator.url, email: "ops@example.com", token: "demo-token" });
    try {
      const pkg = await client.deployments.create("blog", "prod", {
        ref_type: "package",
        ref: "blog-theme@2.1.0",
        bypass_and_start: true,
      });
      await client.waitForDeployment("blog", "prod", pkg.id);
    } finally {
      await client.close();
    }
  }, 120_000);

  test("imports every visible stack into files that validate", async () => {
    // shop/uat runs main's head: it deploys the branch from now on; the rest stay pinned.
    const imported = await run(["import", "--all", "--track", "main"]);
    expect(imported.status, imported.out).toBe(0);
    expect(imported.out).toContain("wrote stacks-config/shop.yaml: uat tracks the branch at deployment 101");
    const dir = path.join(project.dir, "stacks-config");
    expect(fs.readdirSync(dir).sort()).toEqual(["blog.yaml", "schema.json", "shop.yaml"]);
    const validated = await run(["validate"]);
    expect(validated.status, validated.out).toBe(0);
  }, 120_000);

  test("refuses to promote an imported live build before an up adopted it, saying to run up first", async () => {
    const before = shopFile();
    const refused = await promoteShop();
    expect(refused.status, refused.out).toBe(1);
    expect(refused.out).toContain(
      'shop/uat\'s live build a1b2c3d (deployment 101 "UAT from main") was deployed by hand, not by Stackwright ' +
        "(its file adopts deployment 101, but no up of target dev has recorded it in dev.shop yet: " +
        "run up first, or pass the --target whose up adopted it); " +
        "promote what was tested once it is settled, or pass --allow-drift",
    );
    expect(shopFile()).toBe(before);
    // history agrees: neither deployment carries a marker, and no up recorded either yet.
    expect(await shopUatHistory()).toEqual([
      ["101", null, false],
      ["100", null, false],
    ]);
  }, 60_000);

  test("previews no change on the platform for any site: adoptions only, no write request", async () => {
    await hooks.clearRequests();
    const summary = path.join(project.dir, "preview.md");
    const preview = await run(["preview", "--summary", summary]);
    expect(preview.status, preview.out).toBe(0);
    expect(await writes()).toEqual([]);
    const text = fs.readFileSync(summary, "utf8");
    // shop: uat and prod adopted (test was never deployed); blog: prod adopted.
    // The unchanged ones are the environments' lock resources, kept unlocked: no request.
    expect(text, text).toMatch(/\*\*3 adopt\*\* \(\d+ unchanged\)/);
    expect(text).not.toMatch(/\| (deploy|redeploy|lock|unlock|lock message|snapshot|restore) \|/);
    expect(text).not.toContain("Warnings and errors");
  }, 300_000);

  test("makes zero write requests on the first up and records every resource in the per-file stacks", async () => {
    await hooks.clearRequests();
    const up = await run(["up"]);
    expect(up.status, up.out).toBe(0);
    expect(await writes()).toEqual([]);
    for (const stack of STACKS) {
      expect(rows(up.out)[stack], up.out).toMatch(/^ok \| \d+ adopt$/);
    }
    expect(adopted("dev.shop")).toEqual(["101", "103"]);
    expect(adopted("dev.blog")).toHaveLength(1);
  }, 300_000);

  test("confirms the second up without the engine, writing nothing", async () => {
    await hooks.clearRequests();
    const before = STACKS.map((stack) => fs.readFileSync(project.stateFile(stack)));
    const up = await run(["up"]);
    expect(up.status, up.out).toBe(0);
    expect(rows(up.out)).toEqual(Object.fromEntries(STACKS.map((s) => [s, "ok | no change (confirmed)"])));
    expect(await writes()).toEqual([]);
    STACKS.forEach((stack, i) =>
      expect(fs.readFileSync(project.stateFile(stack)).equals(before[i] ?? Buffer.alloc(0))).toBe(true),
    );
  }, 300_000);

  test("promotes the live build the first up adopted with no override, reading the platform only", async () => {
    await hooks.clearRequests();
    const promoted = await promoteShop();
    expect(promoted.status, promoted.out).toBe(0);
    expect(promoted.out).toContain(
      `shop/prod: pinned to ${SHOP_UAT}, the live build of uat: a1b2c3d "UAT from main" (deployment 101)`,
    );
    expect(shopFile()).toMatch(new RegExp(`ref: ${SHOP_UAT}\\n\\s+title: Promote a1b2c3d from uat\\n`));
    expect(shopFile()).not.toContain("override");
    expect(await writes()).toEqual([]);
    // status, history and promote agree: what the up adopted is Stackwright's and in sync.
    expect(await shopUatHistory()).toEqual([
      ["101", null, true],
      ["100", null, false],
    ]);
    expect(await shopUatStatus()).toEqual(["in sync", null]);
  }, 60_000);

  test("still refuses a build deployed by hand after the adopting up, naming --allow-drift", async () => {
    const hand = ((await hooks.handDeploy("shop", "uat", HOTFIX)) as { data: { id: string } }).data.id;
    const before = shopFile();
    const refused = await promoteShop();
    expect(refused.status, refused.out).toBe(1);
    expect(refused.out).toContain(
      `shop/uat's live build b2c3d4e (deployment ${hand} "Deployed by hand in the dashboard") was deployed by hand, ` +
        "not by Stackwright; promote what was tested once it is settled, or pass --allow-drift",
    );
    expect(shopFile()).toBe(before);
    expect(await shopUatHistory()).toEqual([
      [hand, null, false],
      ["101", null, true],
      ["100", null, false],
    ]);
    expect(await shopUatStatus()).toEqual(["drifted", "hand deployment"]);
    const table = await run(["history", "shop", "uat"]);
    expect(table.out).toMatch(new RegExp(`^\\* ${hand} .* by hand$`, "m"));
    expect(table.out).toMatch(/^ {2}101 .*UAT from main .* adopted$/m);
  }, 60_000);
});
