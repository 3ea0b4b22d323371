import { basename } from "node:path";
import { type ConfigError, type PathSegment, compareErrors } from "./errors";
import { issuesToFindings } from "./issues";
import { StackFileSchema, type StackConfig } from "./schema";
import { checkStackFile } from "./semantic-checks";
import { type SourceFile, parseSourceFile, toConfigError } from "./source-file";

/** The desired state of every stack, as the program consumes it. */
export interface DesiredState {
  /** One entry per stack file, ordered by stack name. */
  readonly stacks: readonly StackConfig[];
  /** Stack name → the file it was read from (for messages). */
  readonly sourceFiles: Readonly<Record<string, string>>;
  /**
   * Places a message about a node of a stack's file (e.g. a check that failed at run time) at its
   * `file:line:col`, as every config error is placed.
   */
  locate(stack: string, path: readonly PathSegment[], message: string): ConfigError;
}

/** The outcome of validating a set of stack files: the state, or every error of every file. */
export type LoadResult =
  | {
      readonly ok: true;
      readonly state: DesiredState;
      readonly errors: readonly [];
      readonly files: readonly string[];
    }
  | { readonly ok: false; readonly errors: readonly ConfigError[]; readonly files: readonly string[] };

/** A stack file's name and content, as given to {@link validateSources}. */
export interface StackSource {
  readonly file: string;
  readonly text: string;
}

/** The outcome of validating one file on its own (no cross-file rules). */
export interface FileResult {
  readonly source: SourceFile;
  /** The parsed stack, present only when the file has no error. */
  readonly stack: StackConfig | undefined;
  readonly errors: readonly ConfigError[];
}

/**
 * Validates one stack file: YAML syntax, tabs, duplicate keys, the schema and the rules between
 * its fields. All of them are collected; nothing stops at the first error.
 */
export function validateStackFile(file: string, text: string): FileResult {
  const { source, errors } = parseSourceFile(file, text);
  if (source.broken) return { source, stack: undefined, errors };
  if (source.value === null || source.value === undefined) {
    errors.push(
      toConfigError(source, {
        path: [],
        target: "value",
        message: "the file is empty; a stack file needs at least 'stack: <name>'",
      }),
    );
    return { source, stack: undefined, errors };
  }
  if (typeof source.value !== "object" || Array.isArray(source.value)) {
    errors.push(
      toConfigError(source, {
        path: [],
        target: "value",
        message: `a stack file must be a map with the keys ${Object.keys(StackFileSchema.shape).join(", ")}`,
      }),
    );
    return { source, stack: undefined, errors };
  }
  const parsed = StackFileSchema.safeParse(source.value);
  const findings = [
    ...(parsed.success ? [] : issuesToFindings(source, parsed.error.issues)),
    ...checkStackFile(source),
  ];
  errors.push(...findings.map((finding) => toConfigError(source, finding)));
  errors.sort(compareErrors);
  return { source, stack: errors.length === 0 && parsed.success ? parsed.data : undefined, errors };
}

/**
 * Validates a set of stack files together: every file's own errors plus the cross-file rule (one
 * file per stack). Files are processed in name order so that the output is stable.
 */
export function validateSources(sources: readonly StackSource[]): LoadResult {
  const ordered = [...sources].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const files = ordered.map((source) => source.file);
  const results = ordered.map((source) => validateStackFile(source.file, source.text));
  const errors = results.flatMap((result) => result.errors);
  errors.push(...duplicateStackErrors(results));
  if (errors.length > 0) return { ok: false, errors: errors.sort(compareErrors), files };
  const stacks = results.flatMap((result) => (result.stack === undefined ? [] : [result.stack]));
  stacks.sort((a, b) => (a.stack < b.stack ? -1 : a.stack > b.stack ? 1 : 0));
  const sourceFiles: Record<string, string> = {};
  const sourceOf = new Map<string, SourceFile>();
  for (const result of results) {
    if (result.stack === undefined) continue;
    sourceFiles[result.stack.stack] = result.source.file;
    sourceOf.set(result.stack.stack, result.source);
  }
  const locate = (stack: string, path: readonly PathSegment[], message: string): ConfigError => {
    const source = sourceOf.get(stack);
    if (source === undefined) throw new Error(`no stack file declares stack '${stack}'`);
    return toConfigError(source, { path, target: "value", message });
  };
  return { ok: true, state: { stacks, sourceFiles, locate }, errors: [], files };
}

/** One file per stack: a stack named in two files is an error in each, pointing at the other. */
function duplicateStackErrors(results: readonly FileResult[]): ConfigError[] {
  const byName = new Map<string, { source: SourceFile; error: ConfigError }[]>();
  for (const { source } of results) {
    const value = source.value;
    if (typeof value !== "object" || value === null || Array.isArray(value)) continue;
    const name = (value as Record<string, unknown>)["stack"];
    if (typeof name !== "string") continue;
    const located = toConfigError(source, { path: ["stack"], target: "value", message: "" });
    const list = byName.get(name) ?? [];
    list.push({ source, error: located });
    byName.set(name, list);
  }
  const errors: ConfigError[] = [];
  for (const [name, entries] of byName) {
    if (entries.length < 2) continue;
    for (const entry of entries) {
      const others = entries
        .filter((other) => other !== entry)
        // Files of one directory: the base name is enough and reads well in CI logs.
        .map((other) => `${basename(other.error.file)}:${other.error.line}:${other.error.column}`);
      errors.push({
        ...entry.error,
        message: `stack '${name}' is also declared in ${others.join(", ")}; keep one file per stack`,
      });
    }
  }
  return errors;
}
