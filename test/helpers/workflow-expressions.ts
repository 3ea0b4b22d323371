/**
 * GitHub Actions' `${{ }}` expressions, for exactly the subset the workflow templates and
 * action.yml use: the contexts `github`, `inputs`, `secrets`, `vars`, `env`, `matrix`, `strategy`
 * and `steps`, the functions `always()` and `hashFiles()` (file names, no globs), string and number
 * literals, `!`, `==`, `!=`, `&&`, `||` and parentheses. Anything else (another context, function
 * or operator, a step id that no step has, an input that is not declared) throws, so a test that
 * runs workflows through this never passes over a part it did not understand.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";

export type Value = string | number | boolean | null | readonly Value[] | { readonly [key: string]: Value };

export interface ExpressionContext {
  /** Context name → its value. A context absent here is unknown where this expression runs. */
  readonly contexts: Readonly<Record<string, Value>>;
  /**
   * Contexts whose first-level names must exist (a step id, a declared input, a matrix key, a
   * property of `github` that the runner sets): a typo there is an error, not an empty string.
   */
  readonly strict: ReadonlySet<string>;
  /** The directory hashFiles() reads from (GITHUB_WORKSPACE). */
  readonly workspace: string;
}

type Token =
  | { kind: "string"; value: string }
  | { kind: "number"; value: number }
  | { kind: "ident"; value: string }
  | { kind: "op"; value: string };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    const space = /^\s+/.exec(rest);
    if (space !== null) {
      i += space[0].length;
      continue;
    }
    const string = /^'((?:[^']|'')*)'/.exec(rest);
    if (string !== null) {
      tokens.push({ kind: "string", value: (string[1] ?? "").replaceAll("''", "'") });
      i += string[0].length;
      continue;
    }
    const number = /^\d+(\.\d+)?/.exec(rest);
    if (number !== null) {
      tokens.push({ kind: "number", value: Number(number[0]) });
      i += number[0].length;
      continue;
    }
    const ident = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(rest);
    if (ident !== null) {
      tokens.push({ kind: "ident", value: ident[0] });
      i += ident[0].length;
      continue;
    }
    const op = /^(==|!=|&&|\|\||[!().,[\]])/.exec(rest);
    if (op !== null) {
      tokens.push({ kind: "op", value: op[0] });
      i += op[0].length;
      continue;
    }
    throw new Error(`expression '${text}': '${rest[0] ?? ""}' is outside the supported subset`);
  }
  return tokens;
}

/** Actions' truthiness: false, 0, '' and null are false. */
export function truthy(value: Value): boolean {
  return !(value === false || value === 0 || value === "" || value === null);
}

/** Actions' `==`: strings ignore case; values of different types compare as numbers. */
function looselyEqual(a: Value, b: Value): boolean {
  if (typeof a === "string" && typeof b === "string") return a.toLowerCase() === b.toLowerCase();
  if (typeof a === typeof b && (typeof a !== "object" || a === null)) return a === b;
  const asNumber = (v: Value): number =>
    v === null
      ? 0
      : typeof v === "boolean"
        ? Number(v)
        : typeof v === "number"
          ? v
          : typeof v === "string"
            ? v.trim() === ""
              ? 0
              : Number(v)
            : NaN;
  return asNumber(a) === asNumber(b);
}

