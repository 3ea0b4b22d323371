/**
 * Flags of the `stackwright` subcommands, declared once with their type and turned into a typed
 * request before a command runs. A flag's type says how its text becomes a value (a whole number
 * within bounds, a duration, one of some words, a `FILE|-` output, a repeated value) and what it
 * is when absent (its one default), so a command reads `request.flags.limit` as a number and
 * parses nothing itself. Node's own `util.parseArgs` splits the command line into tokens (it
 * knows `--`, `=` values and which flags take a value); this file turns its tokens into values,
 * and every mistake into one usage line that names the flag and its rule. Commands do not call
 * it themselves: the command kit (command.ts) does, before `run`.
 */
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";
import { parseDuration } from "../../api";
import { UsageError } from "./exit-codes";

export { UsageError };

/**
 * What a flag's text breaks, said after the flag's name: `--limit must be a whole number from 1
 * to 10000, not '0'`. Thrown by a flag's reader; the kit adds the command and the flag.
 */
export class FlagRuleError extends Error {
  constructor(readonly rule: string) {
    super(rule);
    this.name = "FlagRuleError";
  }
}

/** One flag: how it reads, for `--help` and the parser, and the value it gives the command. */
export interface Flag<T> {
  readonly help: string;
  /** A switch (`--full`, `--full=false`) rather than a flag that takes a value. */
  readonly switch: boolean;
  /** The values given, in order (empty when absent; a switch's are "true"/"false"); throws FlagRuleError. */
  read(values: readonly string[]): T;
}

/** A command's flags, by name as typed after `--`. */
export type FlagSet = Readonly<Record<string, Flag<unknown>>>;

/** The values of a command's flags, typed from their declaration. */
export type FlagValues<S extends FlagSet> = {
  readonly [K in keyof S]: S[K] extends Flag<infer T> ? T : never;
};

/** What the parser hands a command: its flags' values, its positional arguments, and which flags were given. */
export interface ParsedRequest<S extends FlagSet> {
  readonly flags: FlagValues<S>;
  readonly positional: readonly string[];
  /** The flags typed on the command line (a flag with a default reads the same whether given or not). */
  readonly given: ReadonlySet<keyof S & string>;
}

const last = (values: readonly string[]): string | undefined => values.at(-1);

/** `text` as a whole number from `min` to `max`, or undefined: the one reader of bounded counts. */
export function wholeNumber(text: string, min: number, max: number): number | undefined {
  if (!/^\d{1,9}$/.test(text)) return undefined;
  const n = Number(text);
  return n >= min && n <= max ? n : undefined;
}

/** The rule of a bounded whole number, as its errors say it. */
export function wholeNumberRule(min: number, max: number, text: string): string {
  return `must be a whole number from ${min} to ${max}, not '${text}'`;
}

/** A value read from the flag's text by `parse`, which throws FlagRuleError with the rule it breaks. */
function valueFlag<T>(help: string, parse: (text: string) => T): Flag<T | undefined> {
  return {
    help,
    switch: false,
    read: (values) => {
      const text = last(values);
      return text === undefined ? undefined : parse(text);
    },
  };
}

/** Gives `fallback` (computed when needed) when the flag is absent: the flag's one default. */
function withDefault<T>(flag: Flag<T | undefined>, fallback: () => T): Flag<T> {
  return { help: flag.help, switch: flag.switch, read: (values) => flag.read(values) ?? fallback() };
}

/** Where a `FILE|-` flag sends its document: stdout, or a file. */
export type Output = { readonly to: "stdout" } | { readonly to: "file"; readonly path: string };

