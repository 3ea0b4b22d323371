/**
 * One engine run of one per-file stack: THE place where the engine runs for a stack, so that
 * everything that wraps a run is one call here: the fingerprint shortcut (shortcut.ts) before
 * anything starts, then the lock guard (state/lock-guard.ts, for the operations that take the
 * lock) and the change-window gate (../gates/windows.ts) around `engine()`. It never throws: a
 * failure becomes the stack's outcome, so one stack never stops the others.
 */
import * as fs from "node:fs";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import type { EngineRunOptions } from "../engine/run";
import { exitCodeOf, describeError, EXIT_CODES } from "../kit/exit-codes";
import { lastUpUnfinished, markUpFinished, markUpStarted, removeConfirmation } from "../state/confirmations";
import { engineErrorFilter } from "../engine/stderr-filter";
import { guardCreates } from "../state/in-flight";
import { withStackLock, type LockPolicy, type LockTarget } from "../state/lock-guard";
import {
  clearResolvedPendingCreates,
  recordCrashedCreates,
  settlePendingCreates,
} from "../state/pending-creates";
import { lockTargetOf } from "../../project/lock-target";
import { gatedEngineRun, quietPlan, type WindowGate } from "../gates/windows";
import { confirmWithoutEngine, readsFile, recordNoChangeRun, type Shortcut, type Verdict } from "./shortcut";
import { engineRunEnv, withPerFileStack, type Target } from "./open-target";

export type Operation = "preview" | "up" | "refresh" | "destroy";

/** One stack of a run: `destroy` when its file was deleted and the run may destroy it. */
export interface StackJob {
  readonly apiStack: string;
  readonly stackName: string;
  readonly destroy: boolean;
  /** The API stack's file in stacks-config/ (none for `--stack` or a deleted file). */
  readonly file?: string;
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
  /** Confirmed without starting the engine (shortcut.ts): nothing to change, nothing written. */
  readonly confirmed?: true;
  /** Why an `up` ran its engine instead of being confirmed without it, in one line. */
  readonly engineReason?: string;
  /** What the run did besides the engine's events that people are told of (src/notify). */
  readonly notices?: RunNotices;
}

/** Stale locks removed and restores recorded with an unknown outcome by a stack's run. */
export interface RunNotices {
  readonly recoveredLocks: { readonly holder: string; readonly reason: string }[];
  readonly unknownRestores: { readonly name: string; readonly why: string }[];
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
  /** The fingerprint shortcut, for an `up` without `--refresh` (records only, with `--full`). */
  readonly shortcut?: Shortcut;
  /** Why an `up` with no shortcut runs its engine (`--stack`, `--refresh`, `start`), for the table. */
  readonly whyEngine?: string;
  /** Where Stackwright's own lines go (prefixed by the fan-out when stacks run at once). */
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Where the lock guard's lines go (a stale lock removed, a wait), as they are: they name their stack. */
  readonly log: (line: string) => void;
  /** The engine's raw display (`--engine-display`); none: it is not shown. */
  readonly engineOutput?: (text: string) => void;
  /** Each event of the stack's engine runs as it comes (the display); quiet plans excepted. */
  readonly onEvent?: (event: EngineEvent) => void;
}

function changesOf(summary: Readonly<Record<string, number | undefined>>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(summary).filter((e): e is [string, number] => e[0] !== "same" && (e[1] ?? 0) > 0),
  );
}

/** The change counts of a run's summary event (none: nothing reported, nothing proven). */
function summaryOf(events: readonly EngineEvent[]): Record<string, number | undefined> {
  const summary = events.find((e) => e.summaryEvent !== undefined)?.summaryEvent;
  return summary === undefined ? { unknown: 1 } : summary.resourceChanges;
}

/**
 * Before an engine run that may change the stack: its confirmation record goes first (so a run
 * killed from here on leaves none), and so does an old report of the program's reads.
 */
async function beforeEngine(where: LockTarget, shortcut: Shortcut | undefined): Promise<void> {
  await removeConfirmation(where.store, where.project, where.stack);
  if (shortcut !== undefined) fs.rmSync(readsFile(shortcut, where.stack), { force: true });
}

