import type { z } from "zod";
import type { PathSegment } from "./errors";
import { type Finding, type SourceFile, nodeAt, sourceTextOf } from "./source-file";

/**
 * Turns zod issues into findings with our wording: what is wrong, what was written, what is
 * allowed. Zod's own messages ("Invalid input: expected string, received number") are written for
 * programmers; ours are for the people who edit the YAML.
 */
export function issuesToFindings(source: SourceFile, issues: readonly z.core.$ZodIssue[]): Finding[] {
  const findings: Finding[] = [];
  for (const issue of issues) {
    const path = issue.path.filter((segment): segment is PathSegment => typeof segment !== "symbol");
    findings.push(...issueToFindings(source, issue, path));
  }
  return findings;
}

function issueToFindings(source: SourceFile, issue: z.core.$ZodIssue, path: PathSegment[]): Finding[] {
  const present = isPresent(source.value, path);
  switch (issue.code) {
    case "unrecognized_keys":
      return issue.keys.map((key) => ({
        path: [...path, key],
        target: "key",
        message: `unknown key '${key}'${suggestion(key, issue.message)}; allowed keys: ${issue.message}`,
      }));
    case "invalid_type": {
      if (!present) return [{ path, target: "key", message: "is required" }];
      if (!issue.message.startsWith("Invalid input")) {
        // A message written in schema.ts for this field says more than the generic one.
        return [{ path, target: "value", message: withGot(source, path, issue.message) }];
      }
      const hint = quoteHint(source, path, issue.expected);
      return [
        {
          path,
          target: "value",
          message: `must be ${expectedText(issue.expected)}; got ${describe(source, path)}${hint}`,
        },
      ];
    }
    case "invalid_value": {
      const allowed = issue.values.map((value) => String(value)).join(", ");
      if (!present) return [{ path, target: "key", message: `is required; one of: ${allowed}` }];
      return [
        { path, target: "value", message: `must be one of: ${allowed}; got ${describe(source, path)}` },
      ];
    }
    default:
      if (!present) return [{ path, target: "key", message: "is required" }];
      return [{ path, target: "value", message: withGot(source, path, issue.message) }];
  }
}

/** Adds what the user wrote to a message that does not say it yet. */
function withGot(source: SourceFile, path: PathSegment[], message: string): string {
  return message.includes("; got ") ? message : `${message}; got ${describe(source, path)}`;
}

/** True when the raw value has every key of `path` (a key with an empty value counts). */
function isPresent(value: unknown, path: readonly PathSegment[]): boolean {
  let current = value;
  for (const segment of path) {
    if (typeof current !== "object" || current === null) return false;
    if (!Object.prototype.hasOwnProperty.call(current, segment)) return false;
    current = (current as Record<PathSegment, unknown>)[segment];
  }
  return true;
}

function valueAt(value: unknown, path: readonly PathSegment[]): unknown {
  let current = value;
  for (const segment of path) {
    if (typeof current !== "object" || current === null) return undefined;
    current = (current as Record<PathSegment, unknown>)[segment];
  }
  return current;
}

const EXPECTED_TEXT: Readonly<Record<string, string>> = {
  string: "text",
  boolean: "true or false",
  number: "a number",
  int: "a whole number",
  object: "a map (key: value lines)",
  record: "a map (name: settings lines)",
  array: "a list (lines starting with '- ')",
};

function expectedText(expected: string): string {
  return EXPECTED_TEXT[expected] ?? expected;
}

/** Describes what was written at `path`: `an empty value`, `a list`, `the number 1.10`, `'abc'`. */
function describe(source: SourceFile, path: readonly PathSegment[]): string {
  const value = valueAt(source.value, path);
  if (value === null || value === undefined) return "an empty value";
  if (Array.isArray(value)) return "a list";
  if (value instanceof Uint8Array) return "binary data";
  if (typeof value === "object") return "a map";
  if (typeof value === "string") return `'${value}'`;
  const written = sourceTextOf(source, nodeAt(source, path));
  if (typeof value === "number") return `the number ${written ?? String(value)}`;
  return written ?? String(value);
}

/** YAML reads `1.10` or `2026` as numbers and `yes` as text: suggest quotes where text was meant. */
function quoteHint(source: SourceFile, path: readonly PathSegment[], expected: string): string {
  const value = valueAt(source.value, path);
  if (expected !== "string" || (typeof value !== "number" && typeof value !== "boolean")) return "";
  const written = sourceTextOf(source, nodeAt(source, path)) ?? String(value);
  return ` (YAML reads it as a ${typeof value}; write "${written}" in quotes to mean text)`;
}

/** ` (did you mean 'x'?)` when an allowed key is one or two edits away from the unknown one. */
function suggestion(key: string, allowedList: string): string {
  const allowed = allowedList.split(", ");
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of allowed) {
    const distance = editDistance(key.toLowerCase(), candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best === undefined ? "" : ` (did you mean '${best}'?)`;
}

/** Levenshtein distance, with `-` and `_` treated alike (fetch-first vs fetch_first). */
function editDistance(a: string, b: string): number {
  const left = a.replace(/-/g, "_");
  const right = b.replace(/-/g, "_");
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let i = 1; i <= left.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= right.length; j += 1) {
      const cost = left[i - 1] === right[j - 1] ? 0 : 1;
      current.push(
        Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost),
      );
    }
    previous = current;
  }
  return previous[right.length] ?? 0;
}
