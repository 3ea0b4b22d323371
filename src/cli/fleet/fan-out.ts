/**
 * Runs the selected stacks with at most K at once, each to its end whatever the others do, and
 * reports them together: a closing table (stack, result, changes, duration) and one Markdown
 * summary for the pull request.
 */
import * as os from "node:os";
import { EXIT_CODES, UsageError } from "../exit-codes";
import { prefixedLines, renderTable, stderr, stdout } from "../output";
import type { PreviewJson } from "../preview-json";
import { previewFromEvents } from "../preview-events";
import { renderSummary } from "../summary";
import { runStack, type RunOptions, type StackJob, type StackOutcome } from "./run-stack";

/**
 * Stacks at once when `--concurrency` is not given: two per core. With the program and the
 * providers hosted, an engine run spends much of its time waiting (on the API, the backend, the
 * CLI's process), so one per core left CPU idle; measured on 2 cores, the first `up` of 100 files
 * took 51 s at 3, 44 s at 4, 46 s at 5 and 45 s at 6 at once (bench/fleet.ts).
 */
export function defaultConcurrency(): number {
  return 2 * Math.max(1, os.availableParallelism());
}

export function parseConcurrency(text: string | undefined): number {
  if (text === undefined) return defaultConcurrency();
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > 64) {
    throw new UsageError(`--concurrency must be a whole number from 1 to 64, not '${text}'`);
  }
  return n;
}

/** Runs every job, `concurrency` at a time, in the given order; outcomes in the same order. */
export async function fanOut(
  jobs: readonly StackJob[],
  concurrency: number,
  options: Omit<RunOptions, "stdout" | "stderr">,
): Promise<StackOutcome[]> {
  const outcomes: StackOutcome[] = new Array<StackOutcome>(jobs.length);
  let next = 0;
  const prefix = jobs.length > 1;
  const worker = async () => {
    for (let i = next++; i < jobs.length; i = next++) {
      const job = jobs[i];
      if (job === undefined) continue;
      const out = prefixedLines(prefix ? `[${job.apiStack}] ` : "", stdout);
      const err = prefixedLines(prefix ? `[${job.apiStack}] ` : "", stderr);
      try {
        outcomes[i] = await runStack(job, { ...options, stdout: out.write, stderr: err.write });
      } finally {
        out.flush();
        err.flush();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, worker));
  return outcomes;
}

function resultOf(outcome: StackOutcome): string {
  if (outcome.exitCode === EXIT_CODES.ok) return outcome.job.destroy ? "destroyed" : "ok";
  if (outcome.exitCode === EXIT_CODES.locked) return "locked";
  if (outcome.exitCode === EXIT_CODES.interrupted) return "interrupted";
  return "failed";
}

function changesText(outcome: StackOutcome): string {
  if (outcome.confirmed === true) return "no change (confirmed)";
  const parts = Object.entries(outcome.changes).map(([op, n]) => `${n} ${op}`);
  return parts.length === 0 ? "none" : parts.join(", ");
}

/**
 * The closing table, one row per stack; for an `up` whose stack was not confirmed without the
 * engine, a last column says why its engine ran (shown only when some row has a reason).
 */
export function closingTable(outcomes: readonly StackOutcome[]): string {
  const why = outcomes.some((o) => o.engineReason !== undefined);
  return renderTable(
    ["stack", "result", "changes", "duration", ...(why ? ["why the engine ran"] : [])],
    outcomes.map((o) => [
      o.job.stackName,
      resultOf(o),
      changesText(o),
      `${(o.durationMs / 1000).toFixed(1)} s`,
      ...(why ? [o.engineReason ?? ""] : []),
    ]),
  );
}

/** One Markdown summary of every stack of the run: their planned (or made) changes, then failures. */
export function fleetSummary(
  title: string,
  outcomes: readonly StackOutcome[],
  kept: readonly string[],
): string {
  const merged: PreviewJson = { steps: [], diagnostics: [], changeSummary: {} };
  for (const outcome of outcomes) {
    const one = previewFromEvents(outcome.events);
    merged.steps.push(...one.steps);
    merged.diagnostics.push(...one.diagnostics);
    for (const [op, n] of Object.entries(one.changeSummary)) {
      merged.changeSummary[op] = (merged.changeSummary[op] ?? 0) + n;
    }
  }
  const failed = outcomes.filter((o) => o.exitCode !== EXIT_CODES.ok);
  const confirmed = outcomes.filter((o) => o.confirmed === true).map((o) => `\`${o.job.stackName}\``);
  const notes = [
    ...failed.map(
      (o) => `- **${o.job.stackName}** ${resultOf(o)}${o.failure === undefined ? "" : `: ${o.failure}`}`,
    ),
    ...kept.map(
      (s) => `- **${s}**: its file was deleted; its resources stay until a run with \`--destroy-deleted\``,
    ),
  ];
  const rendered = renderSummary(merged, { title });
  const body =
    confirmed.length === 0
      ? rendered
      : `${rendered.trimEnd()}\n\nNo change, confirmed without the engine (same inputs, state and live reads as at their last no-change run): ${confirmed.join(", ")}\n`;
  return notes.length === 0 ? body : `${body.trimEnd()}\n\n#### Needs attention\n\n${notes.join("\n")}\n`;
}
