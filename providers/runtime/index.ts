/**
 * The provider runtime, reached by serialized providers as `@stackwright/runtime` (an npm link to
 * this compiled file). Versioned (`v1`) so that state written by an older release keeps working:
 * a future incompatible change adds `v2` beside it.
 */
import * as deployment from "./deployment";
import * as environmentLock from "./environment-lock";
import * as gitFetch from "./git-fetch";
import * as recordAction from "./record-action";
import * as snapshot from "./snapshot";
import * as snapshotRestore from "./snapshot-restore";
import { configure } from "./settings";

/** Version 1 of the runtime contract: `configure` plus the methods of each resource type. */
export const v1 = {
  configure,
  deployment: {
    check: deployment.check,
    diff: deployment.diff,
    create: deployment.create,
    read: deployment.read,
    update: deployment.update,
    delete: deployment.remove,
  },
  environmentLock: {
    check: environmentLock.check,
    diff: environmentLock.diff,
    create: environmentLock.create,
    update: environmentLock.update,
    delete: environmentLock.remove,
  },
  snapshot: {
    check: snapshot.check,
    diff: snapshot.diff,
    create: snapshot.create,
    read: snapshot.read,
    update: snapshot.update,
    delete: snapshot.remove,
  },
  snapshotRestore: {
    check: snapshotRestore.check,
    diff: snapshotRestore.diff,
    create: snapshotRestore.create,
    read: snapshotRestore.read,
    update: snapshotRestore.update,
    delete: snapshotRestore.remove,
  },
  gitFetch: {
    check: gitFetch.check,
    diff: gitFetch.diff,
    create: gitFetch.create,
    read: gitFetch.read,
    update: gitFetch.update,
    delete: gitFetch.remove,
  },
  recordAction: {
    check: recordAction.check,
    diff: recordAction.diff,
    create: recordAction.create,
    delete: recordAction.remove,
  },
} as const;
