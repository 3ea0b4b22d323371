/**
 * SIGINT and SIGTERM during an engine run (a cancelled CI job, Ctrl-C): the first stops the
 * engine gracefully (Pulumi's own cancel: no new resource operation starts, the ones in flight
 * finish or reach their timeout, the checkpoint is written and the lock released); a second one
 * aborts at once (the lock may stay behind; the next run recovers it, see lock-guard.ts).
 *
 * The engine gets exactly one signal per signal we get. A Ctrl-C typed in a terminal reaches
 * every process of the foreground group, the engine included, so a SIGINT while stdin is a
 * terminal is not passed on again (Pulumi would count it as the second and terminate).
 */
import { execFileSync } from "node:child_process";
import { CliError } from "../kit/exit-codes";

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
      `stopped by ${signalName}: the operations in flight were finished and the state saved; run it again to carry on.`,
    );
    this.name = "InterruptedError";
  }
}

export interface InterruptOptions {
  readonly log?: (line: string) => void;
  /** Whether a SIGINT came from a terminal (and so reached the engine too). */
  readonly fromTerminal?: (signal: NodeJS.Signals) => boolean;
  /** Sends `signal` to the engine processes this process started. */
  readonly signalEngines?: (signal: NodeJS.Signals) => void;
}

/** Installs the handlers for one command's run. */
export function handleInterrupts(options: InterruptOptions = {}): Interruption {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const fromTerminal =
    options.fromTerminal ?? ((s: NodeJS.Signals) => s === "SIGINT" && process.stdin.isTTY === true);
  const signalEngines = options.signalEngines ?? signalChildren;
  const controller = new AbortController();
  let first: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (first === undefined) {
      first = signal;
      log(
        `\nstackwright: ${signal} received: stopping gracefully. Resource operations in flight finish ` +
          `or reach their timeout, then the state is saved and the stack's lock released. ` +
          `Send ${signal} again to abort at once.`,
      );
      if (!fromTerminal(signal)) controller.abort(new InterruptedError(signal));
      return;
    }
    log(`\nstackwright: ${signal} received again: aborting now. The next run recovers the lock.`);
    if (!fromTerminal(signal)) signalEngines("SIGTERM");
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    signal: controller.signal,
    received: () => first,
    dispose() {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}

/** Sends `signal` to this process's direct children (the `pulumi` CLI processes). */
function signalChildren(signal: NodeJS.Signals): void {
  let table: string;
  try {
    table = execFileSync("ps", ["-A", "-o", "pid=,ppid="], { encoding: "utf8", timeout: 5_000 });
  } catch {
    return;
  }
  for (const line of table.split("\n")) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number);
    if (pid === undefined || ppid !== process.pid) continue;
    try {
      process.kill(pid, signal);
    } catch {
      // Exited meanwhile.
    }
  }
}
