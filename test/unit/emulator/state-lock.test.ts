import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { stateFileHolder, stateLockPath, takeStateLock } from "../../../src/emulator/state-lock";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe("the lock of an emulator's state file", () => {
  it("is taken in a folder that does not exist yet, as the state file beside it would be", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-state-lock-"));
    dirs.push(dir);
    const stateFile = path.join(dir, ".stackwright", "emulator.db");
    const lock = takeStateLock(stateFile);
    expect(fs.existsSync(stateLockPath(stateFile))).toBe(true);
    expect(stateFileHolder(stateFile)?.pid).toBe(process.pid);
    lock.release();
    expect(fs.existsSync(stateLockPath(stateFile))).toBe(false);
  });
});
