import { z } from "zod";

/**
 * The notification events Stackwright sends to sinks (docs/notifications.md): their stable names
 * and the versioned JSON payload of each. The config (which events a sink subscribes to) and the
 * delivery layer (src/notify) both use these; `docs/notify/event.v1.schema.json` is generated from
 * {@link NotifyEvent} and never written by hand.
 */

/** Every event name, stable across versions: a sink subscribes to these. */
export const NOTIFY_EVENT_NAMES = [
  "deployment.succeeded",
  "deployment.failed",
  "deployment.awaiting_approval",
  "verification.failed",
  "verification.rolled_back",
  "restore.succeeded",
  "restore.failed",
  "restore.outcome_unknown",
  "drift.detected",
  "drift.resolved",
  "window.overridden",
  "lock.recovered",
  "run.failed",
] as const;
export const NotifyEventName = z.enum(NOTIFY_EVENT_NAMES);
export type NotifyEventName = z.infer<typeof NotifyEventName>;

/** The events a sink gets when its `events:` is left out: the failures, which someone must act on. */
export const DEFAULT_NOTIFY_EVENTS: readonly NotifyEventName[] = [
  "deployment.failed",
  "restore.failed",
  "restore.outcome_unknown",
  "run.failed",
];

/** The kinds of sink: a signed JSON webhook, a Slack incoming webhook, a Teams (Adaptive Card) webhook. */
export const SINK_KINDS = ["webhook", "slack", "teams"] as const;
export const SinkKind = z.enum(SINK_KINDS);
export type SinkKind = z.infer<typeof SinkKind>;

/** The payload's `schema` value of this version; a receiver branches on it. */
export const NOTIFY_SCHEMA_ID = "stackwright.event/v1";

/** The CI run that sent the event, when the usual CI variables are set. */
export const CiRun = z.object({
  provider: z.enum(["github", "gitlab"]),
  url: z.string().meta({ description: "Link to the CI run (GitHub Actions run, GitLab pipeline)." }),
});
export type CiRun = z.infer<typeof CiRun>;

const text = z.string();
const maybe = <T extends z.ZodType>(schema: T) => schema.nullable();

const DeploymentDetails = z.object({
  deployment_id: maybe(text).meta({ description: "The platform's deployment id (null when none was made)." }),
  state: maybe(text).meta({ description: "The deployment's last state: Completed, Failed, Submitted, ..." }),
  sha: maybe(text).meta({ description: "The commit sha deployed (null when not known)." }),
  ref: maybe(text).meta({ description: "The ref of the desired state (branch, tag, sha), if any." }),
  message: maybe(text).meta({ description: "What happened, in one line (failures: why)." }),
  log_tail: z.array(text).meta({
    description: "The last lines of the deployment's log (deployment.failed only; empty otherwise).",
  }),
});

const VerificationDetails = z.object({
  checked_deployment_id: text.meta({ description: "The deployment whose build was checked." }),
  sha: text.meta({ description: "The sha of the build that was checked." }),
  check: maybe(text).meta({
    description: "The check that failed and what it expected, e.g. `check 1 (/health): expected status 200`.",
  }),
  answer: maybe(
    z.object({
      url: text,
      status: z.number().int().nullable(),
      latency_ms: z.number().int().nullable(),
      body_excerpt: text.meta({
        description: "The first bytes of the body, cut to a bound (text, never markup).",
      }),
      error: maybe(text).meta({ description: "Why no usable answer came (reset, timeout, ...)." }),
    }),
  ).meta({ description: "What the check got back the last time it ran." }),
  message: text.meta({ description: "The check and its answer, in one line." }),
  rolled_back_to: maybe(
    z.object({
      deployment_id: text,
      sha: text,
      result: z.enum(["passed", "failed", "unverified"]),
    }),
  ).meta({
    description: "verification.rolled_back: the build deployed again and what its own checks found.",
  }),
  rollback_command: maybe(text).meta({
    description:
      "verification.rolled_back: the `stackwright rollback --branch` command that pins the file to the build that runs now.",
  }),
});

const RestoreDetails = z.object({
  transfer_id: maybe(text).meta({ description: "The platform's transfer id (null when not known)." }),
  restore: text.meta({ description: "The restore's logical name in the stack file." }),
  status: maybe(text).meta({ description: "The transfer's status, or 'unknown'." }),
  message: maybe(text).meta({ description: "What happened, in one line." }),
});

