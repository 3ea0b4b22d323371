import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect } from "vitest";
import { shardOf } from "../../src/project/selection";
import { openEngineStack } from "../../src/cli/engine/workspace";
import { seedWithOpsManagingEveryStack, type EmulatorHooks } from "../helpers/emulator";
import { fixtures, type Stackwright } from "../helpers/fixtures";
import { repoRoot, type ScratchProject } from "../helpers/scratch-project";

const test = fixtures({
  // ops@example.com manages both API stacks in this seed.
  seed: {
    yaml: seedWithOpsManagingEveryStack(),
  },
  project: {
    stacksConfig: {
      "web.yaml":
        "stack: acme-web\nenvironments:\n  uat:\n    deployment:\n      ref_type: branch\n      ref: main\n      approval: bypass_and_start\n",
      "intranet.yaml": "stack: acme-intranet\nenvironments:\n  test:\n    lock:\n      message: Freeze one\n",
    },
  },
});

// A fleet of two API stack files, each in its own Pulumi stack, as an operator runs it: one
// emulator and one scratch project for the whole file, the real engine, the `stackwright` command.
describe("one Pulumi stack per API stack file", () => {
  let project: ScratchProject;
  let hooks: EmulatorHooks;
  let env: Record<string, string>;
  let stackwright: Stackwright;

  const file = (name: string) => path.join(project.dir, "stacks-config", name);
  const run = (args: string[]) => stackwright(args);
  const git = (...args: string[]) => execFileSync("git", args, { cwd: project.dir, encoding: "utf8" });
  // A hook call right after a long idle spell may meet a keep-alive socket the emulator just
  // closed ("other side closed"); both hooks are idempotent, so one retry is safe.
  const clearRequests = () => hooks.clearRequests().catch(() => hooks.clearRequests());
  const writes = async () =>
    (await hooks.requests().catch(() => hooks.requests()))
      .filter((r) => r.method !== "GET" && !r.path.startsWith("/_emulator"))
      .map((r) => `${r.method} ${r.path}`);
  /** Type and id of every platform resource in a checkpoint. */
  const idsIn = (stackName: string): string[] => {
    const checkpoint: unknown = JSON.parse(fs.readFileSync(project.stateFile(stackName), "utf8"));
    const resources =
      (checkpoint as { checkpoint: { latest?: { resources?: { type: string; id?: string }[] } } }).checkpoint
        .latest?.resources ?? [];
    return resources
      .filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/") && r.id !== undefined)
      .map((r) => `${r.type} ${r.id}`)
      .sort();
  };
  /** The stacks named in a run's closing table. */
  const tableStacks = (out: string) => [...out.matchAll(/^(dev\.[\w.-]+)\s{2,}/gm)].map((m) => m[1]).sort();

  test.beforeAll(({ project: scratch, emulator, stackwright: cli }) => {
    [project, hooks, env, stackwright] = [scratch, emulator.hooks, emulator.env, cli];
    // At the real program's place, so the providers' modules resolve as they did for it.
    fs.copyFileSync(
      path.join(repoRoot, "test", "fixtures", "legacy-program", "index.js"),
      path.join(project.dir, "dist", "src", "program", "legacy.js"),
    );
  }, 120_000);

  test("migrates a single-stack state into per-file stacks, after which up writes nothing and ids stay", async () => {
    // The state of earlier versions: both files in the target's own stack.
    const pulumiYaml = path.join(project.dir, "Pulumi.yaml");
    const realMain = fs.readFileSync(pulumiYaml, "utf8");
    fs.writeFileSync(pulumiYaml, realMain.replace(/^main: .*$/m, "main: dist/src/program/legacy.js"));
    const legacy = await openEngineStack({
      projectDir: project.dir,
      stackName: "dev",
      given: process.env,
      env: { ...project.env, ...env },
      ...(project.secretsProvider === undefined ? {} : { secretsProvider: project.secretsProvider }),
    });
    await legacy.run("up");
    expect(await project.latestResult("dev")).toBe("succeeded");
    const before = idsIn("dev");
    expect(before.some((r) => r.includes(":Deployment "))).toBe(true);
    fs.writeFileSync(pulumiYaml, realMain);

    const refused = await run(["up"]);
    expect(refused.out).toContain("Run 'npm run stackwright -- migrate --target dev' once");
    expect(refused.status).toBe(2);

    await clearRequests();
    const migrate = await run(["migrate"]);
    expect(migrate.out, migrate.out).toContain("moved into stack dev.acme-web");
    expect(migrate.status).toBe(0);
    const up = await run(["up", "--concurrency", "2"]);
    expect(up.status, up.out).toBe(0);
    expect(up.out).toContain("2 at once");
    expect(await writes()).toEqual([]);
    expect([...idsIn("dev.acme-web"), ...idsIn("dev.acme-intranet")].sort()).toEqual(before);
    expect(idsIn("dev")).toEqual([]);
    expect(tableStacks(up.out)).toEqual(["dev.acme-intranet", "dev.acme-web"]);
    expect(fs.readdirSync(project.dir).filter((f) => /^Pulumi\..+\..+\.yaml$/.test(f))).toEqual([]);
    git("init", "-q");
    git("-c", "user.email=t@example.com", "-c", "user.name=t", "add", "-A");
    git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "fleet");
  }, 480_000);

  test("previews only the API stacks named", async () => {
    const { status, out } = await run(["preview", "acme-intranet"]);
    expect(status, out).toBe(0);
    expect(out).toContain("1 named API stack(s)");
    expect(out).not.toContain("dev.acme-web");
  }, 240_000);

  test("runs only this runner's shard: the stacks whose name hashes to it", async () => {
    // The partition itself (disjoint, covering, stable) is proved by the unit properties.
    const expected = ["acme-intranet", "acme-web"].filter((s) => shardOf(s, 2) === 1).map((s) => `dev.${s}`);
    const { status, out } = await run(["preview", "--shard", "1/2"]);
    expect(status, out).toBe(0);
    expect(tableStacks(out)).toEqual(expected);
  }, 480_000);

  test("previews only what changed since a git ref", async () => {
    fs.writeFileSync(
      file("intranet.yaml"),
      fs.readFileSync(file("intranet.yaml"), "utf8").replace("Freeze one", "Freeze two"),
    );
    const changed = await run([
      "preview",
      "--changed-since",
      "HEAD",
      "--summary",
      path.join(project.dir, "summary.md"),
    ]);
    expect(changed.status, changed.out).toBe(0);
    expect(changed.out).toContain("1 of 2 changed since HEAD");
    expect(tableStacks(changed.out)).toEqual(["dev.acme-intranet"]);
    expect(fs.readFileSync(path.join(project.dir, "summary.md"), "utf8")).toContain("acme-intranet");
  }, 480_000);

  test("selects all when the target's settings changed, and runs every stack to its end when one fails, exiting with its code", async () => {
    fs.appendFileSync(path.join(project.dir, "Pulumi.dev.yaml"), "\n");
    fs.writeFileSync(
      file("ghost.yaml"),
      "stack: acme-ghost\nenvironments:\n  uat:\n    lock:\n      message: nobody\n",
    );
    await clearRequests();
    const summary = path.join(project.dir, "up.md");
    const { status, out } = await run([
      "up",
      "--changed-since",
      "HEAD",
      "--concurrency",
      "2",
      "--summary",
      summary,
    ]);
    expect(out).toContain("shared files changed since HEAD: Pulumi.dev.yaml");
    expect(tableStacks(out)).toEqual(["dev.acme-ghost", "dev.acme-intranet", "dev.acme-web"]);
    expect(out).toMatch(/^dev\.acme-ghost\s+failed/m);
    expect(out).toMatch(/^dev\.acme-intranet\s+ok\s+1 lock message/m);
    // The only failed stack is one the user cannot see: a configuration problem, exit 2 (README).
    expect(status).toBe(2);
    expect((await writes()).filter((w) => w.includes("/acme-intranet/environment/test/lock"))).not.toEqual(
      [],
    );
    expect(fs.readFileSync(summary, "utf8")).toContain("dev.acme-ghost");
    expect(out).not.toContain("demo-token");
  }, 480_000);

  test("keeps a deleted file's resources unless told, then destroys them on request", async () => {
    fs.rmSync(file("ghost.yaml"));
    git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qam", "intranet freeze two");
    // Nothing but the deletion differs from HEAD now: no engine runs for a kept stack.
    fs.rmSync(file("intranet.yaml"));
    const kept = await run(["up", "--changed-since", "HEAD"]);
    expect(kept.status, kept.out).toBe(0);
    expect(kept.out).toContain("dev.acme-intranet: its file was deleted; its resources stay");
    await clearRequests();
    const destroyed = await run(["up", "--changed-since", "HEAD", "--destroy-deleted"]);
    expect(destroyed.status, destroyed.out).toBe(0);
    expect(destroyed.out).toMatch(/^dev\.acme-intranet\s+destroyed/m);
    expect(await writes()).toEqual(["DELETE /svc/project/acme-intranet/environment/test/lock"]);
  }, 480_000);
});
