/**
 * What a command is handed besides its request: where its output goes (`io`), the environment it
 * reads (`env`) and the instant it judges at (`clock`). A command reads none of them from the
 * process itself, so a test runs it in-process with streams, variables and a time of its own
 * (test/helpers/in-process.ts); `bin/stackwright.js` runs it with the process's ({@link processContext}).
 */
import type { Env } from "../../project/engine-env";
import { clockNow } from "./clock";
import type { Sink } from "./output";

/** A stream a command writes to: a terminal or not, and how wide. */
export interface Stream extends Sink {
  readonly isTTY: boolean;
  readonly columns?: number | undefined;
}

/** A command's output: results on stdout, what it says about them on stderr. */
export interface Io {
  readonly stdout: Stream;
  readonly stderr: Stream;
  /** Prints one line (or several) on stdout. */
  readonly say: (text: string) => void;
  /** Prints one line (or several) on stderr. */
  readonly warn: (text: string) => void;
}

export type { Env } from "../../project/engine-env";

export interface CommandContext {
  readonly io: Io;
  readonly env: Env;
  /** The instant change windows and ages are judged at (clock.ts). */
  readonly clock: () => Date;
}

/** An {@link Io} over two streams. */
export function ioOf(stdout: Stream, stderr: Stream): Io {
  return {
    stdout,
    stderr,
    say: (text) => stdout.write(`${text}\n`),
    warn: (text) => stderr.write(`${text}\n`),
  };
}

/** The clock of `env` (clock.ts: its test hook, else now); a malformed hook is a usage error. */
export function clockOf(env: Env): () => Date {
  return () => clockNow({ ...env });
}

function processStream(stream: NodeJS.WriteStream): Stream {
  return {
    write: (text) => void stream.write(text),
    get isTTY() {
      return stream.isTTY === true;
    },
    get columns() {
      return stream.columns;
    },
  };
}

/** The context of a command run by `bin/stackwright.js`: the process's streams, environment and clock. */
export function processContext(): CommandContext {
  return {
    io: ioOf(processStream(process.stdout), processStream(process.stderr)),
    env: process.env,
    clock: clockOf(process.env),
  };
}
