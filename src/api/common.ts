import { z } from "zod";

/** Media type of every request and response body of the `/svc` interface. */
export const MEDIA_TYPE = "application/vnd.api+json";

/** API versions a server understands; a missing `X-Api-Version` header means 2.0. */
export const API_VERSIONS = ["1.0", "2.0"] as const;
export const ApiVersion = z.enum(API_VERSIONS);
export type ApiVersion = z.infer<typeof ApiVersion>;
export const DEFAULT_API_VERSION: ApiVersion = "2.0";

/**
 * A resource id as it arrives on the wire: documented as a string, but deployments (1.0), fetches,
 * snapshots, transfers and a single stack view carry numbers. Parsed once into a string.
 */
export const Id = z.union([z.string().min(1), z.number().int()]).transform((v) => String(v));
export type Id = z.infer<typeof Id>;

/** A `YYYY-MM-DD HH:MM:SS` timestamp (platform local time; use the `*_unix` fields for logic). */
export const DateTimeText = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/, "expected YYYY-MM-DD HH:MM:SS");

/** Unix seconds. */
export const UnixSeconds = z.number().int();

/** Textual boolean as snapshots carry it (`"true"` / `"false"`). */
export const TextBoolean = z.enum(["true", "false"]);

/** `links` of a single resource object. */
export const SelfLinks = z.object({ self: z.string() });

/** A reference to another resource: `{type, id, links.self}`. */
export function resourceRef<T extends string>(type: T) {
  return z.object({
    type: z.literal(type),
    id: Id,
    links: SelfLinks.optional(),
  });
}

export const StackRef = resourceRef("stacks");
export type StackRef = z.infer<typeof StackRef>;
export const EnvironmentRef = resourceRef("environments");
export type EnvironmentRef = z.infer<typeof EnvironmentRef>;
export const SnapshotRef = resourceRef("snapshots");
export type SnapshotRef = z.infer<typeof SnapshotRef>;

/** `links` of a list document; a client follows `next` when present (the spec shows no pagination). */
export const ListLinks = z.object({ self: z.string().optional(), next: z.string().nullable().optional() });

/** Wraps a resource schema into a single-resource document `{data, links?, meta?}`. */
export function singleDocument<T extends z.ZodType>(resource: T) {
  return z.object({
    data: resource,
    links: ListLinks.optional(),
    meta: z.record(z.string(), z.unknown()).optional(),
  });
}

/** Wraps a resource schema into a list document `{data: [...], links?, meta?}`. */
export function listDocument<T extends z.ZodType>(resource: T) {
  return z.object({
    data: z.array(resource),
    links: ListLinks.optional(),
    meta: z.record(z.string(), z.unknown()).optional(),
  });
}

/** `meta` carried by the modules and whitelist documents. */
export const ServerMeta = z.object({
  server_time: z.string(),
  status_code: z.number().int(),
});
export type ServerMeta = z.infer<typeof ServerMeta>;
