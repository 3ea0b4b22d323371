import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { Script } from "node:vm";
import { describe, expect, it } from "vitest";
import { providerText } from "../../../providers/program-process/provider";
import { RESOURCE_KINDS } from "../../../providers/shared/contract";

const recorded = JSON.parse(
  fs.readFileSync(
    path.join(__dirname, "..", "..", "fixtures", "provider-text", "sdk-serialized.json"),
    "utf8",
  ),
) as { entry: string; texts: Record<string, string> };

/** Runs a serialized provider as the provider host does, from `dir`; returns what `handler()` made. */
function evaluate(text: string, dir: string): Record<string, (...args: unknown[]) => unknown> {
  const filename = path.join(dir, "__provider.js");
  const module = { exports: {} as Record<string, unknown> };
  const wrapper = new Script(`(function (exports, require, module) {${text}\n})`, {
    filename,
  }).runInThisContext() as (e: unknown, r: NodeJS.Require, m: unknown) => void;
  wrapper(module.exports, createRequire(filename), module);
  const handler = module.exports["handler"] as () => Record<string, (...args: unknown[]) => unknown>;
  return handler();
}

describe("the serialized provider a resource carries", () => {
  it.each(RESOURCE_KINDS)("of a %s is byte for byte the text the SDK's closure serializer made", (kind) => {
    // States written before keep their `__provider`: no update on the first run after upgrading.
    expect(providerText(kind, recorded.entry)).toBe(recorded.texts[kind]);
  });

  it.each(RESOURCE_KINDS)(
    "recorded in a state of a %s still loads the built provider module and answers its type's check",
    async (kind) => {
      // The state's text names dist/providers/provider-process/index.js from the repository root;
      // run it from there as the provider host would, against the module `npm run build` made.
      const root = path.join(__dirname, "..", "..", "..");
      const text = recorded.texts[kind];
      if (text === undefined) throw new Error(`no recorded text for ${kind}`);
      const cwd = process.cwd();
      process.chdir(root);
      try {
        const provider = evaluate(text, root);
        const answer = (await provider["check"]?.({}, {})) as { failures?: unknown[] };
        expect(answer.failures?.length ?? 0).toBeGreaterThan(0);
      } finally {
        process.chdir(cwd);
      }
    },
  );

  it("calls the method of its own type in the provider module it names, relative to the working directory", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-provider-text-"));
    try {
      fs.mkdirSync(path.join(dir, "lib"));
      fs.writeFileSync(
        path.join(dir, "lib", "module.js"),
        [
          "const calls = (globalThis.__providerCalls ??= []);",
          "const methods = (kind) => Object.fromEntries(['check','diff','create','read','update','delete'].map((m) => [m, (...a) => { calls.push([kind, m, a.length]); return m; }]));",
          "exports.v1 = { configure: (req) => { calls.push(['*', 'configure', 1]); }, snapshot: methods('snapshot'), deployment: methods('deployment') };",
        ].join("\n"),
      );
      const cwd = process.cwd();
      process.chdir(dir);
      try {
        const provider = evaluate(providerText("snapshot", "lib/module.js"), dir);
        expect(Object.keys(provider)).toEqual([
          "configure",
          "check",
          "diff",
          "create",
          "read",
          "update",
          "delete",
        ]);
        provider["configure"]?.({});
        expect(provider["create"]?.({ a: 1 })).toBe("create");
        expect(provider["diff"]?.("id", {}, {})).toBe("diff");
      } finally {
        process.chdir(cwd);
      }
      const calls = (globalThis as { __providerCalls?: unknown[] }).__providerCalls;
      expect(calls).toEqual([
        ["*", "configure", 1],
        ["snapshot", "create", 1],
        ["snapshot", "diff", 3],
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
