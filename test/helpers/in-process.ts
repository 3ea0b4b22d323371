/**
 * Runs a `stackwright` command in this process, as `gh`'s tests run a command through its
 * options struct: its flag parsing and its body, with streams, variables and a clock of the
 * test's own, no process spawned. What it printed comes back as text.
 *
 * The end-to-end files run most of their commands this way (`runInProject`): the real engine
 * still runs under them, in processes of its own, and what a separate `stackwright` process
 * adds (bin/stackwright.js, exit statuses, signals, a terminal, the installed package) has files
 * of its own that spawn it (exit-codes, interrupt, the kills, display, proxy-tls,
 * installed-package, the docs; CONTRIBUTING.md, "Fixtures", lists when). A spawned command spent
 * 0.4 to 1 CPU-second loading Node and its modules; the same command here, once the worker has
 * loaded them, 0.01 to 0.07 when it runs no engine.
 */
import { createRequire } from "node:module";
import * as path from "node:path";
import type { Command, CommandContext } from "../../src/cli/kit/command";
import { clockOf, ioOf, type Stream } from "../../src/cli/kit/context";
import type { main } from "../../src/cli/main";
import type { Finished } from "./stackwright-process";

export interface InProcessRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** stderr's lines, without the empty one after the last newline. */
  readonly errorLines: readonly string[];
}

function memoryStream(isTTY: boolean, columns: number | undefined): Stream & { text(): string } {
  let text = "";
  return {
    isTTY,
    columns,
    write: (chunk) => void (text += chunk),
    text: () => text,
  };
}

/**
 * A context that keeps what the command prints; `env` is the command's whole environment.
 * `columns` is the streams' width: 100 unless given, `undefined` for a pipe's (none). The clock
 * is `now`, else the one `env` gives a process (its test hook, else the time).
 */
export function memoryContext(
  options: {
    env?: Record<string, string | undefined>;
    now?: Date;
    tty?: boolean;
    columns?: number | undefined;
  } = {},
): CommandContext & { out(): string; err(): string } {
  const columns = "columns" in options ? options.columns : 100;
  const stdout = memoryStream(options.tty === true, columns);
  const stderr = memoryStream(options.tty === true, columns);
  const env = options.env ?? {};
  const now = options.now;
  return {
    io: ioOf(stdout, stderr),
    env,
    clock: now === undefined ? clockOf(env) : () => now,
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

// One command at a time in this process: a command finds its project from the working directory,
// which is the process's.
let previous: Promise<unknown> = Promise.resolve();

type Main = typeof main;
/** The build's `main()` of each checkout run so far, loaded once per checkout. */
const builtMains = new Map<string, Main>();

/** `main()` of the build in `dir` (dist/src/cli/main.js), loaded by Node as the command loads it. */
function builtMain(dir: string): Main {
  let loaded = builtMains.get(dir);
  if (loaded === undefined) {
    const file = path.join(dir, "dist", "src", "cli", "main.js");
    loaded = (createRequire(__filename)(file) as { main: Main }).main;
    builtMains.set(dir, loaded);
  }
  return loaded;
}

/**
 * Runs `stackwright ARGS` as `node TOOL/bin/stackwright.js ARGS` would, started in `dir` with the
 * environment `env` and its output going to pipes, in this process (see the top of this file):
 * the build of `tool` (its dist/, as bin/stackwright.js loads it, so that the tool root, the
 * hosted program and the provider host are that checkout's, as in a process of its own), with
 * `dir` as the working directory meanwhile and a context of `env`. `tool` is `dir` unless given
 * (a scratch copy of the project is its own tool). Resolves as `runStackwright` does, stdout then
 * stderr; commands run one after the other.
 */
export function runInProject(
  dir: string,
  args: readonly string[],
  env: Record<string, string | undefined>,
  tool: string = dir,
): Promise<Finished> {
  const run = previous.then(async (): Promise<Finished> => {
    const before = process.cwd();
    process.chdir(dir);
    try {
      const context = memoryContext({ env, columns: undefined });
      const status = await builtMain(tool)([...args], context);
      return { status, out: `${context.out()}${context.err()}` };
    } finally {
      process.chdir(before);
    }
  });
  previous = run.catch(() => undefined);
  return run;
}
