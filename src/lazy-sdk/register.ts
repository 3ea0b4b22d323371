/**
 * Loads the SDK's closure serializer only when something calls it.
 *
 * `@pulumi/pulumi` (its runtime/index.js, which every import of the SDK loads) requires the
 * closure serializer and its code-path finder up front, and with them TypeScript (to parse
 * functions) and npm's @npmcli/arborist and pacote (to find a function's packages): 0.2 to 0.4
 * CPU-seconds in every `stackwright` process that runs the engine, for code it never calls (our
 * resources carry a provider text written by providers/program-process/provider.ts). Those two
 * modules' entries in Node's module cache are filled, before anything loads the SDK, with
 * modules of the same functions that load the real ones on their first call (lazy-module.ts,
 * src/module-stand-in.ts), so a program that serializes a function still gets the SDK's
 * serializer. A module cache entry costs nothing to the other modules a process loads, where a
 * resolve hook of Node's runs for every one of them (about 0.1 CPU-seconds across the 770 modules
 * of an `up`).
 * `bin/stackwright.js` calls this first; test/unit/lazy-sdk/lazy-sdk.test.ts checks both halves.
 * Like sqlite-warning.ts it belongs to no layer.
 */
import { createRequire } from "node:module";
import * as path from "node:path";
import { standInModule } from "../module-stand-in";
import { lazyFunctions } from "./lazy-module";

const requireHere = createRequire(__filename);

/** What runtime/index.js requires up front, relative to the SDK's directory. */
const DEFERRED = ["runtime/closure/codePaths.js", "runtime/closure/serializeClosure.js"] as const;

export function deferClosureSerializer(): void {
  let sdk: string;
  try {
    // The package has no `exports` map, so each of its files loads by path.
    sdk = path.dirname(requireHere.resolve("@pulumi/pulumi/package.json"));
  } catch {
    return; // no SDK beside us: nothing to defer, and whatever needs it says so itself
  }
  for (const file of DEFERRED) {
    const filename = path.join(sdk, file);
    standInModule(filename, (load) => lazyFunctions(filename, load));
  }
}
