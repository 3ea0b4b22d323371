import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { gzipSync } from "node:zlib";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { canonicalJson, DATA_READS_DIR_ENV, dataReadsFileName, readDigest } from "../../../../src/api";
import { API_CONCURRENCY_VARIABLE } from "../../../../src/client";
import { inputDigests, settingsDigest, type RunInputs } from "../../../../src/project/fingerprint";
import {
  confirmWithoutEngine,
  provedNoChange,
  recordNoChangeRun,
  type Shortcut,
} from "../../../../src/cli/fleet/shortcut";
import {
  checkpointIdentity,
  confirmationKey,
  readConfirmation,
  type InputDigests,
} from "../../../../src/cli/state/confirmations";
import { openStateStore, type StateStore } from "../../../../src/state-backend/store";

const PROJECT = "stackwright";
const STACK = "dev.acme-web";
const digest = (c: string) => c.repeat(64);
const INPUTS: InputDigests = {
  file: digest("a"),
  settings: digest("b"),
  credentials: digest("e"),
  tool: digest("c"),
  flags: digest("d"),
};

describe("the inputs of a run as digests", () => {
  let dir: string;
  let base: RunInputs;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "fingerprint-"));
    fs.writeFileSync(path.join(dir, "acme-web.yaml"), "stack: acme-web\n");
    fs.writeFileSync(path.join(dir, "Pulumi.dev.yaml"), "config: {}\n");
    fs.mkdirSync(path.join(dir, "dist"));
    fs.writeFileSync(path.join(dir, "dist", "index.js"), "1");
    base = {
      stackFile: path.join(dir, "acme-web.yaml"),
      configFile: path.join(dir, "Pulumi.dev.yaml"),
      env: { STACKWRIGHT_API_TOKEN: "s3cret-token", PATH: "/bin" },
      projectDir: dir,
      pulumiVersion: "3.200.0",
      flags: { stack: STACK, operation: "up" },
    };
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("are the same for the same inputs, and change only the part that changed", () => {
    const before = inputDigests(base);
    expect(inputDigests(base)).toEqual(before);
    fs.writeFileSync(path.join(dir, "acme-web.yaml"), "stack: acme-web\n# a comment\n");
    expect(inputDigests(base)).toEqual({ ...before, file: expect.not.stringMatching(before.file) });
    const token = inputDigests({ ...base, env: { ...base.env, STACKWRIGHT_API_TOKEN: "other" } });
    expect(token).toEqual({
      ...inputDigests(base),
      credentials: expect.not.stringMatching(before.credentials),
    });
    const url = inputDigests({ ...base, env: { ...base.env, STACKWRIGHT_API_URL: "https://other.example" } });
    expect(url).toEqual({
      ...inputDigests(base),
      credentials: expect.not.stringMatching(before.credentials),
    });
    const other = inputDigests({ ...base, env: { ...base.env, STACKWRIGHT_NOW: "2026-01-01T00:00:00Z" } });
    expect(other).toEqual({ ...inputDigests(base), settings: expect.not.stringMatching(before.settings) });
    const flags = inputDigests({ ...base, flags: { ...base.flags, stack: "prod.acme-web" } });
    expect(flags.flags).not.toBe(before.flags);
    expect(inputDigests({ ...base, pulumiVersion: "3.201.0" }).tool).not.toBe(before.tool);
  });

  it("ignore variables outside STACKWRIGHT_*, the per-run reports directory, the API concurrency and the scripts' own settings", () => {
    const settings = settingsDigest(base.configFile, base.env);
    expect(
      settingsDigest(base.configFile, {
        ...base.env,
        PATH: "/usr/bin",
        [DATA_READS_DIR_ENV]: "/tmp/x",
        [API_CONCURRENCY_VARIABLE]: "16",
        STACKWRIGHT_CACHE_DIR: "/tmp/cache",
        STACKWRIGHT_PYTHON: "/usr/bin/python3",
        STACKWRIGHT_CHROMIUM: "/usr/bin/chromium",
      }),
    ).toBe(settings);
    expect(settingsDigest(base.configFile, { ...base.env, STACKWRIGHT_NOW: "2026-01-01" })).not.toBe(
      settings,
    );
  });

  it("treat a missing file as the same missing file each time", () => {
    const missing = { ...base, stackFile: path.join(dir, "gone.yaml") };
    expect(inputDigests(missing).file).toBe(inputDigests(missing).file);
    expect(inputDigests(missing).file).not.toBe(inputDigests(base).file);
  });
});

describe("canonical answers", () => {
  it("digest the same value the same way whatever the order of its keys", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (value) => {
        const reversed = Object.fromEntries(Object.entries(value).reverse());
        expect(canonicalJson(reversed)).toBe(canonicalJson(value));
        expect(readDigest(reversed)).toBe(readDigest(value));
      }),
    );
  });
});

