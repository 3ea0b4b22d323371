/**
 * Loads the SDK's closure serializer only when something calls it.
 *
 * `@pulumi/pulumi` (its runtime/index.js, which every import of the SDK loads) requires the
 * closure serializer and its code-path finder up front, and with them TypeScript (to parse
 * functions) and npm's @npmcli/arborist and pacote (to find a function's packages): 0.2 to 0.4
 * CPU-seconds in every `stackwright` process that runs the engine, for code it never calls (our
 * resources carry a provider text written by providers/program-process/provider.ts). Node's own
 * module hooks send those two requires of runtime/index.js, and no other, to modules of the
 * same functions that load the real ones on their first call (lazy-module.ts): a program that
 * serializes a function still gets the SDK's serializer. `bin/stackwright.js` registers this
 * before anything loads the SDK; test/unit/lazy-sdk/lazy-sdk.test.ts checks both halves. Like
 * sqlite-warning.ts it belongs to no layer.
 */
import * as nodeModule from "node:module";
import * as path from "node:path";
import { pathToFileURL } from "node:url";

/** What runtime/index.js requires, and the module that stands in for it. */
const STAND_INS: ReadonlyMap<string, string> = new Map([
  ["./closure/codePaths", standIn("code-paths")],
  ["./closure/serializeClosure", standIn("serialize-closure")],
]);

/** A module beside this one: compiled (`.js`) in dist, its source (`.ts`) when run from src. */
function standIn(name: string): string {
  return path.join(__dirname, `${name}${path.extname(__filename)}`);
}

const RUNTIME_INDEX = /[\\/]@pulumi[\\/]pulumi[\\/]runtime[\\/]index\.js$/;

/** Registers the hook; on a Node without `module.registerHooks` (before 22.15) nothing changes. */
export function deferClosureSerializer(): void {
  if (typeof nodeModule.registerHooks !== "function") return;
  nodeModule.registerHooks({
    resolve(specifier, context, nextResolve) {
      const standIn = STAND_INS.get(specifier);
      const parent = context.parentURL === undefined ? "" : decodeURIComponent(context.parentURL);
      if (standIn === undefined || !RUNTIME_INDEX.test(parent)) return nextResolve(specifier, context);
      return { url: pathToFileURL(standIn).href, format: "commonjs", shortCircuit: true };
    },
  });
}
