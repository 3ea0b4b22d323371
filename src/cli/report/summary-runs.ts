/**
 * The comment of a set of engine runs, from their own events: what `preview --summary` writes for
 * the stacks it ran and what `stackwright summary` writes for an event log of `pulumi preview
 * --event-log FILE`. Both go through here and then the one renderer (summary.ts), so the same
 * plan gives the same comment.
 */
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { typeToken, urnStack, verificationOf } from "../../api";
import { engineDiagnostic } from "../kit/engine-diagnostic";
import { factsOfOutcomes, factsSummary } from "./facts";
import type { PreviewJson } from "../engine/preview-json";
import { previewFromEvents } from "../engine/preview-events";
import type { SummaryFailure, SummaryInput, VerifiedDeployment } from "./summary";

/** One stack's run as the comment needs it. */
export interface RunForSummary {
  /** The Pulumi stack (`dev.acme-web`). */
  readonly stackName: string;
  readonly events: readonly EngineEvent[];
  /** `ok`, or how it ended otherwise (`failed`, `locked`, `interrupted`). */
  readonly result: string;
  /** Why it did not end well, in one line, when its events do not say (a refusal before the engine). */
  readonly failure?: string;
  /** Confirmed unchanged without the engine. */
  readonly confirmed?: boolean;
}

export interface SummaryExtras {
  readonly title: string;
  /** Notes for a person, after the failures (a deleted file's kept stack). */
  readonly attention?: readonly string[];
  /** Sections before the Facts (change windows overridden). */
  readonly sections?: string;
}

/** The comment's input for `runs`: their steps and diagnostics merged, failures, facts. */
export function summaryOfRuns(runs: readonly RunForSummary[], extras: SummaryExtras): SummaryInput {
  const merged: PreviewJson = { steps: [], diagnostics: [], changeSummary: {} };
  for (const run of runs) {
    const one = previewFromEvents(run.events);
    merged.steps.push(...one.steps);
    merged.diagnostics.push(...one.diagnostics);
    for (const [op, n] of Object.entries(one.changeSummary)) {
      merged.changeSummary[op] = (merged.changeSummary[op] ?? 0) + n;
    }
  }
  const failures: SummaryFailure[] = runs
    .filter((run) => run.result !== "ok")
    .map((run) => {
      const line = engineDiagnostic(run.events) ?? run.failure;
      return { stack: run.stackName, result: run.result, ...(line === undefined ? {} : { line }) };
    });
  return {
    title: extras.title,
    preview: merged,
    verifications: runs.flatMap((run) => verificationsOf(run.events)),
    failures,
    attention: extras.attention ?? [],
    confirmed: runs.filter((run) => run.confirmed === true).map((run) => run.stackName),
    trailer: `${extras.sections ?? ""}${factsSummary(factsOfOutcomes(runs))}`,
  };
}

/** The type token of the Deployment resource, whose outputs carry what `verify:` found. */
const DEPLOYMENT_TYPE = typeToken("Deployment");

/**
 * What the checks found after each deployment the run made: the last word on each Deployment
 * resource (its outputs, or its failure's) that carries a verification.
 */
export function verificationsOf(events: readonly EngineEvent[]): VerifiedDeployment[] {
  const last = new Map<string, VerifiedDeployment>();
  for (const e of events) {
    const meta = e.resOutputsEvent?.metadata ?? e.resOpFailedEvent?.metadata;
    if (meta === undefined || meta.type !== DEPLOYMENT_TYPE || meta.op === "same" || meta.op === "read")
      continue;
    const values: Record<string, unknown> = { ...(meta.new?.inputs ?? {}), ...(meta.new?.outputs ?? {}) };
    const verification = verificationOf(values);
    const stack = values["stack"];
    const environment = values["environment"];
    if (verification === undefined || typeof stack !== "string" || typeof environment !== "string") continue;
    last.set(meta.urn, { stack, environment, verification });
  }
  return [...last.values()];
}

/**
 * The run of an event log (`pulumi preview --event-log FILE`: one engine event per line, one
 * stack): its stack is the one its resources' URNs name; it failed when the engine reported an error.
 */
export function runOfEventLog(events: readonly EngineEvent[]): RunForSummary {
  const urn = events
    .map((e) => e.resourcePreEvent?.metadata.urn ?? e.resOutputsEvent?.metadata.urn)
    .find((u) => u !== undefined);
  return {
    stackName: (urn === undefined ? undefined : urnStack(urn)) ?? "stack",
    events,
    result: events.some((e) => e.diagnosticEvent?.severity === "error") ? "failed" : "ok",
  };
}
