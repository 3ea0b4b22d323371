/**
 * The fleet's observed model: per API stack and environment, what the desired state asks, what
 * the last `up` recorded, what the platform runs, and the sync state that follows. It crosses a
 * process and a file (`stackwright status --json`, read by other tools), so it is a zod schema
 * with stable, snake_case field names and a version; its JSON Schema is committed in
 * docs/schemas/ (generated from this file, never written by hand).
 */
import { z } from "zod";
import { Verification } from "../api";
import { NEXT_OPEN_HORIZON_DAYS } from "../config";

/** Where the JSON Schema of the status document is committed, relative to the repository root. */
export const STATUS_SCHEMA_FILE = "docs/schemas/status-v1.schema.json";
/** Where the JSON Schema of the drift report is committed, relative to the repository root. */
export const DRIFT_SCHEMA_FILE = "docs/schemas/drift-v1.schema.json";

/** Every sync state, in the order the table counts them. */
export const SYNC_STATES = [
  "in sync",
  "drifted",
  "deploying",
  "awaiting approval",
  "failed",
  "verify failed",
  "rolled back",
  "not yet deployed",
  "not managed",
  "unknown",
] as const;
export const SyncState = z.enum(SYNC_STATES).meta({
  description:
    "in sync: the platform runs what the last up deployed, and the file asks for it; drifted: it runs something else (a hand deployment) or the file asks for another ref than the last up deployed; deploying / awaiting approval: the environment's newest deployment is in progress / waits for approval or a start; failed: its newest deployment failed; verify failed: it runs the build the last up deployed, whose checks (`verify:`) failed; rolled back: that build failed its checks and the build before it was deployed again (`on_failure: rollback`), so the environment runs another sha than the file pins until the file changes; not yet deployed: the file asks for a deployment that no up made; not managed: the file asks for none; unknown: it could not be read (reason says why).",
});
export type SyncState = z.infer<typeof SyncState>;

const Instant = z.string().meta({ description: "ISO 8601 instant (UTC)" });

/** A deployment of the platform, as the status shows it. */
export const ObservedDeployment = z.object({
  id: z.string(),
  sha: z.string(),
  short_sha: z.string(),
  title: z.string(),
  state: z
    .string()
    .meta({ description: "the platform's deployment state (Completed, Failed, Deploying, ...)" }),
  deployer: z.object({ name: z.string(), email: z.string() }).nullable(),
  at: Instant.nullable().meta({
    description:
      "when it last changed state (the newest of its updated, started and created dates); null when the platform gives none of them",
  }),
  link: z.string().nullable(),
});
export type ObservedDeployment = z.infer<typeof ObservedDeployment>;

export const DriftKind = z
  .enum(["hand deployment", "desired changed", "failed", "not deployed", "planned change"])
  .meta({
    description:
      "hand deployment: the platform runs another sha than the last up deployed; desired changed: the file asks for another ref than the last up deployed; failed: the newest deployment failed; not deployed: the file asks for a deployment no up made; planned change: the engine's preview with refresh plans a change there (it runs where the proof does not hold, or with `drift --full`)",
  });
export type DriftKind = z.infer<typeof DriftKind>;

export const EnvironmentStatus = z.object({
  stack: z.string(),
  environment: z.string(),
  desired: z
    .object({ ref_type: z.string(), ref: z.string() })
    .nullable()
    .meta({ description: "what the file asks to deploy; null: not managed" }),
  applied: z
    .object({ ref_type: z.string(), ref: z.string(), sha: z.string(), deployment_id: z.string() })
    .nullable()
    .meta({ description: "what the last up deployed, as the stack's Pulumi state records it" }),
  verification: Verification.nullable().meta({
    description:
      "what the checks of `verify:` found after the last up's deployment here, as the state records it; null when nothing was checked",
  }),
  live: z
    .object({ sha: z.string(), short_sha: z.string(), deployment: ObservedDeployment.nullable() })
    .nullable()
    .meta({ description: "what the environment runs (its build sha) and the deployment that put it there" }),
  sync: SyncState,
  reason: z.string().nullable().meta({ description: "why the sync state is what it is, for people" }),
  drift: z
    .object({
      kind: DriftKind,
      since: Instant.nullable().meta({ description: "as far as the deployment history tells" }),
      by: z.string().nullable().meta({ description: "who made the live deployment" }),
    })
    .nullable(),
  lock: z.object({ message: z.string() }).nullable().meta({ description: "the lock the file keeps here" }),
  window: z
    .object({
      open: z.boolean(),
      reason: z.string().nullable(),
      next_open: Instant.nullable().meta({
        description: "when the windows next open; null when open now or when no opening was found",
      }),
      searched_until: Instant.nullable().meta({
        description:
          "with next_open null: how far the search for the next opening got before it stopped " +
          `(windows that open and close too often); null when it looked the whole ${NEXT_OPEN_HORIZON_DAYS} days ahead`,
      }),
    })
    .nullable()
    .meta({ description: "the change windows now; null when none apply" }),
  newest: ObservedDeployment.nullable().meta({ description: "the environment's newest deployment" }),
  recent: z.array(ObservedDeployment).meta({ description: "its last deployments, newest first (at most 5)" }),
  failure_log: z
    .array(z.string())
    .nullable()
    .meta({ description: "the tail of the newest deployment's log when it failed" }),
});
export type EnvironmentStatus = z.infer<typeof EnvironmentStatus>;

