import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { guardCreates } from "../../../../src/cli/state/in-flight";
import { lockDirectory } from "../../../../src/cli/state/locks";
import { checkpointKey, inFlightKey, openStateStore, type StateStore } from "../../../../src/state-backend";

const PROJECT = "stackwright";
const STACK = "dev.acme-web";
const URN = (name: string) =>
  `urn:pulumi:${STACK}::${PROJECT}::stackwright:index:Environment$pulumi-nodejs:dynamic/stackwright:SnapshotRestore::acme-web/uat/${name}`;
const DIGEST = "a".repeat(64);

// The record of a stack's never-repeated creates in flight, in a file backend.
describe("the creates in flight of a stack", () => {
  let root: string;
  let store: StateStore;
  const where = () => ({ store, project: PROJECT, stack: STACK });
  const journal = async () => {
    const text = await store.read(inFlightKey(PROJECT, STACK));
    return text === undefined ? undefined : (JSON.parse(text) as { creates: { urn: string }[] }).creates;
  };
  const lines: string[] = [];
  const log = (line: string) => void lines.push(line);

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "sw-in-flight-"));
    store = openStateStore(pathToFileURL(root).href);
    lines.length = 0;
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it("are recorded before they start and forgotten once answered, leaving nothing behind", async () => {
    const guard = await guardCreates(where(), log);
    expect(guard.spec.suspects).toEqual([]);
    expect(Object.keys(guard.spec.types)).toEqual([
      "pulumi-nodejs:dynamic/stackwright:SnapshotRestore",
      "pulumi-nodejs:dynamic/stackwright:RecordAction",
    ]);
    await guard.record({ urn: URN("a"), inputs: DIGEST });
    await guard.record({ urn: URN("b"), inputs: DIGEST });
    expect((await journal())?.map((c) => c.urn)).toEqual([URN("a"), URN("b")]);
    await guard.answered({ urn: URN("a"), inputs: DIGEST });
    expect((await journal())?.map((c) => c.urn)).toEqual([URN("b")]);
    await guard.answered({ urn: URN("b"), inputs: DIGEST });
    // The last one forgotten removes the object.
    expect(await journal()).toBeUndefined();
  });

  it("left by a killed run are the next run's suspects, said in the words of a pending create", async () => {
    await (await guardCreates(where(), log)).record({ urn: URN("a"), inputs: DIGEST });
    const next = await guardCreates(where(), log);
    expect(next.spec.suspects).toEqual([
      {
        create: { urn: URN("a"), inputs: DIGEST },
        note: expect.stringMatching(
          /dev\.acme-web: the SnapshotRestore acme-web\/uat\/a was in flight when an earlier run stopped/,
        ),
      },
    ]);
  });

  it("are no suspects once the checkpoint records them, and are forgotten only while no run holds the stack", async () => {
    const first = await guardCreates(where(), log);
    await first.record({ urn: URN("a"), inputs: DIGEST });
    await first.record({ urn: URN("b"), inputs: DIGEST });
    await store.write(
      checkpointKey(PROJECT, STACK),
      JSON.stringify({
        version: 3,
        checkpoint: {
          latest: {
            resources: [{ urn: URN("a"), type: "pulumi-nodejs:dynamic/stackwright:SnapshotRestore" }],
          },
        },
      }),
    );
    // Another run holds the lock: its records must not be overwritten, so nothing is written.
    await store.write(`${lockDirectory(PROJECT, STACK)}/other.json`, "{}");
    const whileLocked = await guardCreates(where(), log);
    expect(whileLocked.spec.suspects.map((s) => s.create.urn)).toEqual([URN("b")]);
    expect((await journal())?.map((c) => c.urn)).toEqual([URN("a"), URN("b")]);
    // Unlocked: the recorded one is forgotten.
    await store.remove(`${lockDirectory(PROJECT, STACK)}/other.json`);
    const unlocked = await guardCreates(where(), log);
    expect(unlocked.spec.suspects.map((s) => s.create.urn)).toEqual([URN("b")]);
    expect((await journal())?.map((c) => c.urn)).toEqual([URN("b")]);
  });

  it("refuses a record it cannot read, naming it and what to do, and keeps it", async () => {
    await store.write(inFlightKey(PROJECT, STACK), "{ not json");
    await expect(guardCreates(where(), log)).rejects.toThrow(
      /\.pulumi\/stackwright\/in-flight\/stackwright\/dev\.acme-web\.json in file:.* is not a record of creates in flight.*delete that object/,
    );
    expect(await store.read(inFlightKey(PROJECT, STACK))).toBe("{ not json");
  });
});
