/**
 * The serialized provider of a resource type: the one thing a resource's state carries
 * (`__provider`) for the provider process to run. Its methods load the compiled provider module
 * (provider-process/index.ts) by path inside each call, so the text is a few lines, the type's
 * key and that path: no client, token, schema or module state.
 *
 * The path is relative to the program directory (the directory of Pulumi.yaml's `main`), which
 * the engine makes the working directory of the provider process and of a program process
 * (pulumi/pkg engine/project.go `getPwdMain`); a program hosted in the `stackwright` process is
 * told that directory by the engine (program-run.ts). So the state names no checkout: a state
 * written in one checkout works in any other, and plain `pulumi up` works after `npm run build`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { ResourceKind } from "../shared/contract";
import { programWorkDir } from "./program-run";

/**
 * The compiled provider module, relative to the program directory of the current run (the
 * working directory the engine gives the provider plugin), with `/` separators:
 * `../../providers/provider-process/index.js` for `main: dist/src/program/main.js`.
 */
export function providerModulePath(cwd: string = programWorkDir()): string {
  let relative = modulePaths.get(cwd);
  if (relative === undefined) {
    const module = path.join(__dirname, "..", "provider-process", "index.js");
    // Between real paths: Node names this module by its real path, the engine names the program
    // directory as Pulumi.yaml spells it, and a linked package (`npm link`, a `file:`
    // dependency) makes them differ; the provider process resolves the relative path from its
    // working directory, whose real path is the program directory's.
    relative = path.relative(realPath(cwd), realPath(module)).split(path.sep).join("/");
    modulePaths.set(cwd, relative);
  }
  return relative;
}

/** {@link providerModulePath} by program directory: every resource of a run asks. */
const modulePaths = new Map<string, string>();

function realPath(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    // Not there (a unit test's made-up directory): as written.
    return path.resolve(file);
  }
}

/**
 * What each method of the provider does, as the text of an arrow function over `load` (the
 * provider module's `v1`) and `kind`. In the order the SDK serialized the object's properties.
 */
const METHODS = [
  { name: "configure", params: ["req"], usesKind: false },
  { name: "check", params: ["olds", "news"], usesKind: true },
  { name: "diff", params: ["id", "olds", "news"], usesKind: true },
  { name: "create", params: ["inputs"], usesKind: true },
  { name: "read", params: ["id", "props"], usesKind: true },
  { name: "update", params: ["id", "olds", "news"], usesKind: true },
  { name: "delete", params: ["id", "props"], usesKind: true },
] as const;

/** One function of the SDK's serialized form: its body in a `with` of what it captured. */
function serializedFunction(name: string, arity: number, captured: string, body: string): string {
  const params = Array.from({ length: arity }, (_, i) => `__${i}`).join(", ");
  return [
    `function ${name}(${params}) {`,
    "  return (function() {",
    `    with({ ${captured}this: undefined, arguments: undefined }) {`,
    "",
    `return ${body};`,
    "",
    "    }",
    "  }).apply(undefined, undefined).apply(this, arguments);",
    "}",
    "",
  ].join("\n");
}

/**
 * The serialized provider of one resource type (a resource's `__provider`): a CommonJS module
 * whose `handler` returns the provider object, each method loading the compiled provider module
 * by its path inside the call. It is the text the SDK's closure serializer made of that object
 * (`pulumi.dynamic.Resource`), byte for byte, so states written before keep their `__provider`;
 * written here because the serializer loads TypeScript to parse functions (0.3 CPU-seconds in
 * every process that declares a resource: each `stackwright` run, each program process).
 * test/unit/providers/provider-text.test.ts compares it with the serializer's text.
 */
export function providerText(kind: ResourceKind, entry: string): string {
  const load = "__f2";
  const names = new Map<string, string>([["configure", "__f1"]]);
  METHODS.slice(1).forEach((method, i) => names.set(method.name, `__f${i + 3}`));
  const object = METHODS.map((method) => `${method.name}: ${names.get(method.name) ?? ""}`).join(", ");
  const parts = [
    "exports.handler = __f0;",
    "",
    `var __provider = {${object}};`,
    "",
    serializedFunction(
      load,
      0,
      `entry: ${JSON.stringify(entry)}, `,
      '() => require(require("node:path").resolve(entry)).v1',
    ),
  ];
  for (const method of METHODS) {
    const args = method.params.join(", ");
    const target = method.usesKind ? `load()[kind].${method.name}` : `load().${method.name}`;
    parts.push(
      serializedFunction(
        names.get(method.name) ?? "",
        method.params.length,
        `load: ${load}, ${method.usesKind ? `kind: ${JSON.stringify(kind)}, ` : ""}`,
        `(${args}) => ${target}(${args})`,
      ),
    );
  }
  parts.push(serializedFunction("__f0", 0, "provider: __provider, ", "() => provider"));
  return parts.join("\n");
}

/** The serialized provider of one resource type for the current run (its program directory). */
export function providerOf(kind: ResourceKind): string {
  return providerText(kind, providerModulePath());
}
