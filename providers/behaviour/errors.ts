/**
 * Errors the providers throw to the engine. Messages name the resource, what happened and what to
 * do next; they are built from our structured errors, which never carry a token.
 */
import { ApiError } from "../../src/client";
import { ProviderError, refusal } from "../shared/errors";

export { ProviderError, refusal };

/**
 * The error shape the SDK's dynamic-provider host turns into "created but failed to
 * initialize" (gRPC `ErrorResourceInitFailed`): the engine records `id` and `properties` in the
 * state, so the next run knows the object exists. `properties` must carry `__provider` itself,
 * because the host does not add it on this path.
 */
export class InitError extends Error {
  readonly id: string;
  readonly properties: Record<string, unknown>;
  readonly reasons: string[];
  constructor(message: string, id: string, properties: Record<string, unknown>) {
    super(message);
    this.name = "InitError";
    this.id = id;
    this.properties = properties;
    this.reasons = [message];
  }
}

/** `"<what>: <cause message> [code]"`, for any thrown value, never more than the message. */
export function describe(what: string, error: unknown): string {
  if (ApiError.isInstance(error)) return `${what}: ${error.message} [${error.code}]`;
  if (ProviderError.isInstance(error)) return `${what}: ${error.message} [${error.code}]`;
  if (error instanceof Error) return `${what}: ${error.message}`;
  return `${what}: ${String(error)}`;
}

/** Wraps any failure into a ProviderError whose message starts with `what`; InitErrors pass through. */
export function wrap(what: string, error: unknown): Error {
  if (error instanceof InitError) return error;
  const code =
    ApiError.isInstance(error) || ProviderError.isInstance(error) ? error.code : "STACKWRIGHT_PROVIDER";
  return new ProviderError(code, describe(what, error));
}
