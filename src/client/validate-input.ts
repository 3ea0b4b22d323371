/**
 * Validation of request bodies and queries with the wire schemas before anything is sent, so a
 * bad input is reported with its property path instead of as a server 400.
 */
import type { z } from "zod";
import { InvalidArgumentError } from "./errors";
import { jsonPath } from "./decode";

/** Parses `value` with `schema`; throws InvalidArgumentError naming `[argument.path]` and the rule. */
export function validateInput<S extends z.ZodType>(argument: string, schema: S, value: unknown): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const where = jsonPath(issue.path).replace(/^\$/, argument);
    return `[${where}] ${issue.message}`;
  });
  throw new InvalidArgumentError(`${problems.join("; ")}; no request was sent`, { argument });
}
