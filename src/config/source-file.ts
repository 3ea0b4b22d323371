import {
  type Document,
  LineCounter,
  type Node,
  isMap,
  isNode,
  isPair,
  isScalar,
  isSeq,
  parseDocument,
  visit,
} from "yaml";
import { type ConfigError, type PathSegment, formatPath } from "./errors";

/**
 * One YAML file parsed with positions kept: the document, its line index and helpers that turn a
 * document path into the line and column of the node at fault.
 */
export interface SourceFile {
  readonly file: string;
  readonly text: string;
  readonly document: Document.Parsed;
  /** The parsed value (`toJS()`), or undefined when the file has syntax errors. */
  readonly value: unknown;
  /** True when the YAML itself is broken (beyond duplicate keys): schema checks are skipped. */
  readonly broken: boolean;
  readonly lineCounter: LineCounter;
  readonly lines: readonly string[];
}

/** Whether an error points at a map key (unknown key, bad name) or at the value (wrong type). */
export type Target = "key" | "value";

/** A fault found by a check, before it is placed in the file. */
export interface Finding {
  /** The path shown in the error. */
  readonly path: readonly PathSegment[];
  readonly target: Target;
  readonly message: string;
  /** Where to point instead of `path` (e.g. at `ref_type` when a `ref` is missing). */
  readonly at?: { readonly path: readonly PathSegment[]; readonly target: Target };
}

/**
 * Largest stack file read, in bytes: about 60,000 environments of one line each, validated in a
 * few seconds; a larger file is refused whole before it is parsed.
 */
export const MAX_STACK_FILE_BYTES = 4 * 1024 * 1024;

/** The one error of a stack file over {@link MAX_STACK_FILE_BYTES}. */
export function oversizeMessage(bytes: number): string {
  return (
    `the file is ${bytes} bytes, over the ${MAX_STACK_FILE_BYTES} (4 MiB) a stack file may be; ` +
    "real ones are far smaller: find what made it this large"
  );
}

/** Parses `text` and returns the file plus the YAML-level errors (syntax, tabs, duplicate keys). */
export function parseSourceFile(file: string, text: string): { source: SourceFile; errors: ConfigError[] } {
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > MAX_STACK_FILE_BYTES) {
    const lineCounter = new LineCounter();
    const document = parseDocument("", { lineCounter });
    const source = { file, text: "", document, value: undefined, broken: true, lineCounter, lines: [] };
    const message = oversizeMessage(bytes);
    return { source, errors: [{ file, line: 1, column: 1, path: "", message, lineText: "" }] };
  }
  const lineCounter = new LineCounter();
  // Core schema (YAML 1.2): `2026-11-22`, `on`, `yes` stay text; merge keys are not special.
  // Duplicate keys are found below in one pass: the library's own check compares each key with
  // every earlier one of its map, which made a map of 40,000 environments take most of a minute.
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: false });
  const lines = text.split(/\r?\n/);
  const errors: ConfigError[] = [];
  let broken = false;
  const syntaxLines = new Set<number>();
  for (const error of document.errors) {
    let { line, col } = lineCounter.linePos(error.pos[0]);
    let message = yamlErrorMessage(error.code, error.message);
    broken = true;
    // One syntax fault often yields several messages on the same spot; the first says most.
    if (syntaxLines.has(line)) continue;
    syntaxLines.add(line);
    if ((lines[line - 1] ?? "").trim() === "" && line >= lines.length) {
      // The parser noticed at the end of the file; show the last line that has content instead.
      const last = lastContentLine(lines);
      if (last > 0) {
        line = last;
        col = (lines[last - 1] ?? "").length + 1;
        message = `${message} (reached the end of the file)`;
      }
    }
    errors.push({ file, line, column: col, path: "", message, lineText: lines[line - 1] ?? "" });
  }
  errors.push(...duplicateKeyErrors(file, document, lineCounter, lines));
  errors.push(...prototypeKeyErrors(file, document, lineCounter, lines));
  let value: unknown;
  if (!broken) {
    // With only duplicate keys the document is still well formed; the last value wins in toJS,
    // and the duplicate is already reported, so checking the rest loses nothing.
    try {
      value = document.toJS({ maxAliasCount: 100 });
    } catch (error) {
      // toJS throws only on alias bombs (an alias expanding into too many nodes).
      broken = true;
      errors.push({
        file,
        line: 1,
        column: 1,
        path: "",
        message: `the file cannot be read as data: ${error instanceof Error ? error.message : String(error)}`,
        lineText: lines[0] ?? "",
      });
    }
  }
  return { source: { file, text, document, value, broken, lineCounter, lines }, errors };
}

/**
 * Every later occurrence of a scalar key in the same map, where it is, with the line of the
 * first: linear in the size of the document (one set of keys per map).
 */
function duplicateKeyErrors(
  file: string,
  document: Document.Parsed,
  lineCounter: LineCounter,
  lines: readonly string[],
): ConfigError[] {
  const errors: ConfigError[] = [];
  visit(document, {
    Map(_, map) {
      const seen = new Map<unknown, number>();
      for (const pair of map.items) {
        if (!isScalar(pair.key) || pair.key.range === undefined || pair.key.range === null) continue;
        const offset = pair.key.range[0];
        const first = seen.get(pair.key.value);
        if (first === undefined) {
          seen.set(pair.key.value, offset);
          continue;
        }
        errors.push(
          keyErrorAt(
            { file, lineCounter, lines },
            offset,
            `duplicate key '${String(pair.key.value)}' (first at line ${lineCounter.linePos(first).line}); each key may appear once per map`,
          ),
        );
      }
      return undefined;
    },
  });
  return errors;
}

