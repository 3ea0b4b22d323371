import { z } from "zod";
import {
  APPROVAL_MODES,
  REF_TYPES,
  REF_TYPES_WITHOUT_REF,
  type ApprovalMode,
  type RefType,
} from "../api/deployment";
import { Duration, SoakDuration } from "../api/duration";
import { NUMERIC_ID_MAX, NumericId, isNumericIdText } from "../api/ids";
import { SNAPSHOT_MODES, type SnapshotMode } from "../api/snapshot";
import { safeName, safeNameKey } from "./names";
import { strictObject } from "./strict-object";
import { EnvironmentCheckSchema, StackCheckSchema } from "./check-schema";
import { ENVIRONMENT_FACTS, STACK_FACTS } from "./facts";
import { WindowsSchema } from "./window-schema";
import { NotifySchema } from "./notify-schema";
import { VerifySchema } from "./verify-schema";

/**
 * The zod schema of one stack file (`stacks-config/<stack>.yaml`, docs/stacks-config.md). Every type of
 * the desired state is inferred from here; `schema.json` is generated from here. Objects are
 * strict: an unknown key is an error that names the allowed keys.
 *
 * Rules that need more than one field (ref vs ref_type, restore references, confirm, names used
 * as map keys) live in `semantic-checks.ts`, which runs even when this schema finds errors, so
 * that a file reports all its faults at once.
 */

// The API's enums, defined once in the wire contract (src/config may import src/api).
export { APPROVAL_MODES, REF_TYPES, REF_TYPES_WITHOUT_REF, SNAPSHOT_MODES };
export type { ApprovalMode, RefType, SnapshotMode };

/** A change marker, text or a number; changing it re-runs the action. Always a string after parsing. */
const Trigger = z
  .union([z.string(), z.number()], { error: "must be text or a number" })
  .transform((value) => String(value))
  .meta({ description: "Change this value to run the action again with the same settings." });

/** `timeout: 30m` → 1800 (seconds). */
const Timeout = Duration.meta({
  description:
    "How long to wait for the deployment to finish, e.g. 30m, 90s or 1h30m (10s to 24h). Parsed to seconds.",
});

/** `environments.<name>.deployment`: what should be deployed on the environment, and how. */
export const DeploymentSchema = strictObject({
  ref_type: z.enum(REF_TYPES).meta({
    description:
      "What to deploy: promote_from_uat and redeploy take no ref; sha, branch, tag and package need one.",
  }),
  ref: z.string().optional().meta({
    description: "Commit sha, branch, tag or package reference. Empty for promote_from_uat and redeploy.",
  }),
  title: z.string().optional().meta({ description: "Deployment title (changing it does not redeploy)." }),
  summary: z.string().optional().meta({ description: "Deployment summary (changing it does not redeploy)." }),
  approval: z.enum(APPROVAL_MODES).default("bypass_and_start").meta({
    description:
      "bypass_and_start (default): queue at once; bypass: create approved, then start; request: wait for a person to approve.",
  }),
  fetch_first: z
    .boolean()
    .default(false)
    .meta({ description: "Fetch the git repository before deploying (default false)." }),
  wait: z.boolean().default(true).meta({ description: "Wait until the deployment finishes (default true)." }),
  timeout: Timeout.optional(),
  self_heal: z.boolean().default(false).meta({
    description: "Redeploy when someone deployed something else by hand (default false: only warn).",
  }),
  trigger: Trigger.optional(),
  locked: z.boolean().default(false).meta({
    description: "The API's locked flag: other users cannot delete or change the deployment (default false).",
  }),
  adopt: NumericId.meta({
    description: "Id of an existing deployment to claim instead of creating one.",
  }).optional(),
});
/** A deployment as the program receives it (defaults applied, `timeout` in seconds). */
export type DeploymentConfig = z.output<typeof DeploymentSchema>;

/** `environments.<name>.lock`: present means the environment is locked. */
export const LockSchema = strictObject({
  message: z.string().default("").meta({ description: "Why the environment is locked (shown to users)." }),
});
/** An environment lock. */
export type LockConfig = z.output<typeof LockSchema>;

/** `environments.<name>.snapshots.<logical name>`: a snapshot taken once from the environment. */
export const SnapshotSchema = strictObject({
  mode: z
    .enum(SNAPSHOT_MODES)
    .default("all")
    .meta({ description: "What to capture: all (default), db or assets." }),
  include_resampled: z
    .boolean()
    .default(false)
    .meta({ description: "Include the resampled images directory (default false)." }),
  notes: z.string().optional().meta({ description: "Free text stored with the snapshot." }),
  retain: z.boolean().default(false).meta({
    description:
      "Keep the snapshot on the platform when it is removed from this file (default false: delete it).",
  }),
});
/** A declared snapshot. */
export type SnapshotConfig = z.output<typeof SnapshotSchema>;

const SNAPSHOT_REF_MESSAGE =
  "must name a snapshot declared in this file or be a positive numeric snapshot id";

