import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect } from "vitest";
import { fixtures, GIT_AUTHOR, setProcessEnv } from "../../helpers/fixtures";

// No engine runs here, so no KMS key either: the scratch project keeps the demo's passphrase.
const test = fixtures({ seed: { yaml: "users: []\nstacks: []\n" }, project: { secrets: "passphrase" } });

// The tests of this block run in order: each later one checks what vitest did after an earlier one.
describe("the test fixtures", () => {
  const seen: {
    scratchDir?: string;
    gitRepository?: string;
    emulatorUrl?: string;
    freshProject?: string;
    fileScratchDir?: string;
  } = {};

  test("give a test an empty directory and a repository on main with one commit by the fixtures' author", ({
    scratchDir,
    gitRepository,
  }) => {
    seen.scratchDir = scratchDir;
    seen.gitRepository = gitRepository.dir;
    expect(fs.readdirSync(scratchDir)).toEqual([]);
    expect(gitRepository.git("symbolic-ref", "--short", "HEAD")).toBe("main");
    expect(gitRepository.git("log", "--format=%an <%ae>|%s")).toBe(
      `${GIT_AUTHOR.name} <${GIT_AUTHOR.email}>|first`,
    );
    expect(fs.readFileSync(path.join(gitRepository.dir, "a.yaml"), "utf8")).toBe("old\n");
    gitRepository.commit("b/c.yaml", "new\n", "second");
    expect(gitRepository.git("status", "--porcelain")).toBe("");
  });

  test("remove a test's directory and repository after it", () => {
    expect(seen.scratchDir).toBeDefined();
    expect(fs.existsSync(seen.scratchDir ?? "")).toBe(false);
    expect(fs.existsSync(seen.gitRepository ?? "")).toBe(false);
  });

  test("start the in-process emulator from the file's seed, with the seeded operator's settings", async ({
    emulatorInProcess,
  }) => {
    seen.emulatorUrl = emulatorInProcess.url;
    expect(emulatorInProcess.env["STACKWRIGHT_API_URL"]).toBe(emulatorInProcess.url);
    expect(await emulatorInProcess.hooks.requests()).toEqual([]);
  });

  test("keep one emulator for the whole file", ({ emulatorInProcess }) => {
    expect(emulatorInProcess.url).toBe(seen.emulatorUrl);
  });

  test("give a test a fresh scratch project of its own, and the file one scratch directory", ({
    freshProject,
    fileScratchDir,
  }) => {
    seen.freshProject = freshProject.dir;
    seen.fileScratchDir = fileScratchDir;
    expect(fs.existsSync(path.join(freshProject.dir, "Pulumi.yaml"))).toBe(true);
    expect(fs.existsSync(freshProject.stateDir)).toBe(true);
    fs.writeFileSync(path.join(fileScratchDir, "kept"), "");
  });

  test("remove a test's fresh project after it, and keep the file's directory", ({ fileScratchDir }) => {
    expect(seen.freshProject).toBeDefined();
    expect(fs.existsSync(seen.freshProject ?? "")).toBe(false);
    expect(fileScratchDir).toBe(seen.fileScratchDir);
    expect(fs.readdirSync(fileScratchDir)).toEqual(["kept"]);
  });

  test("start webhook receivers, each its own", async ({ receivers }) => {
    const [one, two] = [await receivers(), await receivers({ fallback: { status: 500 } })];
    expect(one.url).not.toBe(two.url);
    expect((await fetch(one.url, { method: "POST", body: "{}" })).status).toBe(200);
    expect((await fetch(two.url, { method: "POST", body: "{}" })).status).toBe(500);
    expect(one.received).toHaveLength(1);
  });
});

describe("setProcessEnv (what the s3 fixture sets the bucket's credentials with)", () => {
  test("sets variables and gives back what was there, removing those that were not", () => {
    const [kept, added] = ["STACKWRIGHT_FIXTURES_TEST_KEPT", "STACKWRIGHT_FIXTURES_TEST_ADDED"];
    process.env[kept] = "before";
    delete process.env[added];
    try {
      const giveBack = setProcessEnv({ [kept]: "during", [added]: "during" });
      expect([process.env[kept], process.env[added]]).toEqual(["during", "during"]);
      giveBack();
      expect(process.env[kept]).toBe("before");
      expect(added in process.env).toBe(false);
    } finally {
      delete process.env[kept];
      delete process.env[added];
    }
  });
});