/**
 * `__proto__` as a key vanishes when the document becomes a JavaScript object (an environment
 * named so would be silently ignored), so it is refused while we still see the YAML nodes.
 */
function prototypeKeyErrors(
  file: string,
  document: Document.Parsed,
  lineCounter: LineCounter,
  lines: readonly string[],
): ConfigError[] {
  const errors: ConfigError[] = [];
  visit(document, {
    Pair(_, pair) {
      if (!isScalar(pair.key) || pair.key.value !== "__proto__" || !pair.key.range) return;
      errors.push(
        keyErrorAt(
          { file, lineCounter, lines },
          pair.key.range[0],
          "the key '__proto__' is not allowed (it cannot be told apart from JavaScript internals)",
        ),
      );
    },
  });
  return errors;
}

/** An error at a key of the document, by the key's offset in the text. */
function keyErrorAt(
  where: { file: string; lineCounter: LineCounter; lines: readonly string[] },
  offset: number,
  message: string,
): ConfigError {
  const { line, col } = where.lineCounter.linePos(offset);
  return { file: where.file, line, column: col, path: "", message, lineText: where.lines[line - 1] ?? "" };
}

/** 1-based number of the last line that is not blank, or 0. */
function lastContentLine(lines: readonly string[]): number {
  for (let index = lines.length - 1; index >= 0; index -= 1) {
    if ((lines[index] ?? "").trim() !== "") return index + 1;
  }
  return 0;
}

function yamlErrorMessage(code: string, message: string): string {
  switch (code) {
    case "TAB_AS_INDENT":
      return "tab character used for indentation; YAML allows only spaces there";
    case "MULTIPLE_DOCS":
      return "more than one YAML document (---) in the file; a stack file holds exactly one";
    default:
      // The yaml library's own text says what it expected; keep its first line.
      return `YAML syntax error: ${message.charAt(0).toLowerCase()}${message.slice(1).split("\n")[0] ?? ""}`;
  }
}

interface Located {
  keyNode: Node | undefined;
  valueNode: Node | undefined;
  /** Length of the path prefix that exists in the document. */
  depth: number;
}

/** Walks the document along `path`, remembering the deepest key and value nodes found. */
function walk(source: SourceFile, path: readonly PathSegment[]): Located {
  let keyNode: Node | undefined;
  let valueNode: Node | undefined = isNode(source.document.contents) ? source.document.contents : undefined;
  let depth = 0;
  for (const segment of path) {
    if (isMap(valueNode)) {
      // The last pair with the key: toJS keeps the last of duplicate keys, so errors point there.
      const pair = [...valueNode.items]
        .reverse()
        .find((item) => isPair(item) && isScalar(item.key) && String(item.key.value) === String(segment));
      if (pair === undefined) break;
      keyNode = isNode(pair.key) ? pair.key : undefined;
      valueNode = isNode(pair.value) ? pair.value : undefined;
    } else if (isSeq(valueNode) && typeof segment === "number") {
      const item = valueNode.items[segment];
      if (!isNode(item)) break;
      keyNode = item;
      valueNode = item;
    } else {
      break;
    }
    depth += 1;
  }
  return { keyNode, valueNode, depth };
}

/**
 * The 1-based line and column of the node at `path`: the key for `target: "key"`, the value for
 * `"value"`. When the path does not exist (a missing required key), the nearest existing key is
 * used, which is where the user has to add it.
 */
export function position(
  source: SourceFile,
  path: readonly PathSegment[],
  target: Target,
): { line: number; column: number } {
  const found = walk(source, path);
  const complete = found.depth === path.length;
  let node: Node | undefined;
  if (complete && target === "value") node = found.valueNode ?? found.keyNode;
  else node = found.keyNode ?? found.valueNode;
  const offset = node?.range?.[0] ?? firstContentOffset(source.text);
  const { line, col } = source.lineCounter.linePos(offset);
  return { line, column: col };
}

/** Offset of the first line that is neither blank nor a comment (where a missing key belongs). */
function firstContentOffset(text: string): number {
  const match = /^(?![ \t]*(#|$))/m.exec(text);
  return match?.index ?? 0;
}

/** Turns a finding into a positioned error of this file. */
export function toConfigError(source: SourceFile, finding: Finding): ConfigError {
  const { line, column } = position(
    source,
    finding.at?.path ?? finding.path,
    finding.at?.target ?? finding.target,
  );
  return {
    file: source.file,
    line,
    column,
    path: formatPath(finding.path),
    message: finding.message,
    lineText: source.lines[line - 1] ?? "",
  };
}

/** The YAML node at `path`, if any (for describing what the user wrote). */
export function nodeAt(source: SourceFile, path: readonly PathSegment[]): Node | undefined {
  const found = walk(source, path);
  return found.depth === path.length ? found.valueNode : undefined;
}

/** The source text of a scalar node as written (e.g. `1.10` for a number that parsed as 1.1). */
export function sourceTextOf(source: SourceFile, node: Node | undefined): string | undefined {
  const range = node?.range;
  return range === undefined || range === null ? undefined : source.text.slice(range[0], range[1]);
}
