/**
 * The command kit every `stackwright` subcommand is built with: `--help` from the declaration,
 * flags parsed into a typed request (args.ts: each flag's type reads its text once, here, at the
 * edge), a context handed in (context.ts: `io`, `env`, `clock`; nothing read from the process),
 * and every failure reported and mapped to an exit code by the one table in exit-codes.ts. A
 * command only declares itself and says what to do:
 *
 *   export const fooCommand = defineCommand({
 *     name: "foo", args: ["FILE"], summary: "...",
 *     flags: { limit: flag.int("N: ...", { min: 1, max: 100, default: 20 }), ...targetFlags },
 *     async run({ flags, positional }, { io, env }) { ...; return EXIT_CODES.ok; },
 *   });
 *
 * then gets one line in main.ts's table. Throw a CliError (or UsageError) for anything the user
 * must change; the kit prints its message alone, in one line, never a stack trace. A test runs a
 * command in-process with a context of its own, or only its parsing (`command.parse(argv)`), as
 * `gh`'s `NewCmdX(f, runF)` lets a test check flags without running the command.
 */
import { describeFlags, parseFlags, type FlagSet, type ParsedRequest } from "./args";
import { processContext, type CommandContext } from "./context";
import { reportError, UsageError } from "./exit-codes";
import { commandLine } from "../../project/invocation";

export type { CommandContext } from "./context";

export interface CommandDefinition<S extends FlagSet> {
  readonly name: string;
  /** Positional arguments, as shown in the usage line; a last one ending in `...` repeats. */
  readonly args?: readonly string[];
  /** What the command does, for `--help` (a few sentences). */
  readonly summary: string;
  readonly flags: S;
  /** Returns the exit code (EXIT_CODES); throws for a failure the kit reports. */
  run(request: ParsedRequest<S>, context: CommandContext): Promise<number>;
}

/**
 * A runnable command: argv (after the command name) and a context in, exit code out. Never
 * throws. Without a context it runs with the process's ({@link processContext}).
 */
export type Command = (argv: readonly string[], context?: CommandContext) => Promise<number>;

/** A command built by {@link defineCommand}: runnable, and its parsing alone for tests. */
export interface DefinedCommand<S extends FlagSet> extends Command {
  readonly definition: CommandDefinition<S>;
  /** The typed request of `argv`, or the UsageError a run would report: no body runs. */
  parse(argv: readonly string[]): ParsedRequest<S>;
}

/** The `--help` text of a command. */
export function helpText<S extends FlagSet>(def: Omit<CommandDefinition<S>, "run">): string {
  const args = (def.args ?? []).map((a) => (a.endsWith("...") ? `[${a.slice(0, -3)} ...]` : `[${a}]`));
  const flags = Object.keys(def.flags).length === 0 ? "" : `\n\nflags:\n${describeFlags(def.flags)}`;
  return `usage: ${commandLine([def.name, ...args].join(" "))}${flags === "" ? "" : " [flags]"}\n\n${def.summary}${flags}`;
}

/** True when the user asked for help (before any `--` that ends the flags). */
export function wantsHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf("--");
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === "--help" || a === "-h");
}

export function defineCommand<S extends FlagSet>(def: CommandDefinition<S>): DefinedCommand<S> {
  const parse = (argv: readonly string[]) => parseFlags(def.name, argv, def.flags, def.args ?? []);
  const command: Command = async (argv, context = processContext()) => {
    if (wantsHelp(argv)) {
      context.io.say(helpText(def));
      return 0;
    }
    try {
      return await def.run(parse(argv), context);
    } catch (err) {
      return reportError(def.name, err, context.io);
    }
  };
  return Object.assign(command, { definition: def, parse });
}

/**
 * A command with subcommands (`notify test`, `snapshot download`): dispatches on the first
 * argument; a missing or unknown one is a usage error in one line that names the ones there are.
 */
export function groupCommand(
  name: string,
  subcommands: Readonly<Record<string, Command>>,
  usage: string,
): Command {
  return (argv, context = processContext()) => {
    const [sub, ...rest] = argv;
    const chosen =
      sub === undefined ? undefined : Object.hasOwn(subcommands, sub) ? subcommands[sub] : undefined;
    if (chosen !== undefined) return chosen(rest, context);
    const text = `usage: ${commandLine(usage)}   (${commandLine(`${name} ${Object.keys(subcommands)[0] ?? ""} --help`)})`;
    if (sub === "--help" || sub === "-h") {
      context.io.say(text);
      return Promise.resolve(0);
    }
    const code = reportError(
      name,
      new UsageError(
        sub === undefined
          ? `stackwright ${name}: a subcommand is missing (${Object.keys(subcommands).join(", ")}); ${text}`
          : `stackwright ${name}: unknown subcommand '${sub}' (known: ${Object.keys(subcommands).join(", ")}); ${text}`,
      ),
      context.io,
      false,
    );
    return Promise.resolve(code);
  };
}
