/**
 * The last lines of a run, under its closing table: what the run changed (or plans) in the
 * summary's words and counts, the deployments that wait for a person and how to go on once they
 * are approved, and, asked for, each stack's outputs.
 */
import type { EngineEvent } from "@pulumi/pulumi/automation";
import type { EngineOperation } from "../engine/run";
import {
  awaitsApproval,
  countsOf,
  countsText,
  runChanges,
  type ChangeLine,
  type DeploymentSeen,
} from "./changes";

/** One stack's run as the closing lines need it (fleet/run-stack.ts's outcome has this shape). */
export interface StackRunEnd {
  readonly job: { readonly stackName: string };
  readonly events: readonly EngineEvent[];
  readonly confirmed?: true;
}

export interface ClosingOptions {
  readonly operation: EngineOperation;
  /** The command line that runs `up --refresh` as this user runs Stackwright (src/project/invocation.ts). */
  readonly upRefresh: string;
  readonly showOutputs: boolean;
}

/** The words of a run's changes, for the closing table's column: `1 deploy, 2 adopt`. */
export function changesColumn(run: StackRunEnd): string {
  if (run.confirmed === true) return "no change (confirmed)";
  const text = countsText(countsOf(runChanges(run.events).changes), ", ");
  return text === "" ? "none" : text;
}

/** The deployments of `runs` that wait for approval. */
export function awaitingApproval(runs: readonly StackRunEnd[]): DeploymentSeen[] {
  return runs.flatMap((run) => runChanges(run.events).deployments.filter(awaitsApproval));
}

export function closingLines(runs: readonly StackRunEnd[], options: ClosingOptions): string[] {
  const all: ChangeLine[] = [];
  let unchanged = 0;
  const lines: string[] = [];
  for (const run of runs) {
    const seen = runChanges(run.events);
    all.push(...seen.changes);
    unchanged += seen.unchanged;
    if (options.showOutputs && seen.outputs !== undefined) {
      lines.push(`outputs of ${run.job.stackName}:`, ...indent(JSON.stringify(seen.outputs, null, 2)));
    }
  }
  const counts = countsText(countsOf(all));
  const waiting = awaitingApproval(runs);
  const planned = options.operation === "preview" ? "planned: " : "";
  if (counts !== "") lines.push(`${planned}${counts} (${unchanged} unchanged)`);
  else if (waiting.length === 0) lines.push(`no changes (${unchanged} unchanged)`);
  if (waiting.length > 0) {
    lines.push(
      `${waiting.length} awaiting approval: approve ${waiting.length === 1 ? "it" : "them"}, then run ${options.upRefresh}`,
    );
    for (const d of waiting)
      lines.push(`  ${d.where}  deployment ${d.id} ${d.state}${d.link === undefined ? "" : ` ${d.link}`}`);
  }
  return lines;
}

function indent(text: string): string[] {
  return text.split("\n").map((l) => `  ${l}`);
}
