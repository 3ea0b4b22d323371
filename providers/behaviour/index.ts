/**
 * The provider module: what runs in the dynamic provider's process. Serialized providers load it
 * by path (`dist/providers/provider-process/index.js`, which re-exports it; program-process/provider.ts) and
 * call `v1.configure` and `v1.<kind>.<method>`. Versioned so that state written by an older
 * release keeps working: an incompatible change adds `v2` beside it.
 *
 * The methods are plain functions: tests and tools call them in-process (e.g.
 * `v1.deployment.create(props)`) after `configure` or with `STACKWRIGHT_*` set.
 */
import type { ProviderModuleV1 } from "../shared/contract";
import * as deployment from "./deployment";
import * as environmentLock from "./environment-lock";
import * as gitFetch from "./git-fetch";
import * as recordAction from "./record-action";
import * as snapshot from "./snapshot";
import * as snapshotRestore from "./snapshot-restore";
import { configure } from "./settings";

/** The methods of one resource type's module, under the protocol's names (`remove` is `delete`). */
function methods(
  m: Omit<ProviderModuleV1["deployment"], "delete"> & { remove: ProviderModuleV1["deployment"]["delete"] },
) {
  return { check: m.check, diff: m.diff, create: m.create, read: m.read, update: m.update, delete: m.remove };
}

/** Version 1 of the provider module: `configure` plus the methods of each resource type. */
export const v1: ProviderModuleV1 = {
  configure,
  deployment: methods(deployment),
  environmentLock: methods(environmentLock),
  snapshot: methods(snapshot),
  snapshotRestore: methods(snapshotRestore),
  gitFetch: methods(gitFetch),
  recordAction: methods(recordAction),
};
