/**
 * Loads zod's locales only when something asks for one.
 *
 * zod's entry point requires its locales' index, and the index every one of its 64 languages,
 * for `z.locales`, which we never use: zod's own messages are English, which its schemas load by
 * themselves (classic/schemas). The index's entry in Node's module cache is filled, before
 * anything loads zod, with a namespace that loads the real index on its first read, so
 * `z.locales.fr()` still works. `require("zod")` in a fresh Node: 0.110 -> 0.080 CPU-seconds
 * (medians of 30 interleaved runs); every `stackwright` process and every provider host loads it.
 *
 * Every entry point whose process loads zod imports this file first: `bin/stackwright.js`, the
 * provider host (providers/plugin-host/main.ts) and the Pulumi program (src/program/main.ts).
 * test/unit/zod-locales.test.ts checks both halves. Like sqlite-warning.ts it belongs to no
 * layer; it imports Node's own modules and the stand-in it shares with src/lazy-sdk/
 * (src/module-stand-in.ts).
 */
import { createRequire } from "node:module";
import * as path from "node:path";
import { standInModule } from "./module-stand-in";

function deferLocales(): void {
  let index: string;
  try {
    // zod's `exports` map names no locales index; its files load by path from the package's folder.
    const zod = path.dirname(createRequire(__filename).resolve("zod/package.json"));
    index = path.join(zod, "v4", "locales", "index.cjs");
  } catch {
    return; // no zod beside us: nothing to defer
  }
  // `__esModule`: zod's compiled imports take such a module as it is, without copying its
  // properties (which would load every locale at once).
  standInModule(
    index,
    (load) =>
      new Proxy(
        {},
        {
          get: (_target, key) => (key === "__esModule" ? true : load()[key]),
          has: (_target, key) => key in load(),
          ownKeys: () => Reflect.ownKeys(load()),
          getOwnPropertyDescriptor: (_target, key) => {
            const found = Reflect.getOwnPropertyDescriptor(load(), key);
            return found === undefined ? undefined : { ...found, configurable: true };
          },
        },
      ),
  );
}

deferLocales();
