/**
 * `stackwright import` as an operator runs it: the built command (run in this process, as its
 * bin/stackwright.js runs it: test/helpers/in-process.ts), against an emulator seeded with what a
 * team with live sites has (test/fixtures/import/seed.yaml): a stack with sha and branch
 * deployments, a locked production, a failed deployment, an environment never deployed and
 * snapshots; a stack running a package; a stack of another team the user cannot see; and a
 * deployment in progress. The files it writes must validate and match the reviewed expectation in
 * test/fixtures/import/expected/ (set UPDATE_IMPORT_EXPECTED=1 to rewrite them, then review the
 * diff).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect } from "vitest";
import { parse } from "yaml";
import { loadDesiredState, stackFileJsonSchemaText } from "../../src/config";
import { fixtures, type InProcessEmulator } from "../helpers/fixtures";
import { repoRoot } from "../helpers/scratch-project";
import { runInProject } from "../helpers/in-process";

const FIXTURES = path.join(repoRoot, "test", "fixtures", "import");
const EXPECTED = path.join(FIXTURES, "expected");
const OPS = { email: "ops@example.com", token: "demo-token" };

const test = fixtures({ seed: path.join(FIXTURES, "seed.yaml") });
let emulator: InProcessEmulator;
let dir = "";

test.beforeAll(async ({ emulatorInProcess, client, fileScratchDir }) => {
  [emulator, dir] = [emulatorInProcess, fileScratchDir];
  // What the seed format cannot say: a package deployment, and a deployment still running.
  const pkg = await client.deployments.create("blog", "prod", {
    ref_type: "package",
    ref: "blog-theme@2.1.0",
    title: "Theme 2.1.0",
    bypass_and_start: true,
  });
  await client.waitForDeployment("blog", "prod", pkg.id);
  // Longer than this file runs: the deployment stays Deploying.
  await emulator.hooks.stallNext("shop", "uat", 600_000);
  await client.deployments.create("shop", "uat", {
    ref_type: "branch",
    ref: "release/2026-11",
    title: "Release candidate",
    bypass_and_start: true,
  });
}, 60_000);

async function stackwright(args: string[]) {
  const env: Record<string, string> = {
    PATH: process.env["PATH"] ?? "",
    STACKWRIGHT_API_URL: emulator.url,
    STACKWRIGHT_EMAIL: OPS.email,
    STACKWRIGHT_API_TOKEN: OPS.token,
  };
  const { status, out } = await runInProject(repoRoot, args, env);
  expect(out).not.toContain(OPS.token);
  return { status, out };
}

const writesOf = async () =>
  (await emulator.hooks.requests())
    .filter((r) => !r.path.startsWith("/_emulator") && r.method !== "GET")
    .map((r) => `${r.method} ${r.path}`);

const read = (file: string) => fs.readFileSync(file, "utf8");

function expectFile(actual: string, name: string): void {
  const expected = path.join(EXPECTED, name);
  if (process.env["UPDATE_IMPORT_EXPECTED"] === "1") fs.writeFileSync(expected, actual);
  expect(actual).toBe(read(expected));
}

describe("stackwright import", () => {
  test("writes one file per stack the user can see, validated and as reviewed, reading only", async () => {
    const into = path.join(dir, "all");
    await emulator.hooks.clearRequests();
    const { status, out } = await stackwright(["import", "--all", "--into", into]);
    expect(status, out).toBe(0);
    expect(await writesOf()).toEqual([]);
    // The stack of another team is not listed to this user, so it is not imported.
    expect(fs.readdirSync(into).sort()).toEqual(["blog.yaml", "schema.json", "shop.yaml"]);
    expect(read(path.join(into, "schema.json"))).toBe(stackFileJsonSchemaText());
    expectFile(read(path.join(into, "shop.yaml")), "shop.yaml");
    expectFile(read(path.join(into, "blog.yaml")), "blog.yaml");
    const loaded = await loadDesiredState(into);
    expect(loaded.errors).toEqual([]);
    expect(out).toContain("wrote");
    expect(out).toMatch(
      /note: shop\/uat: deployment \d+ "Release candidate" by ops@example.com is Deploying/,
    );
  });

  test("with --track, deploys the branch where the live sha is its head and pins the rest", async () => {
    const into = path.join(dir, "track");
    const { status, out } = await stackwright(["import", "shop", "--track", "main", "--into", into]);
    expect(status, out).toBe(0);
    const text = read(path.join(into, "shop.yaml"));
    expectFile(text, "shop.track-main.yaml");
    const file = parse(text) as { environments: Record<string, { deployment?: Record<string, unknown> }> };
    expect(file.environments["uat"]?.deployment).toEqual({ ref_type: "branch", ref: "main", adopt: 101 });
    // prod runs a tag's commit and main moved on since: it stays pinned.
    expect(file.environments["prod"]?.deployment).toMatchObject({ ref_type: "sha", adopt: 103 });
    expect((await loadDesiredState(into)).errors).toEqual([]);
  });

  test("refuses to overwrite a file without --force, writing nothing, and overwrites it with --force", async () => {
    const into = path.join(dir, "refuse");
    fs.mkdirSync(into);
    fs.writeFileSync(path.join(into, "shop.yaml"), "stack: shop\n");
    const refused = await stackwright(["import", "shop", "blog", "--into", into]);
    expect(refused.status).toBe(2);
    expect(refused.out).toContain("shop.yaml already exists; nothing was written. Pass --force to overwrite");
    expect(read(path.join(into, "shop.yaml"))).toBe("stack: shop\n");
    expect(fs.existsSync(path.join(into, "blog.yaml"))).toBe(false);

    const forced = await stackwright(["import", "shop", "blog", "--into", into, "--force"]);
    expect(forced.status, forced.out).toBe(0);
    expect(read(path.join(into, "shop.yaml"))).toBe(read(path.join(EXPECTED, "shop.yaml")));
    // No temporary file is left beside them.
    expect(fs.readdirSync(into).sort()).toEqual(["blog.yaml", "schema.json", "shop.yaml"]);
  });

  test("refuses a stack that another file of the directory already declares, even with --force", async () => {
    const into = path.join(dir, "twice");
    fs.mkdirSync(into);
    fs.writeFileSync(path.join(into, "web-shop.yaml"), "stack: shop\n");
    const { status, out } = await stackwright(["import", "shop", "--into", into, "--force"]);
    expect(status).toBe(2);
    expect(out).toContain("already declares 'shop'");
    expect(fs.readdirSync(into)).toEqual(["web-shop.yaml"]);
  });

  test("with --dry-run prints the files and writes nothing", async () => {
    const into = path.join(dir, "dry");
    const { status, out } = await stackwright(["import", "blog", "--into", into, "--dry-run"]);
    expect(status, out).toBe(0);
    expect(fs.existsSync(into)).toBe(false);
    expect(out).toContain("(not written: --dry-run)");
    expect(out).toContain(read(path.join(EXPECTED, "blog.yaml")).trimEnd());
  });

  test("refuses a stack the user cannot see with one line naming it, writing nothing", async () => {
    const into = path.join(dir, "hidden");
    const { status, out } = await stackwright(["import", "blog", "payroll", "--into", into]);
    expect(status).toBe(2);
    expect(out).toContain("ops@example.com has no access to stack 'payroll'");
    expect(fs.existsSync(into)).toBe(false);
  });

  test("asks for stack names or --all", async () => {
    const { status, out } = await stackwright(["import"]);
    expect(status).toBe(2);
    expect(out).toContain("name the API stacks to import, or pass --all");
  });
});