/** `environments.<name>.restores.<logical name>`: a snapshot restored once into the environment. */
export const RestoreSchema = strictObject({
  snapshot: z
    .union(
      [
        // Digits are an id, so they follow the id rule (no leading zero, at most 15 digits).
        z.string().refine((text) => !/^\d+$/.test(text) || isNumericIdText(text), SNAPSHOT_REF_MESSAGE),
        z
          .number()
          .int(SNAPSHOT_REF_MESSAGE)
          .positive(SNAPSHOT_REF_MESSAGE)
          .max(NUMERIC_ID_MAX, SNAPSHOT_REF_MESSAGE),
      ],
      { error: SNAPSHOT_REF_MESSAGE },
    )
    .transform((value) => String(value))
    .meta({
      description: "A snapshot name declared in this file (any environment), or a numeric snapshot id.",
    }),
  mode: z.enum(SNAPSHOT_MODES).meta({ description: "What to restore: all, db or assets." }),
  skip_build: z
    .boolean()
    .default(false)
    .meta({ description: "Skip the build step after the restore (default false)." }),
  backup_existing_data: z.boolean().optional().meta({
    description: "Snapshot the current data first (platform default: true for production).",
  }),
  confirm: z.string().meta({
    description: "Must equal the environment name: a restore overwrites the environment's data.",
  }),
  trigger: Trigger.optional(),
});
/** A declared restore. `snapshot` is a declared logical name or a numeric id (see `resolveRestoreSnapshot`). */
export type RestoreConfig = z.output<typeof RestoreSchema>;

/**
 * `environments.<name>.promotion`: where this environment's builds come from and how long they
 * must have run there first (`promote` refuses an earlier one; `promote --all --ready` pins it).
 */
export const PromotionSchema = strictObject({
  from: safeName("The environment of this file whose builds are promoted here, e.g. uat."),
  min_soak: SoakDuration.optional().meta({
    description:
      "How long the build must have run on `from` before it is promoted here, e.g. 2h or 72h (1m to 720h). Parsed to seconds.",
  }),
});
/** An environment's promotion rule. `min_soak` is in seconds after parsing. */
export type PromotionConfig = z.output<typeof PromotionSchema>;

/** `environments.<name>`: everything desired for one environment of the stack. */
export const EnvironmentSchema = strictObject({
  deployment: DeploymentSchema.optional(),
  lock: LockSchema.optional(),
  snapshots: z
    .record(safeNameKey("Snapshot logical name, unique in this file."), SnapshotSchema)
    .default({})
    .meta({ description: "Snapshots to take, by logical name (unique in this file)." }),
  restores: z
    .record(safeNameKey("Restore logical name."), RestoreSchema)
    .default({})
    .meta({ description: "Restores to run, by logical name." }),
  outputs: z.array(z.enum(ENVIRONMENT_FACTS)).default([]).meta({
    description:
      "Facts of the environment to show in the stack outputs: deployment, url, domains, framework, modules, configuration (names only), whitelist. Each is read once per run.",
  }),
  checks: z
    .array(EnvironmentCheckSchema)
    .default([])
    .meta({ description: "Assertions on the environment's facts, checked before any change." }),
  windows: WindowsSchema,
  promotion: PromotionSchema.optional().meta({
    description:
      "Where this environment's builds come from (`from`) and how long they must have run there (`min_soak`); `promote` checks both.",
  }),
  verify: VerifySchema.optional(),
});
/** One environment's desired state. */
export type EnvironmentConfig = z.output<typeof EnvironmentSchema>;

const RECORD_ID_MESSAGE = "must be a record id: a positive whole number or text";

/** `records[]`: a method run on a record of the generic record server (`POST /api/v1/{class}/{id}/{method}`). */
export const RecordActionSchema = strictObject({
  class: safeName("Model class of the record, e.g. Page."),
  id: z
    .union([z.number().int(RECORD_ID_MESSAGE).positive(RECORD_ID_MESSAGE), safeName("Record id.")], {
      error: RECORD_ID_MESSAGE,
    })
    .transform((value) => String(value))
    .meta({ description: "Record id." }),
  method: safeName("Method to run on the record, e.g. publish."),
  trigger: Trigger.optional(),
});
/** A record action. `id` is a string after parsing. */
export type RecordActionConfig = z.output<typeof RecordActionSchema>;

/** One stack file. */
export const StackFileSchema = strictObject({
  stack: safeName("The API stack (project) name. One file per stack."),
  environments: z
    .record(safeNameKey("Environment name as the API knows it, e.g. uat or prod."), EnvironmentSchema)
    .default({})
    .meta({ description: "Desired state per environment." }),
  records: z
    .array(RecordActionSchema)
    .default([])
    .meta({ description: "Methods to run on records of the generic record server." }),
  outputs: z.array(z.enum(STACK_FACTS)).default([]).meta({
    description:
      "Facts of the stack to show in the outputs: manifest_release (the newest infrastructure release).",
  }),
  checks: z
    .array(StackCheckSchema)
    .default([])
    .meta({ description: "Assertions on the stack's facts, checked before any change." }),
  windows: WindowsSchema.meta({
    description:
      "Change windows for every environment of the stack (an environment's own windows apply too).",
  }),
  verify: VerifySchema.optional().meta({
    description:
      "Checks that the site answers after every deployment, for every environment of the file that declares no verify of its own.",
  }),
  notify: NotifySchema.meta({
    description:
      "Where to send notification events of this stack, besides the target's sinks (stackwright:notify in Pulumi.<target>.yaml; a sink of the same name here replaces the target's).",
  }),
}).meta({
  title: "Stackwright stack file",
  description: "Desired state of one API stack. See docs/stacks-config.md.",
});
/** One stack as the program receives it (defaults applied). */
export type StackConfig = z.output<typeof StackFileSchema>;
/** One stack file as written (before defaults). */
export type StackFileInput = z.input<typeof StackFileSchema>;
