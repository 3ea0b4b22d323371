import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkpointKey, createStackIfAbsent } from "../../../src/state-backend";
import { LAYOUT_KEY } from "../../../src/state-backend/keys";
import { openStateStore, type StateStore } from "../../../src/state-backend/store";

const PROJECT = "stackwright";
const STACK = "dev.acme-web";

describe("a new per-file stack written into a file backend", () => {
  let root: string;
  let store: StateStore;
  const where = () => ({ store, project: PROJECT, stack: STACK });

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "sw-new-stack-"));
    store = openStateStore(pathToFileURL(root).href);
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it("is the empty checkpoint pulumi stack init writes, under the project's stacks", async () => {
    expect(await createStackIfAbsent(where())).toBe(true);
    const text = await store.read(checkpointKey(PROJECT, STACK));
    expect(JSON.parse(text ?? "")).toEqual({
      version: 3,
      checkpoint: { stack: `organization/${PROJECT}/${STACK}`, latest: null },
    });
    expect(fs.readdirSync(path.join(root, ".pulumi", "stacks", PROJECT))).toEqual([`${STACK}.json`]);
  });

  it("records the project layout first, as Pulumi would, with no attributes file left half written", async () => {
    expect(await createStackIfAbsent(where())).toBe(true);
    expect(await store.read(LAYOUT_KEY)).toBe("version: 1\n");
    expect(fs.readdirSync(path.join(root, ".pulumi")).filter((name) => name.startsWith("meta"))).toEqual([
      "meta.yaml",
    ]);
  });

  it("keeps a layout record that exists, and gives a backend of the legacy layout none, as Pulumi does", async () => {
    await store.write(LAYOUT_KEY, "version: 1\n# written by pulumi\n");
    await createStackIfAbsent(where());
    expect(await store.read(LAYOUT_KEY)).toBe("version: 1\n# written by pulumi\n");

    await store.remove(LAYOUT_KEY);
    await store.write(".pulumi/stacks/old-stack.json", "a stack of the legacy layout");
    await createStackIfAbsent({ store, project: PROJECT, stack: "dev.other" });
    expect(await store.read(LAYOUT_KEY)).toBeUndefined();
  });

  it("records the layout once when many runners make their stacks in a new backend at once", async () => {
    const made = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        createStackIfAbsent({ store, project: PROJECT, stack: `dev.site-${i}` }),
      ),
    );
    expect(made).toEqual(Array.from({ length: 8 }, () => true));
    expect(await store.read(LAYOUT_KEY)).toBe("version: 1\n");
    expect(fs.readdirSync(path.join(root, ".pulumi")).filter((name) => name.includes(".tmp"))).toEqual([]);
  });

  it("keeps a stack that exists, plain or compressed, byte for byte", async () => {
    for (const suffix of ["", ".gz", ".zst"]) {
      const key = `${checkpointKey(PROJECT, STACK)}${suffix}`;
      await store.write(key, "an updated stack's checkpoint");
      expect(await createStackIfAbsent(where())).toBe(false);
      expect(await store.read(key)).toBe("an updated stack's checkpoint");
      await store.remove(key);
    }
  });

  it("is made by exactly one of many runners that create it at once, and none leaves a temporary file", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: 12 }), async (runners) => {
        await store.remove(checkpointKey(PROJECT, STACK));
        // Each runner writes its own text, so a loser overwriting the winner would show.
        const made = await Promise.all(
          Array.from({ length: runners }, (_, i) =>
            store.create(checkpointKey(PROJECT, STACK), `runner ${i}`),
          ),
        );
        expect(made.filter(Boolean)).toHaveLength(1);
        expect(await store.read(checkpointKey(PROJECT, STACK))).toBe(`runner ${made.indexOf(true)}`);
        expect(fs.readdirSync(path.join(root, ".pulumi", "stacks", PROJECT))).toEqual([`${STACK}.json`]);
      }),
      { numRuns: 25 },
    );
  });
});
