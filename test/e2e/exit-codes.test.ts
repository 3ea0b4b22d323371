import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT_CODES } from "../../src/cli/kit/exit-codes";
import { lockDirectory } from "../../src/cli/state/locks";
import { demoCredentials, emulatorHooks, spawnEmulator, type EmulatorProcess } from "../helpers/emulator";
import { createScratchProject, type ScratchProject } from "../helpers/scratch-project";

// Every row of the README's exit-code table (src/cli/kit/exit-codes.ts), provoked through the real
// `stackwright` command as an operator runs it, each ending with one line that names the cause and
// no stack trace. The interrupted row (130) is provoked by test/e2e/state-recovery.test.ts
// ("stops gracefully on SIGINT").

/** A stack frame as Node prints one. */
const FRAME = /^\s+at .+\(?.+:\d+:\d+\)?$/m;

describe("the exit-code table, each row provoked by the stackwright command", () => {
  let project: ScratchProject;
  let emulator: EmulatorProcess;
  let env: Record<string, string>;
  /** Runs the command with stdout and stderr in one stream, in the order they were written. */
  const run = (args: readonly string[], extra: Record<string, string> = {}, node = process.execPath) => {
    const result = spawnSync("/bin/sh", ["-c", '"$0" bin/stackwright.js "$@" 2>&1', node, ...args], {
      cwd: project.dir,
      env: { ...env, ...extra },
      encoding: "utf8",
      timeout: 240_000,
    });
    return { status: result.status, out: result.stdout, lines: result.stdout.trim().split("\n") };
  };
  const configFile = () => path.join(project.dir, "stacks-config", "acme-web.yaml");
  const editConfig = (change: (text: string) => string) =>
    fs.writeFileSync(configFile(), change(fs.readFileSync(configFile(), "utf8")));

  beforeAll(async () => {
    project = createScratchProject();
    emulator = await spawnEmulator(["--port", "0", "--speed", "instant"], 30_000, { fromDist: true });
    env = { ...project.env, ...demoCredentials(emulator.url) };
  }, 60_000);

  afterAll(async () => {
    if (emulator?.child.exitCode === null) {
      emulator.child.kill("SIGKILL");
      await emulator.exited;
    }
    project?.remove();
  });

  it("0: success, when there is nothing wrong", () => {
    const { status, out } = run(["validate"]);
    expect(out).toContain("valid");
    expect(status).toBe(EXIT_CODES.ok);
  });

  it("2: an unknown flag, in one line with the pointer to --help", () => {
    const { status, lines } = run(["preview", "--no-such-flag"]);
    expect(lines[0]).toMatch(/no-such-flag.* \(npm run stackwright -- preview --help lists its flags\)$/);
    expect(lines).toHaveLength(1);
    expect(status).toBe(EXIT_CODES.usage);
  });

  it("2: a target without a settings file, in one line", () => {
    const { status, lines } = run(["preview", "--target", "nowhere"]);
    expect(lines[0]).toContain("target 'nowhere' has no settings file");
    expect(lines[0]).toContain("docs/guide.md");
    expect(lines).toHaveLength(1);
    expect(status).toBe(EXIT_CODES.usage);
  });

  it("2: the emulator on a port that is taken, in one line", () => {
    const { status, lines } = run(["emulator", "--port", String(emulator.port)]);
    expect(lines).toEqual([expect.stringContaining(`port ${emulator.port}`)]);
    expect(status).toBe(EXIT_CODES.usage);
  });

  it("2: the emulator with a seed file that does not exist, in one line", () => {
    const { status, lines } = run(["emulator", "--seed", "no-such-seed.yaml"]);
    expect(lines).toEqual([expect.stringContaining("no-such-seed.yaml")]);
    expect(status).toBe(EXIT_CODES.usage);
  });

  it("2: a user who cannot see a stack reads its line before anything else", () => {
    const { status, lines } = run(["preview"], {
      STACKWRIGHT_EMAIL: "outsider@example.com",
      STACKWRIGHT_API_TOKEN: "outsider-token",
    });
    expect(lines[0]).toContain(
      "stackwright preview: outsider@example.com has no access to stack 'acme-web'; ask an owner of the stack",
    );
    expect(status).toBe(EXIT_CODES.usage);
  }, 240_000);

  it("4: a --project directory without Pulumi.yaml", () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-no-project-"));
    try {
      const { status, lines } = run(["preview", "--project", empty]);
      expect(lines).toEqual([expect.stringContaining(`${empty} has no Pulumi.yaml`)]);
      expect(status).toBe(EXIT_CODES.environment);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });

  it("4: a Node.js older than 22 (the system's Node 20), in one line", () => {
    const old = "/usr/bin/node";
    const version = spawnSync(old, ["--version"], { encoding: "utf8" }).stdout.trim();
    expect(version).toMatch(/^v(1\d|2[01])\./);
    const { status, lines } = run(["validate"], {}, old);
    expect(lines).toEqual([expect.stringContaining("stackwright needs Node.js 22 or later")]);
    expect(status).toBe(EXIT_CODES.environment);
  });

  it("4: an API that answers 503 (down) to its identity call, after its retries", async () => {
    const hooks = emulatorHooks(emulator.url);
    await hooks.fault({ method: "GET", path: "/svc/meta", kind: "status", status: 503, count: 1000 });
    try {
      const { status, lines } = run(["preview"]);
      expect(lines).toEqual([
        expect.stringMatching(/^stackwright preview: the API at .+ (failed|answered 503)/),
      ]);
      expect(status).toBe(EXIT_CODES.environment);
    } finally {
      await hooks.clearFaults();
    }
  }, 240_000);

  it("1: a change refused on purpose (a lock that stays) ends with the refusal's line and no frames", () => {
    const up = run(["up"]);
    expect(up.status, up.out).toBe(EXIT_CODES.ok);
    editConfig((text) =>
      text.replace(
        "title: Promote UAT to production",
        'title: Promote UAT to production\n      trigger: "again"',
      ),
    );
    try {
      const { status, out, lines } = run(["preview"]);
      expect(out).not.toMatch(FRAME);
      expect(out).not.toContain("report above");
      // The stack's closing line names the cause: the engine's own diagnostic, extracted.
      expect(lines).toContainEqual(
        expect.stringMatching(
          /^dev\.acme-web: stackwright preview failed: acme-web\/prod is locked \("Change freeze until 2026-12-01"\) and stays locked in this change/,
        ),
      );
      expect(status).toBe(EXIT_CODES.failed);
    } finally {
      editConfig((text) => text.replace('\n      trigger: "again"', ""));
    }
  }, 480_000);

  it("3: a stack whose lock a live run holds", () => {
    const dir = path.join(project.stateDir, lockDirectory("stackwright", "dev.acme-web"));
    fs.mkdirSync(dir, { recursive: true });
    const lock = path.join(dir, "3b1c2d4e-0000-4000-8000-000000000003.json");
    fs.writeFileSync(
      lock,
      JSON.stringify({
        pid: process.pid,
        username: os.userInfo().username,
        hostname: os.hostname(),
        timestamp: new Date().toISOString(),
      }),
    );
    try {
      const { status, out } = run(["up"]);
      expect(out).toMatch(/stack dev\.acme-web is being updated by .+ pid \d+ since/);
      expect(out).not.toMatch(FRAME);
      expect(status).toBe(EXIT_CODES.locked);
    } finally {
      fs.rmSync(lock);
    }
  }, 240_000);

  it("servers: the emulator stopped by SIGTERM exits 0 after saying so", async () => {
    emulator.child.kill("SIGTERM");
    expect(await emulator.exited).toBe(0);
  });
});
