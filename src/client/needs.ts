/**
 * What a consumer needs of a tolerant read. The client reads every document with the read view of
 * `src/api` (members left out or `null` are fine); a consumer that makes a decision on a value
 * (a deployment's `state`, its `sha` when drift is judged) states it here and gets the value
 * typed as present, or one {@link UnexpectedResponseError} that names the endpoint the resource
 * came from, the field, what was received, and why it was needed.
 */
import { UnexpectedResponseError, type ResponseContext } from "./errors";

/** Where a decoded resource came from: the response and its JSON path in that response. */
interface Origin extends ResponseContext {
  at: string;
}

const origins = new WeakMap<object, Origin>();

/** Remembers that `value` (a resource of a decoded document) was read at `at` of the response `ctx`. */
export function rememberOrigin(value: unknown, ctx: ResponseContext, at: string): void {
  if (typeof value === "object" && value !== null) origins.set(value, { ...ctx, at });
}

/** The resource with the attributes `K` present (neither missing nor null). */
export type WithAttributes<R extends { attributes: object }, K extends keyof R["attributes"]> = R & {
  attributes: { [P in K]-?: NonNullable<R["attributes"][P]> };
};

/**
 * Returns `resource` typed with `fields` present, or throws an UnexpectedResponseError such as
 * `GET /svc/project/acme-web/environment/uat/deploys/42 answered deployments 42 without
 * attributes.sha (received null): cannot tell which build runs on acme-web/uat`.
 * `purpose` completes the sentence after the colon: what cannot be done without the value.
 */
export function needAttributes<R extends { attributes: object }, K extends keyof R["attributes"] & string>(
  resource: R,
  fields: readonly K[],
  purpose: string,
): WithAttributes<R, K> {
  const attributes: Record<string, unknown> = { ...resource.attributes };
  for (const field of fields) {
    const value = attributes[field];
    if (value === undefined || value === null)
      throw missingValue(resource, `attributes.${field}`, value, purpose);
  }
  // Every field was just checked to be present.
  return resource as WithAttributes<R, K>;
}

/** The error of a value a decision needs that the response did not carry. */
export function missingValue(
  resource: object,
  field: string,
  received: unknown,
  purpose: string,
): UnexpectedResponseError {
  const origin = origins.get(resource);
  const what = describe(resource);
  const shown = received === undefined ? "nothing" : JSON.stringify(received);
  const where = origin === undefined ? `a response read earlier` : `${origin.method} ${origin.path}`;
  const answered = origin === undefined ? `${where} held` : `${where} answered`;
  const jsonPath = `${origin?.at ?? "$"}.${field}`;
  return new UnexpectedResponseError(`${answered} ${what} without ${field} (received ${shown}): ${purpose}`, {
    method: origin?.method,
    path: origin?.path,
    status: origin?.status,
    requestId: origin?.requestId,
    jsonPath,
    issues: [`${jsonPath}: needed, received ${shown}`],
  });
}

function describe(resource: object): string {
  const type: unknown = "type" in resource ? resource.type : undefined;
  const id: unknown = "id" in resource ? resource.id : undefined;
  if (typeof type !== "string") return "a document";
  return typeof id === "string" || typeof id === "number" ? `${type} ${String(id)}` : type;
}
