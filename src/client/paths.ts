/**
 * Path building. Every dynamic segment goes through {@link segment}: names that could change
 * which resource a path addresses are refused before any request (by `nameProblem` of
 * `src/api/names.ts`, the rule `validate` applies too), and everything else is percent-encoded
 * (stripe-node escapes ids the same way).
 */
import { NumericId, nameProblem } from "../api";
import { InvalidArgumentError } from "./errors";

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
    throw new InvalidArgumentError(`[${argument}] ${JSON.stringify(value)} ${problem}; no request was sent`, {
      argument,
    });
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
 * Validates a numeric id (deployment, snapshot, transfer, fetch) with `NumericId` of
 * `src/api/ids.ts`: a number or a string of digits, returned as the canonical digit string.
 */
export function numericId(argument: string, value: string | number): string {
  const parsed = NumericId.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new InvalidArgumentError(
    `[${argument}] ${JSON.stringify(value)} ${parsed.error.issues[0]?.message ?? "is not a numeric id"}; no request was sent`,
    { argument },
  );
}

/** Value of one query parameter; arrays repeat the key with `[]` (the platform's PHP convention). */
export type QueryValue = string | number | boolean | readonly string[] | undefined;

/** Builds `?a=1&b[]=x` from defined values, keys in the given order; empty string when none. */
export function queryString(query: Readonly<Record<string, QueryValue>> | undefined): string {
  if (query === undefined) return "";
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    // The only object a query value can be is its list of strings.
    if (typeof value === "object") {
      for (const item of value) {
        parts.push(`${encodeURIComponent(`${key}[]`)}=${encodeURIComponent(item)}`);
      }
    } else {
      parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
    }
  }
  return parts.length === 0 ? "" : `?${parts.join("&")}`;
}
