/**
 * `preview|up|refresh|destroy --json`: one versioned document of the run, per stack its result,
 * its changes in the summary's words (the same as the display's lines), the deployments it left
 * with their ids and links, those awaiting approval and its errors. Defined once here; its JSON
 * Schema is generated into docs/schemas/ (RUN_SCHEMA_FILE) and a test keeps that file current.
 */
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { z } from "zod";
import { terminalText } from "../../safe-text";
import { awaitsApproval, countsOf, diagnosticText, runChanges } from "./changes";

export const RUN_SCHEMA_FILE = "docs/schemas/run-v1.schema.json";

const Change = z.object({
  /** `acme-web/uat`, or the API stack for a change of no environment. */
  where: z.string(),
  environment: z.string().nullable(),
  /** The summary's word for the change: deploy, redeploy, adopt, lock, unlock, snapshot, ... */
  change: z.string(),
  /** The engine's operation of the step (create, update, replace, delete, ...). */
  op: z.string(),
  /** The change in the summary's words (plain text). */
  text: z.string(),
});

const DeploymentSeen = z.object({
  where: z.string(),
  id: z.string(),
  /** The platform's state of the deployment as the run left it (Completed, Submitted, ...). */
  state: z.string(),
  link: z.string().nullable(),
  sha: z.string().nullable(),
  /** Made or started by this run (false: only recorded, unchanged). */
  made: z.boolean(),
});

export const StackResult = z.enum([
  "ok",
  "ok (destroy planned)",
  "destroyed",
  "locked",
  "interrupted",
  "failed",
]);

const StackRun = z.object({
  /** The Pulumi stack (`dev.acme-web`). */
  stack: z.string(),
  api_stack: z.string(),
  result: StackResult,
  exit_code: z.number().int(),
  duration_ms: z.number().int().nonnegative(),
  /** Confirmed unchanged without starting the engine. */
  confirmed: z.boolean(),
  /** Why an `up` ran its engine instead of being confirmed without it. */
  engine_reason: z.string().nullable(),
  changes: z.array(Change),
  unchanged: z.number().int().nonnegative(),
  deployments: z.array(DeploymentSeen),
  awaiting_approval: z.array(DeploymentSeen),
  /** Why it failed: the engine's errors (a failed deployment's carries its log's last lines). */
  errors: z.array(z.string()),
});

export const RunDocument = z.object({
  version: z.literal(1),
  command: z.enum(["preview", "up", "refresh", "destroy"]),
  target: z.string(),
  exit_code: z.number().int(),
  /** Changes of all stacks per word of the change column. */
  counts: z.record(z.string(), z.number().int().nonnegative()),
  awaiting_approval: z.number().int().nonnegative(),
  stacks: z.array(StackRun),
});
export type RunDocument = z.infer<typeof RunDocument>;

/** One stack's run as the document needs it (fleet/run-stack.ts's outcome with its result word). */
export interface StackRunInput {
  readonly stackName: string;
  readonly apiStack: string;
  readonly result: z.infer<typeof StackResult>;
  readonly exitCode: number;
  readonly durationMs: number;
  readonly confirmed?: boolean;
  readonly engineReason?: string;
  readonly failure?: string;
  readonly events: readonly EngineEvent[];
}

function errorsOf(run: StackRunInput): string[] {
  const errors = run.events.flatMap((e) => {
    const d = e.diagnosticEvent;
    if (d?.severity !== "error") return [];
    const text = diagnosticText(d.message);
    return text === undefined ? [] : [text.split("\n").map(terminalText).join("\n")];
  });
  if (errors.length === 0 && run.failure !== undefined) errors.push(run.failure);
  return errors;
}

export function runDocument(
  command: RunDocument["command"],
  target: string,
  exitCode: number,
  runs: readonly StackRunInput[],
): RunDocument {
  const counts = new Map<string, number>();
  let awaiting = 0;
  const stacks = runs.map((run) => {
    const seen = runChanges(run.events);
    for (const [label, n] of countsOf(seen.changes)) counts.set(label, (counts.get(label) ?? 0) + n);
    const deployments = seen.deployments.map((d) => ({
      where: d.where,
      id: d.id,
      state: d.state,
      link: d.link ?? null,
      sha: d.sha ?? null,
      made: d.made,
    }));
    const waiting = deployments.filter((d) => awaitsApproval(d));
    awaiting += waiting.length;
    return {
      stack: run.stackName,
      api_stack: run.apiStack,
      result: run.result,
      exit_code: run.exitCode,
      duration_ms: Math.round(run.durationMs),
      confirmed: run.confirmed === true,
      engine_reason: run.engineReason ?? null,
      changes: seen.changes.map((c) => ({
        where: c.where,
        environment: c.change.environment === "—" ? null : c.change.environment,
        change: c.label,
        op: c.change.op,
        text: c.change.text,
      })),
      unchanged: seen.unchanged,
      deployments,
      awaiting_approval: waiting,
      errors: errorsOf(run),
    };
  });
  return {
    version: 1,
    command,
    target,
    exit_code: exitCode,
    counts: Object.fromEntries(counts),
    awaiting_approval: awaiting,
    stacks,
  };
}

/** The JSON Schema of the run document (what docs/schemas/ holds). */
export function runJsonSchemaText(): string {
  return `${JSON.stringify(z.toJSONSchema(RunDocument, { target: "draft-7" }), null, 2)}\n`;
}
