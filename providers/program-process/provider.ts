/**
 * The provider object of a resource type: the one thing the SDK serializes into a resource's
 * state (`__provider`) for the provider process to run. Its methods load the compiled provider
 * module (provider-process/index.ts) by path inside each call, so the serialized text is these
 * few lines, the type's key and that path: no client, token, schema or module state.
 *
 * The path is relative to the program directory (the directory of Pulumi.yaml's `main`), which
 * the engine makes the working directory of the provider process and of a program process
 * (pulumi/pkg engine/project.go `getPwdMain`); a program hosted in the `stackwright` process is
 * told that directory by the engine (program-run.ts). So the state names no checkout: a state
 * written in one checkout works in any other, and plain `pulumi up` works after `npm run build`.
 */
import * as path from "node:path";
import type * as pulumi from "@pulumi/pulumi";
import type { ProviderModuleV1, ResourceKind } from "../shared/contract";
import { programWorkDir } from "./program-run";

/**
 * The compiled provider module, relative to the program directory of the current run (the
 * working directory the engine gives the provider plugin), with `/` separators:
 * `../../providers/provider-process/index.js` for `main: dist/src/program/main.js`.
 */
export function providerModulePath(cwd: string = programWorkDir()): string {
  const module = path.join(__dirname, "..", "provider-process", "index.js");
  return path.relative(cwd, module).split(path.sep).join("/");
}

// One provider object per type and module path, so that the SDK serializes each once per process
// (it caches the text by object).
const providers = new Map<string, pulumi.dynamic.ResourceProvider>();

/** The provider object of one resource type for the current run, shared by all its resources. */
export function providerOf(kind: ResourceKind): pulumi.dynamic.ResourceProvider {
  const entry = providerModulePath();
  const key = `${kind}\n${entry}`;
  const known = providers.get(key);
  if (known !== undefined) return known;
  const provider = serializableProvider(kind, entry);
  providers.set(key, provider);
  return provider;
}

/** What the SDK serializes: the type's key, the module's path, and a loader. */
function serializableProvider(kind: ResourceKind, entry: string): pulumi.dynamic.ResourceProvider {
  /* eslint-disable @typescript-eslint/no-require-imports -- runs in the provider process, which
     has only the serialized text: the module is loaded by path there, not imported here. */
  const load = (): ProviderModuleV1 => require(require("node:path").resolve(entry)).v1;
  /* eslint-enable @typescript-eslint/no-require-imports */
  return {
    configure: (req) => load().configure(req),
    check: (olds, news) => load()[kind].check(olds, news),
    diff: (id, olds, news) => load()[kind].diff(id, olds, news),
    create: (inputs) => load()[kind].create(inputs),
    read: (id, props) => load()[kind].read(id, props),
    update: (id, olds, news) => load()[kind].update(id, olds, news),
    delete: (id, props) => load()[kind].delete(id, props),
  };
}
