import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "..", "..", "..");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-lazy-sdk-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

interface Seen {
  readonly atImport: string[];
  readonly serialized: boolean;
  readonly afterCall: string[];
}

/** In a fresh Node process: imports the SDK (after the deferral when `deferred`), then serializes a function. */
function importTheSdk(deferred: boolean): Seen {
  const entry = path.join(dir, `entry-${String(deferred)}.ts`);
  fs.writeFileSync(
    entry,
    [
      deferred
        ? `require(${JSON.stringify(path.join(root, "src", "lazy-sdk", "register.ts"))}).deferClosureSerializer();`
        : "",
      `const pulumi = require(${JSON.stringify(path.join(root, "node_modules", "@pulumi", "pulumi"))});`,
      // TypeScript itself is loaded by run-ts.cjs, so the serializer's own module stands for it.
      // A deferred module stands in the cache under its own name; the real one has loaded what it requires.
      "const loadedForReal = (k) => !k.includes('/closure/') || require.cache[k].children.length > 0;",
      "const heavy = () => Object.keys(require.cache).filter(loadedForReal).map((k) => /node_modules\\/(@npmcli\\/arborist|pacote|@pulumi\\/pulumi\\/runtime\\/closure\\/(?:serializeClosure|codePaths)\\.js)/.exec(k)?.[1]).filter((v, i, a) => v !== undefined && a.indexOf(v) === i).sort();",
      "const atImport = heavy();",
      "const answer = 42;",
      "pulumi.runtime.serializeFunction(() => answer).then((f) => {",
      "  process.stdout.write(JSON.stringify({ atImport, serialized: f.text.includes('answer: 42'), afterCall: heavy() }));",
      "});",
    ].join("\n"),
  );
  const out = execFileSync(process.execPath, [path.join(root, "test", "helpers", "run-ts.cjs"), entry], {
    encoding: "utf8",
    timeout: 120_000,
  });
  return JSON.parse(out) as Seen;
}

describe("the SDK's closure serializer in a stackwright process", () => {
  it("is loaded by the SDK's import with npm's package walker when nothing defers it", () => {
    // The reason for the deferral: if the SDK stops loading them up front, this fails and it can go.
    expect(importTheSdk(false).atImport).toEqual([
      "@npmcli/arborist",
      "@pulumi/pulumi/runtime/closure/codePaths.js",
      "@pulumi/pulumi/runtime/closure/serializeClosure.js",
      "pacote",
    ]);
  });

  it("is loaded on its first call once deferred, and serializes a function as before", () => {
    const seen = importTheSdk(true);
    expect(seen.atImport).toEqual([]);
    expect(seen.serialized).toBe(true);
    expect(seen.afterCall).toContain("@pulumi/pulumi/runtime/closure/serializeClosure.js");
  });
});
