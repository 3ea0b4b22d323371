/**
 * The six resource types, one line each: their arguments and outputs are their contracts'
 * (shared/), their behaviour is behaviour/'s. Runs in the program process.
 */
import {
  deploymentContract,
  environmentLockContract,
  gitFetchContract,
  recordActionContract,
  snapshotContract,
  snapshotRestoreContract,
} from "../shared";
import { resourceClass, type ArgsOf } from "./resource";

/** A deployment of a ref to an environment; see providers/README.md. */
export const Deployment = resourceClass(deploymentContract);
export type Deployment = InstanceType<typeof Deployment>;
export type DeploymentArgs = ArgsOf<typeof deploymentContract>;

/** An environment's lock as Stackwright manages it: no deployments or snapshots while locked. */
export const EnvironmentLock = resourceClass(environmentLockContract);
export type EnvironmentLock = InstanceType<typeof EnvironmentLock>;
export type EnvironmentLockArgs = ArgsOf<typeof environmentLockContract>;

/** A snapshot of an environment. Pass `retainOnDelete: true` to keep it when the resource goes. */
export const Snapshot = resourceClass(snapshotContract);
export type Snapshot = InstanceType<typeof Snapshot>;
export type SnapshotArgs = ArgsOf<typeof snapshotContract>;

/** A restore of a snapshot into an environment; deleting it undoes nothing. */
export const SnapshotRestore = resourceClass(snapshotRestoreContract);
export type SnapshotRestore = InstanceType<typeof SnapshotRestore>;
export type SnapshotRestoreArgs = ArgsOf<typeof snapshotRestoreContract>;

/** A fetch of the stack's repository. */
export const GitFetch = resourceClass(gitFetchContract);
export type GitFetch = InstanceType<typeof GitFetch>;
export type GitFetchArgs = ArgsOf<typeof gitFetchContract>;

/** A method run on a record; change `trigger` to run it again. */
export const RecordAction = resourceClass(recordActionContract);
export type RecordAction = InstanceType<typeof RecordAction>;
export type RecordActionArgs = ArgsOf<typeof recordActionContract>;