/** How a value is pasted into text. */
export function asText(value: Value): string {
  if (value === null) return "";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

class Parser {
  private at = 0;
  constructor(
    private readonly source: string,
    private readonly tokens: Token[],
    private readonly context: ExpressionContext,
  ) {}

  parse(): Value {
    const value = this.or();
    if (this.at < this.tokens.length) this.fail(`unexpected '${this.describe(this.tokens[this.at])}'`);
    return value;
  }

  private fail(problem: string): never {
    throw new Error(`expression '${this.source}': ${problem}`);
  }

  private describe(token: Token | undefined): string {
    return token === undefined ? "end" : String(token.value);
  }

  private peekOp(value: string): boolean {
    const token = this.tokens[this.at];
    return token?.kind === "op" && token.value === value;
  }

  private expectOp(value: string): void {
    if (!this.peekOp(value)) this.fail(`expected '${value}', found '${this.describe(this.tokens[this.at])}'`);
    this.at++;
  }

  private or(): Value {
    let left = this.and();
    while (this.peekOp("||")) {
      this.at++;
      const right = this.and();
      left = truthy(left) ? left : right;
    }
    return left;
  }

  private and(): Value {
    let left = this.comparison();
    while (this.peekOp("&&")) {
      this.at++;
      const right = this.comparison();
      left = truthy(left) ? right : left;
    }
    return left;
  }

  private comparison(): Value {
    const left = this.unary();
    if (this.peekOp("==") || this.peekOp("!=")) {
      const negate = this.peekOp("!=");
      this.at++;
      const equal = looselyEqual(left, this.unary());
      return negate ? !equal : equal;
    }
    return left;
  }

  private unary(): Value {
    if (this.peekOp("!")) {
      this.at++;
      return !truthy(this.unary());
    }
    return this.primary();
  }

  private primary(): Value {
    const token = this.tokens[this.at++];
    if (token === undefined) return this.fail("ends early");
    if (token.kind === "string" || token.kind === "number") return token.value;
    if (token.kind === "op") {
      if (token.value !== "(") return this.fail(`unexpected '${token.value}'`);
      const inner = this.or();
      this.expectOp(")");
      return inner;
    }
    if (token.value === "true" || token.value === "false") return token.value === "true";
    if (token.value === "null") return null;
    if (this.peekOp("(")) return this.call(token.value);
    return this.path(token.value);
  }

  private call(name: string): Value {
    this.expectOp("(");
    const args: Value[] = [];
    while (!this.peekOp(")")) {
      args.push(this.or());
      if (!this.peekOp(")")) this.expectOp(",");
    }
    this.expectOp(")");
    if (name === "always" && args.length === 0) return true;
    if (name === "hashFiles" && args.length > 0) return this.hashFiles(args);
    return this.fail(`the function ${name}() is outside the supported subset`);
  }

  private hashFiles(patterns: Value[]): string {
    const hash = createHash("sha256");
    let found = false;
    for (const pattern of patterns) {
      if (typeof pattern !== "string" || /[*?[\]{}!]/.test(pattern)) {
        this.fail(`hashFiles() takes file names here, not '${asText(pattern)}'`);
      }
      const file = path.join(this.context.workspace, pattern);
      if (fs.existsSync(file) && fs.statSync(file).isFile()) {
        found = true;
        hash.update(fs.readFileSync(file));
      }
    }
    return found ? hash.digest("hex") : "";
  }

  private path(name: string): Value {
    if (!(name in this.context.contexts)) {
      this.fail(`the context '${name}' is not available here or outside the supported subset`);
    }
    let value: Value = this.context.contexts[name] ?? null;
    let depth = 0;
    for (;;) {
      let key: string;
      if (this.peekOp(".")) {
        this.at++;
        const next = this.tokens[this.at++];
        if (next?.kind !== "ident") return this.fail("a property name must follow '.'");
        key = next.value;
      } else if (this.peekOp("[")) {
        this.at++;
        key = asText(this.or());
        this.expectOp("]");
      } else {
        return value;
      }
      const object: Value = value;
      const known = object !== null && typeof object === "object" && !Array.isArray(object);
      if (depth === 0 && this.context.strict.has(name) && !(known && key in object)) {
        this.fail(`${name}.${key} is not defined here`);
      }
      value = known ? ((object as { readonly [k: string]: Value })[key] ?? null) : null;
      depth++;
    }
  }
}

/** The value of one expression (the text inside `${{ }}`, or an `if:` without them). */
export function evaluate(expression: string, context: ExpressionContext): Value {
  return new Parser(expression, tokenize(expression), context).parse();
}

/** `text` with every `${{ expression }}` replaced by its value as text. */
export function interpolate(text: string, context: ExpressionContext): string {
  return text.replace(/\$\{\{(.*?)\}\}/gs, (_, inner: string) => asText(evaluate(inner, context)));
}

/**
 * Whether a step (or job) with this `if:` runs, given whether everything before it succeeded:
 * a condition without a status function means `success() && (condition)`, as in Actions.
 */
export function shouldRun(
  condition: string | boolean | undefined,
  succeeded: boolean,
  context: ExpressionContext,
): boolean {
  if (condition === undefined) return succeeded;
  if (typeof condition === "boolean") return succeeded && condition;
  const trimmed = condition.trim();
  const whole = /^\$\{\{(.*)\}\}$/s.exec(trimmed);
  const expression = whole === null ? trimmed : (whole[1] ?? "");
  const value = truthy(evaluate(expression, context));
  return /\balways\(\)/.test(expression) ? value : succeeded && value;
}