/** Runs `options.operation` on the job's stack and reports how it went. */
export async function runStack(job: StackJob, options: RunOptions): Promise<StackOutcome> {
  const started = performance.now();
  const events: EngineEvent[] = [];
  const errors = engineErrorFilter(options.stderr);
  const notices: RunNotices = { recoveredLocks: [], unknownRestores: [] };
  const unknown = (why: string) => (settled: readonly { type: string; name: string }[]) => {
    for (const s of settled)
      if (s.type === "SnapshotRestore") notices.unknownRestores.push({ name: s.name, why });
  };
  let engineReason: string | undefined;
  const outcome = (exitCode: number, changes: Record<string, number>, failure?: string): StackOutcome => ({
    job,
    exitCode,
    changes,
    durationMs: performance.now() - started,
    events,
    ...(failure === undefined ? {} : { failure }),
    notices,
    ...(engineReason === undefined ? {} : { engineReason }),
  });
  try {
    const { target } = options;
    const where =
      options.operation === "preview"
        ? undefined
        : lockTargetOf(target.projectDir, job.stackName, engineRunEnv(target));
    const shortcut = options.operation === "up" && !job.destroy ? options.shortcut : undefined;
    const inputs = shortcut?.inputs(job.stackName, job.file);
    if (options.operation === "up" && !job.destroy && shortcut === undefined) {
      engineReason = options.whyEngine;
    } else if (shortcut !== undefined && !shortcut.confirm) engineReason = "--full runs every engine";
    else if (shortcut !== undefined && !target.stacks.has(job.stackName)) engineReason = "a new stack";
    if (
      shortcut?.confirm === true &&
      inputs !== undefined &&
      where !== undefined &&
      (await target.stacks.has(job.stackName))
    ) {
      // Reads only; any failure to prove runs the engine.
      const verdict = await confirmWithoutEngine(where, inputs, shortcut).catch(
        (err: unknown): Verdict => ({
          confirmed: false,
          reason: `cannot read: ${err instanceof Error ? err.message : String(err)}`,
          record: true,
        }),
      );
      if (verdict.confirmed) return { ...outcome(EXIT_CODES.ok, {}), confirmed: true };
      engineReason = verdict.reason;
      // Why a stack confirmed before needs its engine now (nothing to say without a record).
      if (verdict.record) options.stdout(`engine needed: ${verdict.reason}\n`);
    }
    const changes = await withPerFileStack(target, job.stackName, options.log, async (stack) => {
      const engineOptions: EngineRunOptions = {
        ...(target.configFile === undefined ? {} : { configFile: target.configFile }),
        onOutput: options.engineOutput ?? (() => {}),
        onError: errors.write,
        onEvent: (event: EngineEvent) => {
          events.push(event);
          options.onEvent?.(event);
        },
        signal: options.signal,
        refresh: options.refresh,
        ...(options.parallel === undefined ? {} : { parallel: options.parallel }),
      };
      const op = job.destroy ? "destroy" : options.operation;
      // The engine run. Everything that wraps it goes around this one function.
      const engine = async (): Promise<Record<string, number>> => {
        options.signal.throwIfAborted();
        if (where !== undefined) await beforeEngine(where, shortcut);
        if (options.operation === "preview") {
          if (op === "destroy")
            return changesOf(await stack.run("destroy", { ...engineOptions, previewOnly: true }));
          return changesOf(await stack.run("preview", engineOptions));
        }
        if (op === "up") {
          // The last up was killed or failed: this one ends by proving the steady state.
          const recovering =
            where !== undefined && (await lastUpUnfinished(where.store, where.project, where.stack));
          if (where !== undefined) await markUpStarted(where.store, where.project, where.stack);
          // A restore left in flight by a killed run, or by a provider process that died in this
          // one, is recorded with an unknown outcome, never run again (state/pending-creates.ts).
          const note = (line: string) => options.stderr(`${line}\n`);
          if (where !== undefined)
            unknown("an earlier run stopped")(await settlePendingCreates(stack, where, note));
          // With the shared provider host, each such create is recorded in flight before it
          // starts, for the kills the engine's pending operation does not cover (state/in-flight.ts).
          const guard =
            where !== undefined && target.hosts !== undefined ? await guardCreates(where, note) : undefined;
          let made: Record<string, number>;
          try {
            made = changesOf(
              await stack.run("up", guard === undefined ? engineOptions : { ...engineOptions, guard }),
            );
          } catch (err) {
            await recordCrashedCreates(stack, job.stackName, events, note)
              .then(unknown("its provider process died"))
              .catch((cause: unknown) =>
                note(`stackwright: ${job.stackName}: could not record a create in flight: ${String(cause)}`),
              );
            throw err;
          }
          if (where === undefined) return made;
          // Pending creates of earlier runs that this run resolved (it recorded their resources).
          // The up succeeded: a failure here only leaves them for the next run, and says so.
          await clearResolvedPendingCreates(stack, where, note).catch((err: unknown) =>
            note(
              `stackwright: ${job.stackName}: pending creates not cleared (${describeError("up", err) ?? String(err)})`,
            ),
          );
          if (shortcut !== undefined && inputs !== undefined) {
            const proved = async (run: { changes: Record<string, number>; events: readonly EngineEvent[] }) =>
              recordNoChangeRun(where, inputs, shortcut, run).catch((err: unknown) => {
                options.stderr(
                  `stackwright: ${job.stackName}: no confirmation recorded (${describeError("up", err)})\n`,
                );
                return false;
              });
            if (!(await proved({ changes: made, events })) && recovering) {
              // After a kill or a failure, the run that recovered proves the steady state with a
              // quiet preview, so that the next up is confirmed without the engine.
              // The up succeeded: a preview that fails proves nothing and fails nothing.
              const planned = await beforeEngine(where, shortcut)
                .then(() => quietPlan(stack, false, engineOptions))
                .catch((err: unknown) => {
                  note(
                    `stackwright: ${job.stackName}: the steady state is not proven (${describeError("preview", err) ?? String(err)})`,
                  );
                  return undefined;
                });
              if (
                planned !== undefined &&
                (await proved({ changes: changesOf(summaryOf(planned)), events: planned }))
              ) {
                note(
                  `stackwright: ${job.stackName}: recovered; the state is steady (a preview changes nothing)`,
                );
              }
            }
          }
          await markUpFinished(where.store, where.project, where.stack);
          return made;
        }
        const made = changesOf(await stack.run(op, engineOptions));
        // A refresh has read every recorded resource: pending creates of those are resolved.
        if (op === "refresh" && where !== undefined) {
          const note = (line: string) => options.stderr(`${line}\n`);
          await clearResolvedPendingCreates(stack, where, note).catch((err: unknown) =>
            note(
              `stackwright: ${job.stackName}: pending creates not cleared (${describeError("refresh", err) ?? String(err)})`,
            ),
          );
        }
        return made;
      };
      // Refuses the run when it would change an environment whose change windows are closed.
      const gated = () =>
        gatedEngineRun(
          {
            gate: options.windows,
            stackName: job.stackName,
            operation: options.operation === "preview" ? "preview" : op,
            events,
            plan: () => quietPlan(stack, op === "destroy", engineOptions),
            say: options.stdout,
          },
          engine,
        );
      return options.operation === "preview"
        ? gated()
        : withStackLock(
            where ?? lockTargetOf(target.projectDir, job.stackName, engineRunEnv(target)),
            options.lockPolicy,
            gated,
            {
              log: options.log,
              onRecovered: (holder, reason) => void notices.recoveredLocks.push({ holder, reason }),
              signal: options.signal,
            },
          );
    });
    return outcome(EXIT_CODES.ok, changes);
  } catch (caught) {
    // A stop ends the engine with an error of its own ("update canceled"): the stop is the cause.
    const err: unknown = options.signal.aborted ? options.signal.reason : caught;
    return outcome(exitCodeOf(err), {}, describeError(options.operation, err, events));
  } finally {
    errors.flush();
  }
}
