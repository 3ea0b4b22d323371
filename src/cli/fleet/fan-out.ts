/**
 * Runs the selected stacks with at most K at once, each to its end whatever the others do, and
 * reports them together: a closing table (stack, result, changes, duration) and one Markdown
 * summary for the pull request.
 */
import * as os from "node:os";
import { flag } from "../kit/args";
import { EXIT_CODES } from "../kit/exit-codes";
import { prefixedLines, renderTable, type Sink } from "../kit/output";
import type { SummaryInput } from "../report/summary";
import { changesColumn } from "../display/closing";
import type { RunDisplay } from "../display/display";
import { summaryOfRuns, type RunForSummary } from "../report/summary-runs";
import { runStack, type Operation, type RunOptions, type StackJob, type StackOutcome } from "./run-stack";

/**
 * Stacks at once when `--concurrency` is not given: two per core. With the program and the
 * providers hosted, an engine run spends much of its time waiting (on the API, the backend, the
 * CLI's process), so one per core leaves CPU idle, and more than two per core only adds memory
 * and contention (docs/performance.md, "One provider host for all engine runs").
 */
export function defaultConcurrency(): number {
  return 2 * Math.max(1, os.availableParallelism());
}

/** `--concurrency K`: stacks run at once, 1 to 64 ({@link defaultConcurrency} when not given). */
export const concurrencyFlag = {
  concurrency: flag.int("stacks run at once (default: two per core)", {
    min: 1,
    max: 64,
    default: defaultConcurrency(),
  }),
};

/** How a fan-out shows its stacks' runs. */
export interface FanOutShow {
  /** Stackwright's display of the runs (display/display.ts); none: only our own lines. */
  readonly display?: RunDisplay;
  /** The engine's raw display instead (`--engine-display`), prefixed by its stack. */
  readonly engineDisplay?: boolean;
}

/** Runs every job, `concurrency` at a time, in the given order; outcomes in the same order. */
export async function fanOut(
  jobs: readonly StackJob[],
  concurrency: number,
  options: Omit<RunOptions, "stdout" | "stderr" | "log" | "engineOutput" | "onEvent"> & FanOutShow,
  /** Where the runs' lines go: the command's streams (`--json -` keeps stdout for its document). */
  sinks: { readonly stdout: Sink; readonly stderr: Sink },
): Promise<StackOutcome[]> {
  const outcomes: StackOutcome[] = new Array<StackOutcome>(jobs.length);
  let next = 0;
  const prefix = jobs.length > 1;
  const { display, engineDisplay, ...runOptions } = options;
  // Our own lines go above the display's live lines.
  const ours: Sink =
    display === undefined ? sinks.stdout : { write: (text) => display.line(text.replace(/\n$/, "")) };
  const worker = async () => {
    for (let i = next++; i < jobs.length; i = next++) {
      const job = jobs[i];
      if (job === undefined) continue;
      const out = prefixedLines(prefix ? `[${job.apiStack}] ` : "", ours);
      const err = prefixedLines(prefix ? `[${job.apiStack}] ` : "", sinks.stderr);
      const raw =
        engineDisplay === true ? prefixedLines(prefix ? `[${job.apiStack}] ` : "", sinks.stdout) : undefined;
      const view = display?.stack(job.apiStack);
      try {
        outcomes[i] = await runStack(job, {
          ...runOptions,
          stdout: out.write,
          stderr: err.write,
          log: (line) => sinks.stderr.write(`${line}\n`),
          ...(raw === undefined ? {} : { engineOutput: raw.write }),
          ...(view === undefined ? {} : { onEvent: (event) => view.event(event) }),
        });
      } finally {
        out.flush();
        err.flush();
        raw?.flush();
        view?.end();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, worker));
  return outcomes;
}

/** How a stack's run ended, in the closing table's words; a preview never destroyed anything. */
export function resultOf(outcome: StackOutcome, operation: Operation | undefined): string {
  if (outcome.exitCode === EXIT_CODES.ok) {
    if (!outcome.job.destroy) return "ok";
    return operation === "preview" ? "ok (destroy planned)" : "destroyed";
  }
  if (outcome.exitCode === EXIT_CODES.locked) return "locked";
  if (outcome.exitCode === EXIT_CODES.interrupted) return "interrupted";
  return "failed";
}

/**
 * The closing table, one row per stack; for an `up` whose stack was not confirmed without the
 * engine, a last column says why its engine ran (shown only when some row has a reason).
 */
export function closingTable(outcomes: readonly StackOutcome[], operation?: Operation): string {
  const why = outcomes.some((o) => o.engineReason !== undefined);
  return renderTable(
    ["stack", "result", "changes", "duration", ...(why ? ["why the engine ran"] : [])],
    outcomes.map((o) => [
      o.job.stackName,
      resultOf(o, operation),
      changesColumn(o),
      `${(o.durationMs / 1000).toFixed(1)} s`,
      ...(why ? [o.engineReason ?? ""] : []),
    ]),
  );
}

/**
 * The pull-request comment's input for every stack of the run: their planned (or made) changes,
 * failures, kept stacks of deleted files, facts (summary-runs.ts, then summary.ts renders it).
 */
export function fleetSummary(
  title: string,
  operation: Operation,
  outcomes: readonly StackOutcome[],
  kept: readonly string[],
  sections = "",
): SummaryInput {
  const runs: RunForSummary[] = outcomes.map((o) => {
    const result = resultOf(o, operation);
    return {
      stackName: o.job.stackName,
      events: o.events,
      // A stack planned for destruction ran to its end: only a failure needs a person.
      result: o.exitCode === EXIT_CODES.ok ? "ok" : result,
      ...(o.failure === undefined ? {} : { failure: o.failure }),
      ...(o.confirmed === true ? { confirmed: true } : {}),
    };
  });
  return summaryOfRuns(runs, {
    title,
    attention: kept.map(
      (s) => `**${s}**: its file was deleted; its resources stay until a run with \`--destroy-deleted\``,
    ),
    sections,
  });
}
