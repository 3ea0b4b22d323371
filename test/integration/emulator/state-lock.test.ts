import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startEmulator, StateFileInUseError, stateFileHolder, stateLockPath } from "../../../src/emulator";
import {
  TEST_SEED_PATH,
  TWO_EMULATOR_STARTS_MS,
  spawnEmulator,
  type EmulatorProcess,
} from "../../helpers/emulator";
import { apiCaller } from "../../helpers/emulator-http";

const RUN = [
  path.resolve(__dirname, "../../helpers/run-ts.cjs"),
  path.resolve(__dirname, "../../helpers/emulator-main.ts"),
];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "emulator-lock-"));
const started: EmulatorProcess[] = [];
afterAll(() => {
  for (const p of started)
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
  fs.rmSync(dir, { recursive: true, force: true });
});

async function serve(stateFile: string): Promise<EmulatorProcess> {
  const p = await spawnEmulator([
    "--port",
    "0",
    "--speed",
    "instant",
    "--seed",
    TEST_SEED_PATH,
    "--state-file",
    stateFile,
  ]);
  started.push(p);
  return p;
}

function runToEnd(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [...RUN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("exit", (code) => done({ code, stdout, stderr }));
  });
}

describe("one emulator per state file", { timeout: TWO_EMULATOR_STARTS_MS }, () => {
  it("refuses a second emulator on the same state file in one line naming the first, which keeps serving", async () => {
    const stateFile = path.join(dir, "shared.db");
    const first = await serve(stateFile);
    expect(stateFileHolder(stateFile)).toEqual({ pid: first.child.pid, url: first.url });

    const second = await runToEnd(["--port", "0", "--seed", TEST_SEED_PATH, "--state-file", stateFile]);
    expect(second.code).toBe(2);
    expect(second.stdout).toBe("");
    expect(second.stderr.trim()).toBe(
      `stackwright emulator: the state file ${stateFile} is in use by the emulator of pid ${String(first.child.pid)} at ${first.url} ` +
        `(${stateLockPath(stateFile)}); use that emulator, stop it, or pass another state file`,
    );
    expect((await apiCaller(first.url)("GET", "/svc/projects")).status).toBe(200);

    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    expect(fs.existsSync(stateLockPath(stateFile))).toBe(false);
  });

  it("takes over the lock of an emulator that was killed", async () => {
    const stateFile = path.join(dir, "killed.db");
    const killed = await serve(stateFile);
    killed.child.kill("SIGKILL");
    expect(await killed.exited).toBe("SIGKILL");
    expect(fs.existsSync(stateLockPath(stateFile))).toBe(true);
    expect(stateFileHolder(stateFile)).toBeUndefined();

    const next = await serve(stateFile);
    expect(stateFileHolder(stateFile)).toEqual({ pid: next.child.pid, url: next.url });
    next.child.kill("SIGTERM");
    expect(await next.exited).toBe(0);
  });

  it("takes over a lock left half written, and refuses a second server in the same process", async () => {
    const stateFile = path.join(dir, "in-process.db");
    // A pid that ran and is gone, and a lock cut short.
    const gone = spawnSync(process.execPath, ["-e", ""]).pid;
    fs.writeFileSync(stateLockPath(stateFile), JSON.stringify({ pid: gone }));
    const first = await startEmulator({ seed: TEST_SEED_PATH, stateFile, speed: "instant" });
    try {
      await expect(
        startEmulator({ seed: TEST_SEED_PATH, stateFile, speed: "instant" }),
      ).rejects.toBeInstanceOf(StateFileInUseError);
    } finally {
      await first.close();
    }
    expect(fs.existsSync(stateLockPath(stateFile))).toBe(false);
    fs.writeFileSync(stateLockPath(stateFile), '{"pid": 12');
    const again = await startEmulator({ seed: TEST_SEED_PATH, stateFile, speed: "instant" });
    await again.close();
  });
});