describe("the confirmation record in the backend", () => {
  let root: string;
  let store: StateStore;
  let readsDir: string;
  const where = () => ({ store, project: PROJECT, stack: STACK });
  const checkpointFile = () => path.join(root, ".pulumi", "stacks", PROJECT, `${STACK}.json`);
  const writeCheckpoint = (pending: unknown[] = [], time = "t1") => {
    fs.mkdirSync(path.dirname(checkpointFile()), { recursive: true });
    fs.writeFileSync(
      checkpointFile(),
      JSON.stringify({
        version: 3,
        checkpoint: { latest: { manifest: { time }, pending_operations: pending } },
      }),
    );
  };
  const shortcut = (reads: unknown = []): Shortcut => {
    fs.writeFileSync(path.join(readsDir, dataReadsFileName(STACK)), JSON.stringify({ stack: STACK, reads }));
    return {
      confirm: true,
      readsDir,
      inputs: () => INPUTS,
      client: () => Promise.reject(new Error("no API in this test")),
    };
  };
  const noChange = { changes: {}, events: [] };

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "confirmations-"));
    readsDir = fs.mkdtempSync(path.join(os.tmpdir(), "reads-"));
    store = openStateStore(`file://${root}`);
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(readsDir, { recursive: true, force: true });
  });

  it("is written after a no-change run and confirms the next one while nothing moved", async () => {
    writeCheckpoint();
    expect(await recordNoChangeRun(where(), INPUTS, shortcut(), noChange)).toBe(true);
    expect(await confirmWithoutEngine(where(), INPUTS, shortcut())).toEqual({ confirmed: true });
  });

  it("is not written after a run that changed something, warned, or left operations pending", async () => {
    writeCheckpoint();
    expect(await recordNoChangeRun(where(), INPUTS, shortcut(), { changes: { update: 1 }, events: [] })).toBe(
      false,
    );
    const warned: EngineEvent = {
      sequence: 1,
      timestamp: 0,
      diagnosticEvent: { message: "Drift on acme-web/uat", color: "never", severity: "warning" },
    };
    expect(provedNoChange({}, [warned])).toBe(false);
    expect(await recordNoChangeRun(where(), INPUTS, shortcut(), { changes: {}, events: [warned] })).toBe(
      false,
    );
    writeCheckpoint([{ type: "creating" }]);
    expect(await recordNoChangeRun(where(), INPUTS, shortcut(), noChange)).toBe(false);
    expect(fs.existsSync(path.join(root, ...confirmationKey(PROJECT, STACK).split("/")))).toBe(false);
  });

  it("is not written when the program did not report its reads (another program, a crash)", async () => {
    writeCheckpoint();
    const silent: Shortcut = {
      confirm: true,
      readsDir,
      inputs: () => INPUTS,
      client: () => Promise.reject(new Error("none")),
    };
    expect(await recordNoChangeRun(where(), INPUTS, silent, noChange)).toBe(false);
  });

  it("stops confirming once the inputs, the checkpoint or the lock say something moved", async () => {
    writeCheckpoint();
    await recordNoChangeRun(where(), INPUTS, shortcut(), noChange);
    expect(await confirmWithoutEngine(where(), { ...INPUTS, tool: digest("e") }, shortcut())).toMatchObject({
      reason: "inputs changed: tool",
    });
    // Another user's token: `up` runs the engine (drift, which reads as its own user, does not).
    expect(
      await confirmWithoutEngine(where(), { ...INPUTS, credentials: digest("9") }, shortcut()),
    ).toMatchObject({ reason: "inputs changed: credentials" });
    const lockDir = path.join(root, ".pulumi", "locks", "organization", PROJECT, STACK);
    fs.mkdirSync(lockDir, { recursive: true });
    fs.writeFileSync(path.join(lockDir, "x.json"), "{}");
    expect(await confirmWithoutEngine(where(), INPUTS, shortcut())).toMatchObject({
      reason: "the stack is locked",
    });
    fs.rmSync(lockDir, { recursive: true });
    writeCheckpoint([], "t2"); // any engine run rewrites the checkpoint
    expect(await confirmWithoutEngine(where(), INPUTS, shortcut())).toMatchObject({
      reason: "the state changed since (another engine run)",
    });
  });

  it("runs the engine when a recorded read cannot be made again", async () => {
    writeCheckpoint();
    const read = {
      name: "environment",
      args: { stack: "acme-web", environment: "uat" },
      digest: digest("f"),
    };
    await recordNoChangeRun(where(), INPUTS, shortcut([read]), noChange);
    expect((await readConfirmation(store, PROJECT, STACK))?.reads).toEqual([read]);
    await expect(confirmWithoutEngine(where(), INPUTS, shortcut([read]))).rejects.toThrow(
      "no API in this test",
    );
  });

  it("ignores a record of another stack or in another shape", async () => {
    writeCheckpoint();
    await recordNoChangeRun(where(), INPUTS, shortcut(), noChange);
    const key = path.join(root, ...confirmationKey(PROJECT, STACK).split("/"));
    fs.writeFileSync(
      key,
      fs.readFileSync(key, "utf8").replace(`"stack": "${STACK}"`, `"stack": "dev.other"`),
    );
    expect(await readConfirmation(store, PROJECT, STACK)).toBeUndefined();
    fs.writeFileSync(key, "{ not json");
    expect(await confirmWithoutEngine(where(), INPUTS, shortcut())).toMatchObject({ confirmed: false });
  });

  it("identifies a compressed checkpoint by its bytes and counts its pending operations", async () => {
    fs.mkdirSync(path.dirname(checkpointFile()), { recursive: true });
    const text = JSON.stringify({ checkpoint: { latest: { pending_operations: [{}, {}] } } });
    fs.writeFileSync(`${checkpointFile()}.gz`, gzipSync(text));
    expect(await checkpointIdentity(store, PROJECT, STACK)).toMatchObject({ pendingOperations: 2 });
    fs.writeFileSync(`${checkpointFile()}.gz`, "not gzip");
    expect(await checkpointIdentity(store, PROJECT, STACK)).toBeUndefined();
  });
});
