import { z } from "zod";
import {
  DeploymentChange,
  DeploymentState,
  FetchStatus,
  RefType,
  SnapshotMode,
  SnapshotStatus,
} from "../api";
import { TransferDirection, TransferStatus } from "../api";

/** The emulator's own records (what the state file stores); wire documents are built from them. */

export const DeploymentRecord = z.object({
  id: z.number().int(),
  stack: z.string(),
  env: z.string(),
  state: DeploymentState,
  ref_type: RefType,
  ref: z.string(),
  /** Null for a package deployment until the worker has built the package (as the platform). */
  sha: z.string().nullable(),
  package: z.string().nullable(),
  title: z.string(),
  summary: z.string(),
  deployer: z.string(),
  locked: z.boolean(),
  changes: z.record(z.string(), DeploymentChange),
  created: z.number().int(),
  requested: z.number().int(),
  approved: z.number().int(),
  started: z.number().int(),
  updated: z.number().int(),
  /** Why a deployment failed or will fail (scripted); shown in its log, not in its document. */
  failure: z.string().nullable(),
  /** The log lines so far (endpoint `deploys/log/{id}`). */
  log: z.array(z.string()).default([]),
  /** How far the worker got while Deploying: 0 fetched, 1 built, 2 deployed. */
  progress: z.number().int().default(0),
  /** Why a person rejected it (the dashboard's reject). */
  rejected_reason: z.string().nullable().default(null),
  /** Options of the create body that change how the platform deploys. */
  ignore_config_changes: z.boolean().default(false),
  force_full: z.boolean().default(false),
  /** Who approved it in the dashboard (e-mail), and who bypassed approval when creating it. */
  approver: z.string().nullable().default(null),
  bypasser: z.string().nullable().default(null),
});
export type DeploymentRecord = z.infer<typeof DeploymentRecord>;

/** The fields a new deployment starts with unless it says otherwise. */
export const DEPLOYMENT_DEFAULTS = {
  failure: null,
  log: [],
  progress: 0,
  rejected_reason: null,
  ignore_config_changes: false,
  force_full: false,
  approver: null,
  bypasser: null,
} satisfies Partial<DeploymentRecord>;

export const SnapshotRecord = z.object({
  id: z.number().int(),
  stack: z.string(),
  source: z.string(),
  mode: SnapshotMode,
  status: SnapshotStatus,
  created: z.number().int(),
  size: z.number().int(),
  notes: z.string().nullable(),
  is_backup: z.boolean(),
  is_manual_upload: z.boolean(),
});
export type SnapshotRecord = z.infer<typeof SnapshotRecord>;

export const TransferRecord = z.object({
  id: z.number().int(),
  stack: z.string(),
  env: z.string(),
  direction: TransferDirection,
  mode: SnapshotMode,
  status: TransferStatus,
  include_resampled: z.boolean(),
  skip_build: z.boolean(),
  /** The snapshot made (create, once finished) or restored (restore). */
  snapshot: z.number().int().nullable(),
  /** The snapshot being written: the new one (create) or the backup (restore with backup). */
  pending_snapshot: z.number().int().nullable(),
  created: z.number().int(),
  /** Why it failed or will fail (scripted); shown in its log. */
  failure: z.string().nullable().default(null),
  /** The log lines so far (endpoint `snapshots/transfer/{id}/log`). */
  log: z.array(z.string()).default([]),
});
export type TransferRecord = z.infer<typeof TransferRecord>;

export const FetchRecord = z.object({
  id: z.number().int(),
  stack: z.string(),
  status: FetchStatus,
  created: z.number().int(),
});
export type FetchRecord = z.infer<typeof FetchRecord>;

/** The changing part of an environment. */
export const EnvironmentRecord = z.object({
  stack: z.string(),
  env: z.string(),
  build_sha: z.string(),
  build_package: z.string().nullable(),
  locked: z.boolean(),
  lock_message: z.string(),
  next_outcome: z.enum(["fail"]).nullable(),
  /** The reason the next deployment fails with (next-outcome hook). */
  next_reason: z.string().nullable().default(null),
  /** When set, the next transfer on the environment fails with this reason (hook). */
  next_transfer_failure: z.string().nullable().default(null),
  current_build: z.number().int().nullable(),
});
export type EnvironmentRecord = z.infer<typeof EnvironmentRecord>;

export const RecordRecord = z.object({
  class: z.string(),
  id: z.number().int(),
  fields: z.record(z.string(), z.unknown()),
});
export type RecordRecord = z.infer<typeof RecordRecord>;

export const Counters = z.object({
  deployment: z.number().int(),
  snapshot: z.number().int(),
  transfer: z.number().int(),
  fetch: z.number().int(),
});
export type Counters = z.infer<typeof Counters>;

/** Key of an environment in maps. */
export function envKey(stack: string, env: string): string {
  return `${stack}\u0000${env}`;
}
