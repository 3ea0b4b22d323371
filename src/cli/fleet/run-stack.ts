/**
 * One engine run of one per-file stack: THE place where the engine runs for a stack, so that
 * everything that wraps a run is one call here: the lock guard (state/lock-guard.ts, for the
 * operations that take the lock) and the change-window gate (../window-gate.ts) today, a
 * fingerprint shortcut before `engine()` tomorrow. It never throws: a failure becomes the
 * stack's outcome, so one stack never stops the others.
 */
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { exitCodeOf, describeError, EXIT_CODES } from "../exit-codes";
import { engineErrorFilter } from "../state/engine-output";
import { withStackLock, type LockPolicy } from "../state/lock-guard";
import { lockTargetOf } from "../state/target";
import { gatedEngineRun, quietPlan, type WindowGate } from "../window-gate";
import { withPerFileStack, type Target } from "./target";

export type Operation = "preview" | "up" | "refresh" | "destroy";

/** One stack of a run: `destroy` when its file was deleted and the run may destroy it. */
export interface StackJob {
  readonly apiStack: string;
  readonly stackName: string;
  readonly destroy: boolean;
}

export interface StackOutcome {
  readonly job: StackJob;
  readonly exitCode: number;
  /** Resource changes by operation, without `same`. */
  readonly changes: Readonly<Record<string, number>>;
  readonly durationMs: number;
  /** The engine's events (for the Markdown summary). */
  readonly events: readonly EngineEvent[];
  /** Why it failed, in one line (undefined when it did not, or the engine's report says it). */
  readonly failure?: string;
}

export interface RunOptions {
  readonly target: Target;
  readonly operation: Operation;
  readonly refresh: boolean;
  readonly parallel?: number;
  readonly lockPolicy: LockPolicy;
  readonly signal: AbortSignal;
  /** Change windows closed at the run's instant, judged per stack (none: no gate). */
  readonly windows?: WindowGate;
  /** Where the engine's progress goes (prefixed by the fan-out when stacks run at once). */
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

function changesOf(
  summary: Readonly<Record<string, number | undefined>> | undefined,
): Record<string, number> {
  return Object.fromEntries(
    Object.entries(summary ?? {}).filter((e): e is [string, number] => e[0] !== "same" && (e[1] ?? 0) > 0),
  );
}

/** Runs `options.operation` on the job's stack and reports how it went. */
export async function runStack(job: StackJob, options: RunOptions): Promise<StackOutcome> {
  const started = performance.now();
  const events: EngineEvent[] = [];
  const errors = engineErrorFilter(options.stderr);
  const outcome = (exitCode: number, changes: Record<string, number>, failure?: string): StackOutcome => ({
    job,
    exitCode,
    changes,
    durationMs: performance.now() - started,
    events,
    ...(failure === undefined ? {} : { failure }),
  });
  try {
    const { target } = options;
    const changes = await withPerFileStack(target, job.stackName, async (stack) => {
      const engineOptions = {
        ...(target.configFile === undefined ? {} : { configFile: target.configFile }),
        onOutput: options.stdout,
        onError: errors.write,
        onEvent: (event: EngineEvent) => void events.push(event),
        signal: options.signal,
        ...(options.parallel === undefined ? {} : { parallel: options.parallel }),
      };
      const refresh = options.refresh ? { refresh: true } : {};
      const op = job.destroy ? "destroy" : options.operation;
      // The engine run. Everything that wraps it goes around this one function.
      const engine = async (): Promise<Record<string, number>> => {
        options.signal.throwIfAborted();
        if (options.operation === "preview") {
          if (op === "destroy") {
            const result = await stack.destroy({ ...engineOptions, previewOnly: true });
            return changesOf(result.summary.resourceChanges);
          }
          return changesOf((await stack.preview({ ...engineOptions, ...refresh })).changeSummary);
        }
        if (op === "up")
          return changesOf((await stack.up({ ...engineOptions, ...refresh })).summary.resourceChanges);
        if (op === "refresh") return changesOf((await stack.refresh(engineOptions)).summary.resourceChanges);
        return changesOf((await stack.destroy(engineOptions)).summary.resourceChanges);
      };
      // Refuses the run when it would change an environment whose change windows are closed.
      const gated = () =>
        gatedEngineRun(
          {
            gate: options.windows,
            stackName: job.stackName,
            operation: options.operation === "preview" ? "preview" : op,
            events,
            plan: () => quietPlan(stack, op === "destroy", { ...engineOptions, ...refresh }),
            say: options.stdout,
          },
          engine,
        );
      return options.operation === "preview"
        ? gated()
        : withStackLock(
            lockTargetOf(target.projectDir, job.stackName, target.env),
            options.lockPolicy,
            gated,
          );
    });
    return outcome(EXIT_CODES.ok, changes);
  } catch (err) {
    return outcome(exitCodeOf(err), {}, describeError(options.operation, err));
  } finally {
    errors.flush();
  }
}
