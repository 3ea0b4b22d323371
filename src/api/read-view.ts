import { z } from "zod";

/**
 * The read view of a documented schema: what a client accepts from the real platform, derived
 * from the one documented schema (never a second copy). The platform leaves out members the spec
 * lists and sends `null` for others (a package deployment's `sha` until it is built, `summary`,
 * `deployer`, a list item's dates and links), so in the read view:
 *
 * - every member of every object is optional and nullable, at any depth;
 * - except what JSON:API itself requires: a document's `data`, and the `type` and `id` of a
 *   resource object or identifier (an object that has both);
 * - a resource's `attributes` reads as `{}` when absent or null, so a reader writes
 *   `d.attributes.state`, never `d.attributes?.state`;
 * - members nobody declared are ignored (and a `catchall` of the documented schema is kept).
 *
 * A missing value that a decision depends on is the consumer's to require (the client's
 * `needAttributes`), with an error that names the endpoint, the field and what came.
 */
export function readView<S extends z.ZodType>(schema: S): z.ZodType<ReadOf<z.output<S>>> {
  // The walk below builds exactly the shape ReadOf describes; TypeScript cannot follow a
  // runtime walk over schema classes, so the result is typed once here. Built on first use
  // (then kept): every process loads all the views, and most use a few, so building them all at
  // load was a tenth of a short command's CPU time.
  return z.lazy(() => tolerant(schema)) as unknown as z.ZodType<ReadOf<z.output<S>>>;
}

/** `view` with the documented `.nullable()` / `.optional()` of `member` (a kept member keeps its own). */
function keepWrappers(member: z.ZodType, view: z.ZodType): z.ZodType {
  if (member instanceof z.ZodOptional) return keepWrappers(member.unwrap() as z.ZodType, view).optional();
  if (member instanceof z.ZodNullable) return keepWrappers(member.unwrap() as z.ZodType, view).nullable();
  return view;
}

/** Members of a JSON:API object that stay required in the read view. */
const RESOURCE_KEYS = ["type", "id"] as const;

function tolerant(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) {
    return tolerant(schema.unwrap() as z.ZodType);
  }
  if (schema instanceof z.ZodDefault) return tolerant(schema.unwrap() as z.ZodType);
  if (schema instanceof z.ZodArray) return z.array(tolerant(schema.element as z.ZodType));
  if (schema instanceof z.ZodRecord) {
    return z.record(schema.keyType as z.ZodString, tolerant(schema.valueType as z.ZodType));
  }
  if (schema instanceof z.ZodObject) {
    const shape = schema.shape as Record<string, z.ZodType>;
    const isResource = RESOURCE_KEYS.every((key) => key in shape);
    const out: Record<string, z.ZodType> = {};
    for (const [key, member] of Object.entries(shape)) {
      const required = key === "data" || (isResource && (key === "type" || key === "id"));
      if (required) out[key] = keepWrappers(member, tolerant(member));
      else if (key === "attributes") out[key] = z.preprocess((v) => v ?? {}, tolerant(member));
      else out[key] = tolerant(member).nullish();
    }
    const catchall = schema.def.catchall;
    const view = z.object(out);
    return catchall === undefined || catchall instanceof z.ZodNever ? view : view.catchall(catchall);
  }
  // Scalars, enums, literals, unions and transforms (ids) read as documented.
  return schema;
}

/** Keys of T that stay required in the read view (see {@link readView}). */
type KeptKey<T> = "data" | ("type" extends keyof T ? ("id" extends keyof T ? "type" | "id" : never) : never);

type ReadObject<T> = {
  [K in keyof T as K extends KeptKey<T> | "attributes" ? K : never]: ReadOf<T[K]>;
} & {
  [K in keyof T as K extends KeptKey<T> | "attributes" ? never : K]?:
    | ReadOf<NonNullable<T[K]>>
    | null
    | undefined;
};

/** The type of a value as the read view parses it: see {@link readView}. */
export type ReadOf<T> = T extends string | number | boolean | bigint | null | undefined
  ? T
  : T extends readonly (infer E)[]
    ? ReadOf<E>[]
    : T extends object
      ? string extends keyof T
        ? { [key: string]: ReadOf<T[string]> }
        : { [K in keyof ReadObject<T>]: ReadObject<T>[K] }
      : T;
