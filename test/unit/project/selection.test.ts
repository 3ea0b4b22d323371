import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { inShard, selectByNames, selectChanged, shardOf, stableHash } from "../../../src/project/selection";
import { FlagRuleError } from "../../../src/cli/kit/args";
import { parsePerFileStackName, perFileStackName } from "../../../src/config";
import { parseShard } from "../../../src/cli/kit/flag-sets";

const names = fc.uniqueArray(fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,20}$/), { maxLength: 60 });
const stacks = (list: string[]) => list.map((apiStack) => ({ apiStack, file: `${apiStack}.yaml` }));

describe("shards of the selected API stacks", () => {
  it("cover every stack exactly once across the N runners", () => {
    fc.assert(
      fc.property(names, fc.integer({ min: 1, max: 12 }), (list, count) => {
        const all = stacks(list);
        const parts = Array.from({ length: count }, (_, i) => inShard(all, { index: i + 1, count }));
        const seen = parts.flat().map((s) => s.apiStack);
        expect([...seen].sort()).toEqual([...list].sort());
      }),
    );
  });

  it("put an API stack in the same shard whatever else is selected, and in any order", () => {
    fc.assert(
      fc.property(names, names, fc.integer({ min: 1, max: 12 }), (a, b, count) => {
        const shardsOf = (list: string[]) => new Map(list.map((n) => [n, shardOf(n, count)]));
        const alone = shardsOf(a);
        const mixed = shardsOf([...b, ...a].reverse());
        for (const n of a) expect(mixed.get(n)).toBe(alone.get(n));
      }),
    );
  });

  it("gives the same answer on every machine: a fixed hash of the name", () => {
    // FNV-1a 32-bit reference values: a change here moves stacks between CI runners.
    expect(stableHash("")).toBe(0x811c9dc5);
    expect(stableHash("a")).toBe(0xe40c292c);
    expect(shardOf("acme-web", 4)).toBe((stableHash("acme-web") % 4) + 1);
  });

  it("spreads a large fleet roughly evenly", () => {
    const fleet = stacks(Array.from({ length: 400 }, (_, i) => `site-${i}`));
    const sizes = [1, 2, 3, 4].map((index) => inShard(fleet, { index, count: 4 }).length);
    for (const size of sizes) expect(size).toBeGreaterThan(60);
  });

  it.each(["0/2", "3/2", "1/0", "x", "1/2/3", "-1/2", "1/300"])(
    "refuses --shard %s with the rule it breaks",
    (text) => {
      expect(() => parseShard(text)).toThrow(FlagRuleError);
    },
  );

  it("reads I/N", () => {
    expect(parseShard("2/4")).toEqual({ index: 2, count: 4 });
  });
});

describe("selection by name and by change", () => {
  const all = stacks(["acme-web", "acme-intranet", "shop"]);

  it("keeps the named stacks once each, and names the unknown ones with the known list", () => {
    expect(selectByNames(all, ["shop", "acme-web", "shop"]).map((s) => s.apiStack)).toEqual([
      "shop",
      "acme-web",
    ]);
    expect(() => selectByNames(all, ["nope"])).toThrow(
      "no file in stacks-config/ declares API stack 'nope'; the API stacks are: acme-web, acme-intranet, shop",
    );
  });

  it("selects the changed stacks, or all when a shared file changed", () => {
    const changed = { shared: [], changed: ["shop"], deleted: [] };
    expect(selectChanged(all, changed).selected.map((s) => s.apiStack)).toEqual(["shop"]);
    const shared = { shared: ["Pulumi.dev.yaml"], changed: [], deleted: [] };
    expect(selectChanged(all, shared).selected).toHaveLength(3);
  });

  it("keeps deleted stacks apart, and a stack still declared elsewhere is not deleted", () => {
    const moved = { shared: [], changed: ["shop"], deleted: ["shop", "old-site"] };
    const { selected, deleted } = selectChanged(all, moved);
    expect(selected.map((s) => s.apiStack)).toEqual(["shop"]);
    expect(deleted).toEqual([{ apiStack: "old-site" }]);
  });
});

describe("per-file stack names", () => {
  it("are <target>.<API stack> and read back the same", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z_-]{1,20}$/),
        fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,40}$/),
        (t, s) => {
          const named = perFileStackName(t, s);
          expect(named).toEqual({ ok: true, name: `${t}.${s}` });
          expect(parsePerFileStackName(`${t}.${s}`)).toEqual({ target: t, apiStack: s });
        },
      ),
    );
  });

  it("refuse an API stack name Pulumi cannot carry, saying why", () => {
    expect(perFileStackName("dev", "acme web")).toEqual({
      ok: false,
      problem:
        "API stack 'acme web' cannot name a Pulumi stack ('dev.acme web'): Pulumi stack names take letters, digits, '_', '.' and '-', 100 characters at most",
    });
  });

  it("do not take a target's own stack for a per-file one", () => {
    expect(parsePerFileStackName("dev")).toBeUndefined();
    expect(parsePerFileStackName("production")).toBeUndefined();
  });
});
