/**
 * SIGINT and SIGTERM during an engine run (Ctrl-C, a cancelled CI job): the first asks every
 * running engine, once, to stop gracefully (Pulumi's own cancel: no new resource operation
 * starts, the ones in flight finish or reach their bound, the checkpoint is written and the lock
 * released), starts no engine after it, and says what the run waits for; the second stops every
 * engine at once (Pulumi's terminate: the lock may stay behind; the next run recovers it, see
 * lock-guard.ts).
 *
 * Each engine runs in a process group of its own (engine-process.ts), so that a Ctrl-C
 * typed in a terminal, which reaches every process of the foreground group, reaches the engines
 * only through this module: exactly one SIGINT per engine for the first signal and one for the
 * second, whether the signal went to the whole group or to this process alone. Under `npm start` one Ctrl-C
 * reaches this process twice (from the terminal and forwarded by npm), so a repeat of the same
 * signal within {@link SAME_KEYPRESS_MS} counts as the first one.
 */
import { CliError } from "../kit/exit-codes";
import { runningEngines, whatItWaitsFor } from "./engine-process";

/** Two signals of the same name closer than this are one key press delivered twice. */
export const SAME_KEYPRESS_MS = 300;

export interface Interruption {
  /** Aborted at the first signal: pass it to every engine call (`signal` option). */
  readonly signal: AbortSignal;
  /** The first signal received, if any. */
  received(): NodeJS.Signals | undefined;
  /** Removes the handlers (the process's default behaviour comes back). */
  dispose(): void;
}

/** The run was stopped by a signal before or while the engine ran. */
export class InterruptedError extends CliError {
  constructor(readonly signalName: NodeJS.Signals) {
    super(
      "interrupted",
      `stopped by ${signalName}; run it again to carry on (it recovers what the stop left)`,
    );
    this.name = "InterruptedError";
  }
}

export interface InterruptOptions {
  /** Where the lines that say what a stop does go: the command's stderr. */
  readonly log: (line: string) => void;
  readonly now?: () => number;
}

/** Installs the handlers for one command's run. */
export function handleInterrupts(options: InterruptOptions): Interruption {
  const log = options.log;
  const now = options.now ?? (() => performance.now());
  const controller = new AbortController();
  let first: { signal: NodeJS.Signals; at: number } | undefined;
  let stopped = false;
  const again = (signal: NodeJS.Signals) => (signal === "SIGINT" ? "Ctrl-C again" : `${signal} again`);
  const onSignal = (signal: NodeJS.Signals) => {
    if (first === undefined) {
      first = { signal, at: now() };
      // Aborting sends each running engine its one SIGINT (runEngineProcess) and keeps the
      // others from starting.
      const waits = runningEngines().flatMap((engine) => whatItWaitsFor(engine));
      controller.abort(new InterruptedError(signal));
      log(
        `\nstackwright: ${signal} received: stopping gracefully; ` +
          (waits.length === 0 ? "no engine is running and none will start" : waits.join("; ")) +
          `; ${again(signal)} to stop at once`,
      );
      return;
    }
    if (signal === first.signal && now() - first.at < SAME_KEYPRESS_MS) return;
    if (stopped) return;
    stopped = true;
    log(`\nstackwright: ${signal} received again: stopping at once. The next run recovers the lock.`);
    // Pulumi's second SIGINT: terminate.
    for (const engine of runningEngines()) engine.signal("SIGINT");
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    signal: controller.signal,
    received: () => first?.signal,
    dispose() {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}
