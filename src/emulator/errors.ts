import type { z } from "zod";
import type { ApiErrorDocumentInput, ApiVersion } from "../api";

/** An error answered as a JSON:API error document; `title` says what is wrong and where. */
export class HttpError extends Error {
  readonly status: number;
  readonly title: string;
  readonly headers: Readonly<Record<string, string>>;
  constructor(status: number, title: string, headers: Record<string, string> = {}) {
    super(title);
    this.name = "HttpError";
    this.status = status;
    this.title = title;
    this.headers = headers;
  }
}

/** `{errors:[{status,title}]}`; status is a string since 2.0 and a number in 1.0. */
export function errorDocument(status: number, title: string, version: ApiVersion): ApiErrorDocumentInput {
  return { errors: [{ status: version === "1.0" ? status : String(status), title }] };
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = input;
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined;
    const value: unknown = Object.getOwnPropertyDescriptor(current, key)?.value;
    current = value;
  }
  return current;
}

function fieldOf(issue: z.core.$ZodIssue): string {
  return issue.path.map(String).join(".");
}

/** Turns the first zod issue into a 400 whose title names the field. */
export function validationError(
  error: z.ZodError,
  where: string,
  allowed: readonly string[] = [],
  input?: unknown,
): HttpError {
  const issue = error.issues[0];
  if (issue === undefined) return new HttpError(400, `Invalid ${where}`);
  const field = fieldOf(issue);
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.map((k) => `'${k}'`).join(", ");
    const allowedText = allowed.length > 0 ? ` (allowed: ${allowed.join(", ")})` : "";
    return new HttpError(400, `Unknown field ${keys} in the ${where}${allowedText}`);
  }
  if (field === "") return new HttpError(400, `Invalid ${where}: ${issue.message}`);
  if (issue.path.length > 0 && valueAt(input, issue.path) === undefined && issue.code !== "custom") {
    return new HttpError(400, `Missing required field '${field}' in the ${where}`);
  }
  return new HttpError(400, `Invalid field '${field}' in the ${where}: ${issue.message}`);
}

/**
 * Parses a body (or query) with a zod object schema; failures become 400s naming the field.
 * With `strict: false`, members the schema does not know are dropped instead of refused.
 */
export function parseWith<S extends z.ZodObject>(
  schema: S,
  value: unknown,
  where: string,
  options: { strict: boolean } = { strict: true },
): z.infer<S> {
  if (value === undefined || value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new HttpError(400, `The ${where} must be a JSON object`);
  }
  const known = Object.keys(schema.shape);
  const input = options.strict
    ? value
    : Object.fromEntries(Object.entries(value).filter(([k]) => known.includes(k)));
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw validationError(parsed.error, where, known, value);
  return parsed.data;
}
