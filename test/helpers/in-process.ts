/**
 * Runs a `stackwright` command in this process, as `gh`'s tests run a command through its
 * options struct: its flag parsing and its body, with streams, variables and a clock of the
 * test's own, no process spawned. What it printed comes back as text.
 */
import type { Command, CommandContext } from "../../src/cli/kit/command";
import { ioOf, type Stream } from "../../src/cli/kit/context";

export interface InProcessRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** stderr's lines, without the empty one after the last newline. */
  readonly errorLines: readonly string[];
}

function memoryStream(isTTY: boolean): Stream & { text(): string } {
  let text = "";
  return {
    isTTY,
    columns: 100,
    write: (chunk) => void (text += chunk),
    text: () => text,
  };
}

/** A context that keeps what the command prints; `env` is the command's whole environment. */
export function memoryContext(
  options: { env?: Record<string, string | undefined>; now?: Date; tty?: boolean } = {},
): CommandContext & { out(): string; err(): string } {
  const stdout = memoryStream(options.tty === true);
  const stderr = memoryStream(options.tty === true);
  const now = options.now;
  return {
    io: ioOf(stdout, stderr),
    env: options.env ?? {},
    clock: () => now ?? new Date(),
    out: () => stdout.text(),
    err: () => stderr.text(),
  };
}

/** Runs `command` with `argv` in-process; `env` defaults to this process's (for PATH and the like). */
export async function runInProcess(
  command: Command,
  argv: readonly string[],
  options: { env?: Record<string, string | undefined>; now?: Date } = {},
): Promise<InProcessRun> {
  const context = memoryContext({
    env: options.env ?? { ...process.env },
    ...(options.now ? { now: options.now } : {}),
  });
  const code = await command(argv, context);
  const stderr = context.err();
  return {
    code,
    stdout: context.out(),
    stderr,
    errorLines: stderr.split("\n").filter((line, i, all) => !(line === "" && i === all.length - 1)),
  };
}
