/**
 * Flags of the `stackwright` subcommands: `--name value`, `--name=value` and boolean `--flag`
 * (or `--flag=true|false`). Node's own `util.parseArgs` splits the command line into tokens (it
 * knows `--`, `=` values and which flags take a value); this file turns its tokens into our
 * one-line usage errors, which list what is allowed. Commands do not call it themselves: the
 * command kit (command.ts) does, before `run`.
 */
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";
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
  const allowed = () =>
    Object.keys(spec)
      .map((k) => `--${k}`)
      .join(", ") || "none";
  const options: ParseArgsOptionsConfig = {};
  for (const [name, def] of Object.entries(spec)) options[name] = { type: def.type };
  // Not strict: parseArgs's own errors are not ours (they name no command and list nothing), so
  // every token is checked below instead.
  const { tokens } = parseArgs({
    args: [...argv],
    options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const flags: Record<string, string | boolean> = {};
  const positional: string[] = [];
  for (const token of tokens) {
    if (token.kind === "positional") {
      positional.push(token.value);
      continue;
    }
    if (token.kind === "option-terminator") continue;
    const def =
      Object.hasOwn(spec, token.name) && token.rawName.startsWith("--") ? spec[token.name] : undefined;
    if (def === undefined) {
      throw new UsageError(
        `stackwright ${command}: unknown flag '${token.rawName}'. Allowed flags: ${allowed()}`,
      );
    }
    if (def.type === "boolean") {
      if (token.value !== undefined && token.value !== "true" && token.value !== "false") {
        throw new UsageError(
          `stackwright ${command}: --${token.name} takes no value other than true or false`,
        );
      }
      flags[token.name] = token.value !== "false";
      continue;
    }
    if (token.value === undefined || (!token.inlineValue && token.value.startsWith("--"))) {
      throw new UsageError(`stackwright ${command}: --${token.name} needs a value (${def.help})`);
    }
    flags[token.name] = token.value;
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
