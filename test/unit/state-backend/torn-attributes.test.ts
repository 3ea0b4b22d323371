import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkpointKeys, LAYOUT_KEY } from "../../../src/state-backend/keys";
import { openStateStore, type StateStore } from "../../../src/state-backend/store";
import { removeTornAttributes } from "../../../src/state-backend/torn-attributes";

const PROJECT = "stackwright";
const STACK = "dev.acme-web";
const CHECKPOINT = checkpointKeys(PROJECT, STACK).plain;
// As fileblob writes a blob's attributes (Go's json of its xattrs).
const WHOLE = '{"user.cache_control":"","user.content_type":"application/octet-stream","md5":"AAAA"}';

describe("attributes files a killed engine tore in a file backend", () => {
  let root: string;
  let store: StateStore;
  const where = () => ({ store, project: PROJECT, stack: STACK });
  const file = (key: string) => path.join(root, ...key.split("/"));
  const put = (key: string, text: string) => {
    fs.mkdirSync(path.dirname(file(key)), { recursive: true });
    fs.writeFileSync(file(key), text);
  };

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "sw-torn-"));
    store = openStateStore(pathToFileURL(root).href);
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it("removes the checkpoint's empty attributes file and keeps the checkpoint", async () => {
    put(CHECKPOINT, '{"version":3}');
    put(`${CHECKPOINT}.attrs`, "");
    expect(await removeTornAttributes(where())).toEqual([`${CHECKPOINT}.attrs`]);
    expect(fs.existsSync(file(`${CHECKPOINT}.attrs`))).toBe(false);
    expect(fs.readFileSync(file(CHECKPOINT), "utf8")).toBe('{"version":3}');
  });

  it("removes the layout record's torn attributes file too, and leaves whole ones as they are", async () => {
    put(LAYOUT_KEY, "version: 1\n");
    put(`${LAYOUT_KEY}.attrs`, '{"user.cache_con');
    put(CHECKPOINT, '{"version":3}');
    put(`${CHECKPOINT}.attrs`, WHOLE);
    expect(await removeTornAttributes(where())).toEqual([`${LAYOUT_KEY}.attrs`]);
    expect(fs.readFileSync(file(`${CHECKPOINT}.attrs`), "utf8")).toBe(WHOLE);
  });

  it("finds nothing to remove in a backend with no attributes files, or none at all", async () => {
    expect(await removeTornAttributes(where())).toEqual([]);
    put(CHECKPOINT, '{"version":3}');
    expect(await removeTornAttributes(where())).toEqual([]);
  });

  it("removes an attributes file exactly when it is not a JSON object", async () => {
    const texts = fc.oneof(
      fc.string(),
      fc.json(),
      fc.constant(WHOLE).chain((whole) => fc.nat(whole.length).map((n) => whole.slice(0, n))),
    );
    await fc.assert(
      fc.asyncProperty(texts, async (text) => {
        put(`${CHECKPOINT}.attrs`, text);
        const removed = await removeTornAttributes(where());
        let object = false;
        try {
          const value: unknown = JSON.parse(text);
          object = typeof value === "object" && value !== null && !Array.isArray(value);
        } catch {
          object = false;
        }
        expect(removed).toEqual(object ? [] : [`${CHECKPOINT}.attrs`]);
        expect(fs.existsSync(file(`${CHECKPOINT}.attrs`))).toBe(object);
      }),
      { numRuns: 200 },
    );
  });
});

describe("an S3 backend", () => {
  it("has no attributes files to tear, and asks the store nothing", async () => {
    // Port 1 answers nothing: a request would fail the call.
    const store = openStateStore(
      "s3://bucket?region=us-east-1&endpoint=http://127.0.0.1:1&use_path_style=true",
      {
        AWS_ACCESS_KEY_ID: "test",
        AWS_SECRET_ACCESS_KEY: "test",
      },
    );
    expect(await removeTornAttributes({ store, project: PROJECT, stack: STACK })).toEqual([]);
  });
});
