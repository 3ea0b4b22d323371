/**
 * Path building. Every dynamic segment goes through {@link segment}: names that could change
 * which resource a path addresses are refused before any request, and everything else is
 * percent-encoded (stripe-node escapes ids the same way).
 */
import { InvalidArgumentError } from "./errors";

/**
 * Why a name is refused, or undefined when it is acceptable. Refused: empty, `/` or `\`, `..`,
 * whitespace, control characters, and `%`, `?`, `#` (a pre-encoded `%2F` or a query marker could
 * be decoded by a proxy into something that addresses another resource).
 */
export function nameProblem(value: string): string | undefined {
  if (value.length === 0) return "is empty";
  if (value.length > 200) return "is longer than 200 characters";
  if (value.includes("/") || value.includes("\\")) return "contains a slash";
  if (value.includes("..")) return "contains '..'";
  if (value === ".") return "is '.'";
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(value)) return "contains a control character";
  if (/\s/u.test(value)) return "contains whitespace";
  if (/[%?#]/.test(value)) return "contains '%', '?' or '#'";
  return undefined;
}

/**
 * Validates a name (stack, environment, class, method, relation, record id) and returns it
 * percent-encoded for use as one path segment. Throws {@link InvalidArgumentError} naming the
 * argument; the value is shown JSON-quoted so that invisible characters are visible.
 */
export function segment(argument: string, value: string): string {
  if (typeof value !== "string") {
    throw new InvalidArgumentError(`[${argument}] must be a string`, { argument });
  }
  const problem = nameProblem(value);
  if (problem !== undefined) {
    throw new InvalidArgumentError(
      `[${argument}] ${JSON.stringify(value)} ${problem}; it would alter the request path, so no request was sent`,
      { argument },
    );
  }
  return encodeURIComponent(value);
}

/** `/svc/project/{stack}`: the prefix of every stack-scoped endpoint. */
export function stackPath(stack: string): string {
  return `/svc/project/${segment("stack", stack)}`;
}

/** `/svc/project/{stack}/environment/{environment}`: the prefix of every environment-scoped endpoint. */
export function environmentPath(stack: string, environment: string): string {
  return `${stackPath(stack)}/environment/${segment("environment", environment)}`;
}

/**
 * Validates a numeric id (deployment, snapshot, transfer, fetch). Accepts a number or a string of
 * digits (ids are strings after normalisation) and returns the canonical digit string.
 */
export function numericId(argument: string, value: string | number): string {
  const text = typeof value === "number" ? String(value) : value;
  if (typeof text !== "string" || !/^[1-9]\d{0,15}$/.test(text)) {
    throw new InvalidArgumentError(`[${argument}] ${JSON.stringify(value)} is not a positive integer id`, {
      argument,
    });
  }
  return text;
}

/** Value of one query parameter; arrays repeat the key with `[]` (the platform's PHP convention). */
export type QueryValue = string | number | boolean | readonly string[] | undefined;

/** Builds `?a=1&b[]=x` from defined values, keys in the given order; empty string when none. */
export function queryString(query: Readonly<Record<string, QueryValue>> | undefined): string {
  if (query === undefined) return "";
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) {
      for (const item of value as readonly string[]) {
        parts.push(`${encodeURIComponent(`${key}[]`)}=${encodeURIComponent(item)}`);
      }
    } else {
      parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
    }
  }
  return parts.length === 0 ? "" : `?${parts.join("&")}`;
}
