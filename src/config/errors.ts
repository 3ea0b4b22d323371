/**
 * Errors of the desired state: one record per fault, with the position of the YAML node at fault,
 * so that every error of every file can be shown at once as `file:line:col: path: message`.
 */

/** One fault in a stack file. `line` and `column` are 1-based. */
export interface ConfigError {
  /** The file as it was read (the directory given to the loader joined with the file name). */
  readonly file: string;
  readonly line: number;
  readonly column: number;
  /** Where in the document, e.g. `environments.uat.deployment.ref`; empty for the whole file. */
  readonly path: string;
  /** What is wrong, naming the allowed values where there is a list. */
  readonly message: string;
  /** The source line at `line` (without its line break), for the caret display; empty if none. */
  readonly lineText: string;
}

/** A segment of a document path: a map key or a list index. */
export type PathSegment = string | number;

/** Renders a document path the way errors show it: `environments.uat.snapshots["a b"]`, `records[0].id`. */
export function formatPath(path: readonly PathSegment[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (/^[A-Za-z0-9_-]+$/.test(segment)) out += out === "" ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** Orders errors by file, then line, then column, so output reads top to bottom. */
export function compareErrors(a: ConfigError, b: ConfigError): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  return a.line - b.line || a.column - b.column;
}

/** Longest path or message an error shows; a file's text can make either as long as itself. */
const MAX_SHOWN = 300;
/** Characters of the source line shown on each side of the column. */
const LINE_CONTEXT = 60;

/** `text` cut to `max` characters, with `…` where it was cut. */
function cut(text: string, max = MAX_SHOWN): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/**
 * The one-line form: `file:line:col: path: message` (the path part is left out when empty). A
 * path or message longer than 300 characters is cut, so a 200 KB key is not echoed whole.
 */
export function formatErrorLine(error: ConfigError): string {
  const where = `${error.file}:${error.line}:${error.column}`;
  const message = cut(error.message);
  return error.path === "" ? `${where}: ${message}` : `${where}: ${cut(error.path)}: ${message}`;
}

/** The part of a long source line around `column` (60 characters each side), and the column in it. */
function lineWindow(lineText: string, column: number): { text: string; column: number } {
  if (lineText.length <= 2 * LINE_CONTEXT + 20) return { text: lineText, column };
  const start = Math.max(0, column - 1 - LINE_CONTEXT);
  const end = Math.min(lineText.length, column - 1 + LINE_CONTEXT);
  const before = start > 0 ? "…" : "";
  const after = end < lineText.length ? "…" : "";
  return { text: `${before}${lineText.slice(start, end)}${after}`, column: column - start + before.length };
}

/**
 * Formats errors for a terminal: each as `file:line:col: path: message`, then the offending source
 * line and a caret under the column. Tabs before the column are kept so the caret stays aligned.
 */
export function formatConfigErrors(errors: readonly ConfigError[], what = "in stacks config"): string {
  const blocks = errors.map((error) => {
    const lines = [formatErrorLine(error)];
    if (error.lineText !== "") {
      const gutter = `${error.line} | `;
      const shown = lineWindow(error.lineText, error.column);
      const prefix = shown.text.slice(0, Math.max(0, shown.column - 1)).replace(/[^\t]/g, " ");
      lines.push(`  ${gutter}${shown.text}`);
      lines.push(`  ${" ".repeat(gutter.length - 2)}| ${prefix}^`);
    }
    return lines.join("\n");
  });
  const count = errors.length === 1 ? "1 error" : `${errors.length} errors`;
  return errors.length === 0 ? "" : `${blocks.join("\n")}\n${count} ${what}\n`;
}

const brand = Symbol.for("stackwright.ConfigValidationError");

/**
 * Thrown by the `...OrThrow` loaders: carries every error; its message is the formatted list.
 * Check with {@link ConfigValidationError.isInstance}, which survives two copies of this module.
 */
export class ConfigValidationError extends Error {
  readonly code = "STACKWRIGHT_CONFIG_INVALID";
  readonly errors: readonly ConfigError[];
  readonly [brand] = true;

  constructor(errors: readonly ConfigError[]) {
    super(`invalid stacks config:\n${formatConfigErrors(errors)}`);
    this.name = "ConfigValidationError";
    this.errors = errors;
  }

  /** True for a ConfigValidationError from any copy of this module. */
  static isInstance(value: unknown): value is ConfigValidationError {
    return typeof value === "object" && value !== null && (value as { [brand]?: unknown })[brand] === true;
  }
}