const DriftDetails = z.object({
  kind: text.meta({ description: "What drifted, as `drift` names it (e.g. deployment)." }),
  desired: maybe(text).meta({ description: "What stacks-config/ wants (e.g. a sha), when it says." }),
  live: maybe(text).meta({ description: "What the platform has (e.g. the live sha), when known." }),
  message: text.meta({ description: "The drift in one line." }),
});

const WindowDetails = z.object({
  reason: text.meta({ description: "The --override-window reason." }),
  environments: z.array(text).meta({ description: "The environments whose change windows were closed." }),
});

const LockDetails = z.object({
  holder: text.meta({ description: "Whose lock it was: user, host, pid and since when." }),
  reason: text.meta({ description: "Why it was judged stale." }),
});

const RunFailedDetails = z.object({
  reason: text.meta({ description: "Why the stack's run ended in error, in one line." }),
  exit_code: z.number().int().meta({ description: "The stack's exit code (README, Exit codes)." }),
});

/** The fields every event carries. */
const Envelope = {
  schema: z.literal(NOTIFY_SCHEMA_ID),
  id: text.meta({
    description:
      "Stable id of this event, also sent as the Idempotency-Key header: the same on every delivery attempt, so receivers can drop duplicates.",
  }),
  time: text.meta({ description: "When the event became certain (ISO 8601, UTC)." }),
  target: text.meta({ description: "The Stackwright target (Pulumi.<target>.yaml)." }),
  stack: text.meta({ description: "The API stack (the stack file's `stack:`)." }),
  pulumi_stack: text.meta({ description: "The per-file Pulumi stack, <target>.<API stack>." }),
  environment: maybe(text).meta({ description: "The environment, for events about one." }),
  summary: text.meta({ description: "The event in one human-readable line (what the chat messages show)." }),
  links: z
    .object({
      deployment: maybe(text).meta({ description: "The deployment on the platform, if any." }),
      ci_run: maybe(text).meta({ description: "The CI run, when known." }),
    })
    .meta({ description: "Links a person follows." }),
  ci: maybe(CiRun),
  test: z.boolean().meta({ description: "True for the samples of `stackwright notify test`." }),
};

const event = <N extends NotifyEventName, D extends z.ZodType>(name: N, details: D) =>
  z.object({ ...Envelope, event: z.literal(name), details });

/** One event, version 1. The `event` field names it; `details` depends on it. */
export const NotifyEvent = z
  .discriminatedUnion("event", [
    event("deployment.succeeded", DeploymentDetails),
    event("deployment.failed", DeploymentDetails),
    event("deployment.awaiting_approval", DeploymentDetails),
    event("verification.failed", VerificationDetails),
    event("verification.rolled_back", VerificationDetails),
    event("restore.succeeded", RestoreDetails),
    event("restore.failed", RestoreDetails),
    event("restore.outcome_unknown", RestoreDetails),
    event("drift.detected", DriftDetails),
    event("drift.resolved", DriftDetails),
    event("window.overridden", WindowDetails),
    event("lock.recovered", LockDetails),
    event("run.failed", RunFailedDetails),
  ])
  .meta({
    title: "Stackwright notification event, version 1",
    description: "The JSON body of a `webhook` sink's request. See docs/notifications.md.",
  });
export type NotifyEvent = z.infer<typeof NotifyEvent>;
export type DeploymentEventDetails = z.infer<typeof DeploymentDetails>;
export type RestoreEventDetails = z.infer<typeof RestoreDetails>;
export type VerificationEventDetails = z.infer<typeof VerificationDetails>;
export type DriftEventDetails = z.infer<typeof DriftDetails>;

/** Where the generated JSON Schema of {@link NotifyEvent} lives, relative to the repository root. */
export const NOTIFY_SCHEMA_FILE = "docs/notify/event.v1.schema.json";

/** The exact text of {@link NOTIFY_SCHEMA_FILE}: two-space JSON and a final newline. */
export function notifyEventJsonSchemaText(): string {
  return `${JSON.stringify(z.toJSONSchema(NotifyEvent, { target: "draft-7" }), null, 2)}\n`;
}
