import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect } from "vitest";
import { fixtures } from "../helpers/fixtures";

const root = path.resolve(__dirname, "..", "..");
const test = fixtures();

interface Seen {
  /** zod's locale files in the module cache after `require("zod")`, "en.cjs" aside. */
  readonly atImport: number;
  /** A schema's message, in English by default. */
  readonly english: string;
  /** The same message after `z.config(z.locales.fr())`. */
  readonly french: string;
  readonly afterUse: number;
}

/** In a fresh Node process: loads zod (after the deferral when `deferred`), then uses a locale. */
function loadZod(dir: string, deferred: boolean): Seen {
  const script = [
    deferred ? `require(${JSON.stringify(path.join(root, "src", "zod-locales.ts"))});` : "",
    `const { z } = require(${JSON.stringify(path.join(root, "node_modules", "zod"))});`,
    // A stand-in is in the cache under the index's name; the real files are the languages'.
    "const locales = () => Object.keys(require.cache).filter((k) => /\\/v4\\/locales\\/(?!index|en\\.)[^/]+\\.cjs$/.test(k)).length;",
    "const atImport = locales();",
    "const message = () => z.string().safeParse(1).error.issues[0].message;",
    "const english = message();",
    "z.config(z.locales.fr());",
    "process.stdout.write(JSON.stringify({ atImport, english, french: message(), afterUse: locales() }));",
  ].join("\n");
  const entry = path.join(dir, `entry-${String(deferred)}.ts`);
  fs.writeFileSync(entry, script);
  const out = execFileSync(process.execPath, [path.join(root, "test", "helpers", "run-ts.cjs"), entry], {
    encoding: "utf8",
    timeout: 120_000,
  });
  return JSON.parse(out) as Seen;
}

describe("zod's locales in a stackwright process", () => {
  test("are all loaded by zod's import when nothing defers them", ({ scratchDir }) => {
    // The reason for the deferral: if zod stops loading them up front, this fails and it can go.
    expect(loadZod(scratchDir, false).atImport).toBeGreaterThan(50);
  });

  test("are loaded when one is asked for once deferred, and speak as before", ({ scratchDir }) => {
    const deferred = loadZod(scratchDir, true);
    const plain = loadZod(scratchDir, false);
    expect(deferred.atImport).toBe(0);
    expect(deferred.english).toBe(plain.english);
    expect(deferred.english).toContain("expected string");
    expect(deferred.french).toBe(plain.french);
    expect(deferred.french).not.toBe(deferred.english);
    expect(deferred.afterUse).toBe(plain.afterUse);
  });
});
