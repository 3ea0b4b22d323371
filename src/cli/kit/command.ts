/**
 * The command kit every `stackwright` subcommand is built with: `--help` from the declaration,
 * strict flag parsing (args.ts), and every failure reported and mapped to an exit code by the
 * one table in exit-codes.ts. A command only declares itself and says what to do:
 *
 *   export const fooCommand = defineCommand({
 *     name: "foo", args: ["FILE"], summary: "...", flags: { ... },
 *     async run({ flags, positional }) { ...; return EXIT_CODES.ok; },
 *   });
 *
 * then gets one line in main.ts's table. Throw a CliError (or UsageError) for anything the user
 * must change; the kit prints its message alone, never a stack trace.
 */
import { describeFlags, parseFlags, type FlagSpec, type ParsedFlags } from "./args";
import { reportError } from "./exit-codes";
import { commandLine } from "./invocation";

export interface CommandInput<S extends FlagSpec> {
  readonly flags: ParsedFlags<S>;
  readonly positional: string[];
}

export interface CommandDefinition<S extends FlagSpec> {
  readonly name: string;
  /** Positional arguments, as shown in the usage line; a last one ending in `...` repeats. */
  readonly args?: readonly string[];
  /** What the command does, for `--help` (a few sentences). */
  readonly summary: string;
  readonly flags: S;
  /** Returns the exit code (EXIT_CODES); throws for a failure the kit reports. */
  run(input: CommandInput<S>): Promise<number>;
}

/** A runnable command: argv (after the command name) in, exit code out. Never throws. */
export type Command = (argv: string[]) => Promise<number>;

/** The `--help` text of a command. */
export function helpText<S extends FlagSpec>(def: CommandDefinition<S>): string {
  const args = (def.args ?? []).map((a) => (a.endsWith("...") ? `[${a.slice(0, -3)} ...]` : `[${a}]`));
  const flags = Object.keys(def.flags).length === 0 ? "" : `\n\nflags:\n${describeFlags(def.flags)}`;
  return `usage: ${commandLine([def.name, ...args].join(" "))}${flags === "" ? "" : " [flags]"}\n\n${def.summary}${flags}`;
}

/** True when the user asked for help (before any `--` that ends the flags). */
function wantsHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf("--");
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === "--help" || a === "-h");
}

export function defineCommand<S extends FlagSpec>(def: CommandDefinition<S>): Command {
  return async (argv) => {
    if (wantsHelp(argv)) {
      console.log(helpText(def));
      return 0;
    }
    try {
      const { flags, positional } = parseFlags(def.name, argv, def.flags, def.args ?? []);
      return await def.run({ flags, positional });
    } catch (err) {
      return reportError(def.name, err);
    }
  };
}
