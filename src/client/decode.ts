/**
 * Response parsing and validation: a 2xx body becomes JSON, then the method's typed result through
 * the wire schema of `src/api`; anything else is an {@link UnexpectedResponseError} that names the
 * first JSON path that does not match. Error bodies yield their titles.
 */
import type { z } from "zod";
import { ApiErrorDocument } from "../api";
import { UnexpectedResponseError, type ResponseContext } from "./errors";
import { rememberOrigin } from "./needs";

export type { ResponseContext };

/** Turns a parsed JSON body into the method's result (or throws UnexpectedResponseError). */
export type Decoder<T> = (body: unknown, ctx: ResponseContext) => T;

/** One page of a list: its items and the next page's link, if any. */
export interface Page<T> {
  items: T[];
  next: string | undefined;
}

/** Validates `body` against `schema` and maps it; names the first mismatching JSON path. */
export function decodeWith<V, T>(schema: z.ZodType<V>, select: (value: V) => T): Decoder<T> {
  return (body, ctx) => {
    const parsed = schema.safeParse(body);
    if (parsed.success) return select(parsed.data);
    const issues = parsed.error.issues.map((issue) => `${jsonPath(issue.path)}: ${issue.message}`);
    const first = parsed.error.issues[0];
    const path = first === undefined ? "$" : jsonPath(first.path);
    throw new UnexpectedResponseError(
      `${ctx.method} ${ctx.path} answered ${ctx.status} with a body that does not match the API schema at ${path}: ${first?.message ?? "invalid"}`,
      { ...ctx, jsonPath: path, issues },
    );
  };
}

/** A decoder for responses without a body (204). */
export const noContent: Decoder<void> = () => undefined;

/**
 * A decoder that validates a JSON:API document and returns its `data`. The resource remembers the
 * response it came from, so a consumer that needs a value it lacks can name the endpoint.
 */
export function dataOf<T>(schema: z.ZodType<{ data: T }>): Decoder<T> {
  return (body, ctx) =>
    decodeWith(schema, (doc) => {
      rememberOrigin(doc.data, ctx, "$.data");
      return doc.data;
    })(body, ctx);
}

/** A decoder of one page of a list document: its items and its `links.next`. */
export function pageOf<T>(
  schema: z.ZodType<{ data: T[]; links?: { next?: string | null | undefined } | null | undefined }>,
): Decoder<Page<T>> {
  return (body, ctx) =>
    decodeWith(schema, (doc) => {
      doc.data.forEach((item, index) => rememberOrigin(item, ctx, `$.data[${index}]`));
      return { items: doc.data, next: nextLink(doc.links) };
    })(body, ctx);
}

/** `links.next` of a list document, or undefined. */
export function nextLink(links: { next?: string | null | undefined } | null | undefined): string | undefined {
  const next = links?.next;
  return typeof next === "string" && next !== "" ? next : undefined;
}

/** `["data", 0, "id"]` → `$.data[0].id`. */
export function jsonPath(path: readonly PropertyKey[]): string {
  let out = "$";
  for (const key of path) {
    out +=
      typeof key === "number"
        ? `[${key}]`
        : /^[A-Za-z_$][\w$]*$/.test(String(key))
          ? `.${String(key)}`
          : `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

/** Parses a 2xx body as JSON; an empty body is `undefined` where allowed (204). */
export function parseJson(text: string, ctx: ResponseContext, emptyAllowed: boolean): unknown {
  if (text.trim() === "") {
    if (emptyAllowed) return undefined;
    throw new UnexpectedResponseError(`${ctx.method} ${ctx.path} answered ${ctx.status} with an empty body`, {
      ...ctx,
      jsonPath: "$",
      issues: ["empty body"],
    });
  }
  try {
    const value: unknown = JSON.parse(text);
    return value;
  } catch {
    throw new UnexpectedResponseError(
      `${ctx.method} ${ctx.path} answered ${ctx.status} with a body that is not JSON`,
      { ...ctx, jsonPath: "$", issues: ["not JSON"] },
    );
  }
}

/** Titles of a 1.0 or 2.0 error document; none when the body is not one (e.g. a proxy's HTML). */
export function errorTitles(text: string): string[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return [];
  }
  const parsed = ApiErrorDocument.safeParse(json);
  return parsed.success ? parsed.data.errors.map((e) => e.title) : [];
}