/** The flag types. Each reads its text once, at the edge, into the value the command uses. */
export const flag = {
  /** `--name`, `--name=true|false`; false when absent. */
  switch(help: string): Flag<boolean> {
    return {
      help,
      switch: true,
      read: (values) => {
        const text = last(values);
        if (text === undefined) return false;
        if (text !== "true" && text !== "false")
          throw new FlagRuleError("takes no value other than true or false");
        return text === "true";
      },
    };
  },

  /** Any text, not empty; undefined when absent (or `fallback()` when given). */
  string: ((help: string, fallback?: () => string) => {
    const plain = valueFlag(help, (text) => {
      if (text === "") throw new FlagRuleError("needs a value that is not empty");
      return text;
    });
    return fallback === undefined ? plain : withDefault(plain, fallback);
  }) as {
    (help: string): Flag<string | undefined>;
    (help: string, fallback: () => string): Flag<string>;
  },

  /** A whole number from `min` to `max`; undefined when absent, or `default` when declared. */
  int: ((help: string, bounds: { min: number; max: number; default?: number }) => {
    const plain = valueFlag(help, (text) => {
      const n = wholeNumber(text, bounds.min, bounds.max);
      if (n === undefined) throw new FlagRuleError(wholeNumberRule(bounds.min, bounds.max, text));
      return n;
    });
    const fallback = bounds.default;
    return fallback === undefined ? plain : withDefault(plain, () => fallback);
  }) as {
    (help: string, bounds: { min: number; max: number; default: number }): Flag<number>;
    (help: string, bounds: { min: number; max: number }): Flag<number | undefined>;
  },

  /** A duration (30m, 1h30m), in milliseconds; undefined when absent. */
  duration(help: string): Flag<number | undefined> {
    return valueFlag(help, (text) => {
      const parsed = parseDuration(text);
      if (!parsed.ok) throw new FlagRuleError(parsed.message);
      return parsed.seconds * 1000;
    });
  },

  /** One of `choices`; `fallback` when absent. */
  oneOf<const C extends string>(choices: readonly C[], help: string, fallback: C): Flag<C> {
    const plain = valueFlag(help, (text) => {
      const known = choices.find((c) => c === text);
      if (known === undefined) throw new FlagRuleError(`must be one of ${choices.join(", ")}, not '${text}'`);
      return known;
    });
    return withDefault(plain, () => fallback);
  },

  /** `FILE` or `-` (stdout); undefined when absent. */
  output(help: string): Flag<Output | undefined> {
    return valueFlag(help, (text): Output => {
      if (text === "") throw new FlagRuleError("needs FILE, or - for stdout");
      return text === "-" ? { to: "stdout" } : { to: "file", path: text };
    });
  },

  /** A flag given any number of times (`--sink a --sink b`); every value in order, empty when absent. */
  list(help: string): Flag<readonly string[]> {
    return {
      help,
      switch: false,
      read: (values) => {
        if (values.some((v) => v === "")) throw new FlagRuleError("needs a value that is not empty");
        return [...values];
      },
    };
  },

  /** `inner`, which must be given: absent, it is a mistake that says so. */
  required<T>(inner: Flag<T | undefined>): Flag<T> {
    return {
      help: inner.help,
      switch: inner.switch,
      read: (values) => {
        const value = values.length === 0 ? undefined : inner.read(values);
        if (value === undefined) throw new FlagRuleError("is required");
        return value;
      },
    };
  },

  /** A value of a type of its own (`--shard I/N`, a name, an id): `parse` throws FlagRuleError. */
  parsed<T>(help: string, parse: (text: string) => T): Flag<T | undefined> {
    return valueFlag(help, parse);
  },

  /** As {@link flag.parsed}, with `fallback` when absent: the flag's one default. */
  parsedOr<T>(help: string, parse: (text: string) => T, fallback: () => T): Flag<T> {
    return withDefault(valueFlag(help, parse), fallback);
  },
} as const;

/** The flag's name as the user types it, then its rule: one line. */
function flagProblem(command: string, name: string, error: unknown): UsageError {
  if (error instanceof FlagRuleError)
    return new UsageError(`stackwright ${command}: --${name} ${error.rule}`);
  // A reader may refuse with a kit error of its own (its message names the flag already).
  if (error instanceof UsageError) return error;
  throw error;
}

/**
 * Parses `argv` against `spec` into the typed request. `positionals` names the arguments the
 * command takes (none by default); more than that is a usage error. A last name ending in `...`
 * (`API_STACK...`) takes any number.
 */
export function parseFlags<S extends FlagSet>(
  command: string,
  argv: readonly string[],
  spec: S,
  positionals: readonly string[] = [],
): ParsedRequest<S> {
  const allowed = () =>
    Object.keys(spec)
      .map((k) => `--${k}`)
      .join(", ") || "none";
  const options: ParseArgsOptionsConfig = {};
  for (const [name, def] of Object.entries(spec)) options[name] = { type: def.switch ? "boolean" : "string" };
  // Not strict: parseArgs's own errors are not ours (they name no command and list nothing), so
  // every token is checked below instead.
  const { tokens } = parseArgs({
    args: [...argv],
    options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const texts = new Map<string, string[]>();
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
    let text: string;
    if (def.switch) text = token.value ?? "true";
    else if (token.value === undefined || (!token.inlineValue && token.value.startsWith("--"))) {
      throw new UsageError(`stackwright ${command}: --${token.name} needs a value (${def.help})`);
    } else text = token.value;
    texts.set(token.name, [...(texts.get(token.name) ?? []), text]);
  }
  const variadic = positionals.at(-1)?.endsWith("...") === true;
  if (!variadic && positional.length > positionals.length) {
    throw new UsageError(
      positionals.length === 0
        ? `stackwright ${command} takes no arguments: ${positional.join(" ")}`
        : `stackwright ${command} takes at most ${positionals.join(" ")}, not: ${positional.join(" ")}`,
    );
  }
  const flags: Record<string, unknown> = {};
  for (const [name, def] of Object.entries(spec)) {
    try {
      flags[name] = def.read(texts.get(name) ?? []);
    } catch (error) {
      throw flagProblem(command, name, error);
    }
  }
  return {
    // The values were read by the flags `S` declares, one per name: the type the declaration says.
    flags: flags as FlagValues<S>,
    positional,
    given: new Set([...texts.keys()] as (keyof S & string)[]),
  };
}

/** One line per flag, for `--help`. */
export function describeFlags(spec: FlagSet): string {
  return Object.entries(spec)
    .map(([name, def]) => `  --${name}${def.switch ? "" : " <value>"}\n      ${def.help}`)
    .join("\n");
}
