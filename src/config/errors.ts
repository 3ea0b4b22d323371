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

/** The one-line form: `file:line:col: path: message` (the path part is left out when empty). */
export function formatErrorLine(error: ConfigError): string {
  const where = `${error.file}:${error.line}:${error.column}`;
  return error.path === "" ? `${where}: ${error.message}` : `${where}: ${error.path}: ${error.message}`;
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
      const prefix = error.lineText.slice(0, Math.max(0, error.column - 1)).replace(/[^\t]/g, " ");
      lines.push(`  ${gutter}${error.lineText}`);
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
