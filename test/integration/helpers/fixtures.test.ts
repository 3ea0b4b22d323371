import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect } from "vitest";
import { fixtures, GIT_AUTHOR } from "../../helpers/fixtures";

const test = fixtures({ seed: { yaml: "users: []\nstacks: []\n" } });

// The tests of this block run in order: each later one checks what vitest did after an earlier one.
describe("the test fixtures", () => {
  const seen: { scratchDir?: string; gitRepository?: string; emulatorUrl?: string } = {};

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
});
