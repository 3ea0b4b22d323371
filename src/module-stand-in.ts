/**
 * A module that stands in Node's module cache under another module's file name until that module
 * is needed: the way `src/lazy-sdk/` defers the SDK's closure serializer and `src/zod-locales.ts`
 * zod's locales. Whoever then requires the file gets the stand-in's exports; `load` (given to
 * `exportsFor`, which builds those exports) takes the stand-in out of the cache, loads the real
 * module once and returns its exports, which Node then keeps for every later require. A cache
 * entry costs the other modules of a process nothing, where a resolve hook would run for each.
 * Like the files that use it, it belongs to no layer and imports only Node's own modules.
 */
import { createRequire, Module } from "node:module";

const requireHere = createRequire(__filename);

/** The exports of the real module, as `load` returns them. */
export type RealExports = Readonly<Record<string | symbol, unknown>>;

/**
 * Puts a stand-in with the exports `exportsFor(load)` in the cache under `filename`; does nothing
 * when the real module is loaded already.
 */
export function standInModule(filename: string, exportsFor: (load: () => RealExports) => object): void {
  if (requireHere.cache[filename] !== undefined) return;
  let real: RealExports | undefined;
  const load = (): RealExports => {
    if (real === undefined) {
      if (requireHere.cache[filename] === entry) delete requireHere.cache[filename];
      real = requireHere(filename) as RealExports;
    }
    return real;
  };
  const entry = new Module(filename);
  entry.filename = filename;
  entry.exports = exportsFor(load);
  entry.loaded = true;
  requireHere.cache[filename] = entry;
}
