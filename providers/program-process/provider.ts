/**
 * The provider object of a resource type: the one thing the SDK serializes into a resource's
 * state (`__provider`) for the provider process to run. Its methods load the compiled provider
 * module (provider-process/index.ts) by path inside each call, so the serialized text is these
 * few lines, the type's key and that path: no client, token, schema or module state.
 *
 * The path is relative to the program directory (the directory of Pulumi.yaml's `main`), which
 * the engine makes the working directory of both the program process and the provider process
 * (pulumi/pkg engine/project.go `getPwdMain`). So the state names no checkout: a state written in
 * one checkout works in any other, and plain `pulumi up` works after `npm run build`.
 */
import * as path from "node:path";
import type * as pulumi from "@pulumi/pulumi";
import type { ProviderModuleV1, ResourceKind } from "../shared/contract";

/**
 * The compiled provider module, relative to this process's working directory, with `/`
 * separators: `../../providers/provider-process/index.js` for `main: dist/src/program/index.js`.
 */
export function providerModulePath(cwd: string = process.cwd()): string {
  const module = path.join(__dirname, "..", "provider-process", "index.js");
  return path.relative(cwd, module).split(path.sep).join("/");
}

/** The provider object of one resource type; one per type, shared by all its resources. */
export function providerOf(kind: ResourceKind): pulumi.dynamic.ResourceProvider {
  const entry = providerModulePath();
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
