/**
 * A small, strict flag parser for the `stackwright` subcommands: `--name value`, `--name=value`
 * and boolean `--flag`. Unknown flags and missing values are errors that list what is allowed.
 * Commands do not call it themselves: the command kit (command.ts) does, before `run`.
 */
import { UsageError } from "./exit-codes";

export { UsageError };

export type FlagSpec = Record<string, { readonly type: "string" | "boolean"; readonly help: string }>;

export type ParsedFlags<S extends FlagSpec> = {
  -readonly [K in keyof S]?: S[K]["type"] extends "boolean" ? boolean : string;
};

/**
 * Parses `argv` against `spec`; returns the flags and the positional arguments. `positionals`
 * names the arguments the command takes (none by default); more than that is a usage error. A
 * last name ending in `...` (`API_STACK...`) takes any number.
 */
export function parseFlags<S extends FlagSpec>(
  command: string,
  argv: readonly string[],
  spec: S,
  positionals: readonly string[] = [],
): { flags: ParsedFlags<S>; positional: string[] } {
  const flags: Record<string, string | boolean> = {};
  const positional: string[] = [];
  const allowed = () =>
    Object.keys(spec)
      .map((k) => `--${k}`)
      .join(", ") || "none";
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--") {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith("--")) {
      if (arg.startsWith("-") && arg !== "-") {
        throw new UsageError(`stackwright ${command}: unknown flag '${arg}'. Allowed flags: ${allowed()}`);
      }
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const def = spec[name];
    if (def === undefined) {
      throw new UsageError(`stackwright ${command}: unknown flag '--${name}'. Allowed flags: ${allowed()}`);
    }
    if (def.type === "boolean") {
      if (eq !== -1) {
        const value = arg.slice(eq + 1);
        if (value !== "true" && value !== "false") {
          throw new UsageError(`stackwright ${command}: --${name} takes no value other than true or false`);
        }
        flags[name] = value === "true";
      } else {
        flags[name] = true;
      }
      continue;
    }
    const value = eq !== -1 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || (eq === -1 && value.startsWith("--"))) {
      throw new UsageError(`stackwright ${command}: --${name} needs a value (${def.help})`);
    }
    flags[name] = value;
  }
  const variadic = positionals.at(-1)?.endsWith("...") === true;
  if (!variadic && positional.length > positionals.length) {
    throw new UsageError(
      positionals.length === 0
        ? `stackwright ${command} takes no arguments: ${positional.join(" ")}`
        : `stackwright ${command} takes at most ${positionals.join(" ")}, not: ${positional.join(" ")}`,
    );
  }
  return { flags: flags as ParsedFlags<S>, positional };
}

/** One line per flag, for `--help`. */
export function describeFlags(spec: FlagSpec): string {
  return Object.entries(spec)
    .map(([name, def]) => `  --${name}${def.type === "string" ? " <value>" : ""}\n      ${def.help}`)
    .join("\n");
}
