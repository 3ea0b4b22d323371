/**
 * The messages between a shared provider host (shared-host.ts) and the process that started it
 * (src/program/shared-provider.ts), over Node's IPC channel. The parent asks for one port per
 * engine run and closes it when the run ends; the host answers each request by its id.
 *
 * A run may also guard its never-repeated creates (a restore, a record method: the platform keeps
 * no marker to find them by). Before the host calls the provider's create for one of the guarded
 * types it asks the parent to record the create as in flight, with the state, and waits until it
 * has; when the engine has its answer, it says so and the parent forgets it. A create recorded but
 * never answered (its host and the parent killed, the engine not) may have run: the parent's
 * next run names it among the run's suspects, and the host answers a suspect's create with the
 * outcome-unknown record it is given instead of calling the provider, so it never runs twice.
 */
import { createHash } from "node:crypto";
import { z } from "zod";

/** A create in flight: its URN and a digest of what it was asked to do. */
export const inFlightCreate = z.strictObject({
  urn: z.string().min(1),
  /** sha256 (hex) of the create's inputs but the provider text and the wait bound (inputsDigest). */
  inputs: z.string().regex(/^[0-9a-f]{64}$/),
});
export type InFlightCreate = z.infer<typeof inFlightCreate>;

/** What a run guards: the types, and the creates an earlier run may have started. */
export const createGuard = z.strictObject({
  /** By type token: the outputs recorded (beside the inputs) when the outcome is unknown. */
  types: z.record(z.string(), z.record(z.string(), z.string())),
  /** The id recorded when the outcome is unknown. */
  unknownId: z.string().min(1),
  suspects: z.array(z.strictObject({ create: inFlightCreate, note: z.string() })),
});
export type CreateGuardSpec = z.infer<typeof createGuard>;

const id = z.number().int();

export const hostRequest = z.discriminatedUnion("kind", [
  /** Serve one engine run: its engine attaches to the port in the answer. */
  z.strictObject({ kind: z.literal("open"), id, project: z.string(), guard: createGuard.optional() }),
  /** The run ended: stop serving its port. */
  z.strictObject({ kind: z.literal("close"), id }),
  /** The parent recorded the create `call` of run `id` as in flight (or could not: `error`). */
  z.strictObject({ kind: z.literal("recorded"), id, call: id, error: z.string().optional() }),
]);
export type HostRequest = z.infer<typeof hostRequest>;

export const hostAnswer = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("opened"), id, port: z.number().int().positive() }),
  z.strictObject({ kind: z.literal("failed"), id, message: z.string() }),
  /** Record this create of run `id` as in flight before it starts; answer with `recorded`. */
  z.strictObject({ kind: z.literal("in-flight"), id, call: id, create: inFlightCreate }),
  /** The engine has the create's answer: forget it. */
  z.strictObject({ kind: z.literal("answered"), id, create: inFlightCreate }),
]);
export type HostAnswer = z.infer<typeof hostAnswer>;

/** The argument that starts main.ts as a shared host instead of one engine's plugin. */
export const SHARED_FLAG = "--shared";

/** The inputs that do not change what a create does: the provider text, the wait bound. */
const NOT_DIGESTED = new Set(["__provider", "timeout_seconds"]);

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => [k, canonical(v)]),
  );
}

/** The digest of a create's inputs that identifies it among suspects (the same inputs, any key order). */
export function inputsDigest(inputs: Readonly<Record<string, unknown>>): string {
  const kept = Object.fromEntries(Object.entries(inputs).filter(([k]) => !NOT_DIGESTED.has(k)));
  return createHash("sha256")
    .update(JSON.stringify(canonical(kept)))
    .digest("hex");
}