export const StackStatus = z.object({
  stack: z.string(),
  pulumi_stack: z.string(),
  file: z.string().meta({ description: "the stack file, relative to the project" }),
  last_up: z
    .object({ at: Instant, result: z.string() })
    .nullable()
    .meta({ description: "the last up that ran the engine, from the state backend's history" }),
  confirmed_at: Instant.nullable().meta({
    description: "when the last no-change run proved the stack unchanged (confirmation record)",
  }),
  error: z
    .string()
    .nullable()
    .meta({ description: "why the stack could not be observed (its environments say unknown)" }),
  environments: z.array(EnvironmentStatus),
});
export type StackStatus = z.infer<typeof StackStatus>;

export const SyncCounts = z.object(
  Object.fromEntries(SYNC_STATES.map((s) => [s, z.number().int().nonnegative()])) as Record<
    SyncState,
    z.ZodNumber
  >,
);
export type SyncCounts = z.infer<typeof SyncCounts>;

/** The document of `stackwright status --json`. */
export const FleetStatus = z
  .object({
    kind: z.literal("stackwright.status"),
    version: z.literal(1),
    target: z.string(),
    generated_at: Instant,
    counts: SyncCounts,
    stacks: z.array(StackStatus),
  })
  .meta({ title: "stackwright status --json", description: "The fleet's observed state (version 1)." });
export type FleetStatus = z.infer<typeof FleetStatus>;

/** One drifted environment of a drift report, and how it compares with the last report. */
export const DriftEntry = z.object({
  stack: z.string(),
  environment: z.string(),
  status: z.enum(["new", "still", "resolved"]).meta({
    description: "new: not in the last report; still: in it too; resolved: in it, gone now",
  }),
  kind: DriftKind,
  desired: z.string().nullable().meta({ description: "`ref_type ref` the file asks for" }),
  applied_sha: z.string().nullable(),
  live_sha: z.string().nullable(),
  since: Instant.nullable(),
  by: z.string().nullable(),
  first_reported: Instant.nullable(),
});
export type DriftEntry = z.infer<typeof DriftEntry>;

/** How one stack was checked by `drift`, and why the engine ran or did not need to. */
export const DriftCheck = z.object({
  stack: z.string(),
  checked_by: z.enum(["proof", "engine", "reads"]).meta({
    description:
      "proof: the last no-change up's proof still holds (same inputs, same checkpoint, no lock, every recorded read answers the same), so the engine would change nothing and did not run; engine: the engine's preview with refresh ran for this stack (no proof, a planned change to check again, or --full); reads: the reads alone decided (its observation failed, or every environment drifted already, so the engine could add nothing)",
  }),
  reason: z
    .string()
    .nullable()
    .meta({ description: "why the engine ran, or why the proof was not enough; null when proved" }),
});
export type DriftCheck = z.infer<typeof DriftCheck>;

/** What the checks of `verify:` say about the build an environment runs now. */
export const CurrentVerification = z.object({
  stack: z.string(),
  environment: z.string(),
  live_sha: z.string().meta({ description: "the build the environment runs" }),
  result: z.enum(["passed", "failed", "rolled_back", "unverified"]).meta({
    description:
      "passed / failed: what the checks found after the up that deployed this build; rolled_back: this build failed them and was replaced by the build before it; unverified: no check of this build is recorded (no `verify:`, or a build Stackwright did not check)",
  }),
  verification: Verification.nullable().meta({
    description:
      "the verification the state records for the environment (it may be about this build or the one it replaced)",
  }),
});
export type CurrentVerification = z.infer<typeof CurrentVerification>;

/** The document of `stackwright drift --json`. */
export const DriftReport = z
  .object({
    kind: z.literal("stackwright.drift"),
    version: z.literal(1),
    target: z.string(),
    generated_at: Instant,
    result: z.enum(["clean", "drift", "error"]),
    counts: z.object({
      new: z.number().int(),
      still: z.number().int(),
      resolved: z.number().int(),
      errors: z.number().int(),
    }),
    drift: z.array(DriftEntry),
    errors: z.array(z.object({ stack: z.string(), environment: z.string().nullable(), reason: z.string() })),
    stacks: z.array(DriftCheck).meta({ description: "how each selected stack was checked" }),
    verifications: z.array(CurrentVerification).meta({
      description:
        "per observed environment with a live build, what the checks of `verify:` say about that build",
    }),
  })
  .meta({ title: "stackwright drift --json", description: "What drifted, per environment (version 1)." });
export type DriftReport = z.infer<typeof DriftReport>;

/** What `drift` remembers of its last report on one stack (the state backend, next to the confirmations). */
export const DriftMemory = z.object({
  version: z.literal(1),
  stack: z.string(),
  reported: z.array(
    z.object({
      environment: z.string(),
      kind: DriftKind,
      live_sha: z.string().nullable(),
      first_reported: Instant,
    }),
  ),
});
export type DriftMemory = z.infer<typeof DriftMemory>;

/** The JSON Schema of the status document (what docs/schemas/ holds). */
export function statusJsonSchemaText(): string {
  return `${JSON.stringify(z.toJSONSchema(FleetStatus, { target: "draft-7" }), null, 2)}\n`;
}

/** The JSON Schema of the drift report (what docs/schemas/ holds). */
export function driftJsonSchemaText(): string {
  return `${JSON.stringify(z.toJSONSchema(DriftReport, { target: "draft-7" }), null, 2)}\n`;
}

/** Counts per sync state of `stacks`. */
export function countSync(stacks: readonly StackStatus[]): SyncCounts {
  const counts = Object.fromEntries(SYNC_STATES.map((s) => [s, 0])) as Record<SyncState, number>;
  for (const stack of stacks) for (const env of stack.environments) counts[env.sync] += 1;
  return counts;
}
