import type { FastifyReply, FastifyRequest } from "fastify";
import type { ApiVersion } from "../api";
import { MEDIA_TYPE, isNumericIdText } from "../api";
import type { Documents } from "./documents";
import type { Caller, Engine } from "./engine";
import type { z } from "zod";
import { HttpError, parseWith } from "./errors";
import type { Fault, Faults, LoggedRequest, RequestLog } from "./faults";
import type { Scheduler } from "./scheduler";
import type { Sites } from "./sites";
import type { Store } from "./store";

/** What the request hooks found out about a request: version, caller, log entry, pending fault. */
export interface RequestState {
  version: ApiVersion;
  caller: Caller | null;
  entry: (LoggedRequest & { done: boolean }) | null;
  after: Fault | null;
}

declare module "fastify" {
  interface FastifyRequest {
    emu: RequestState | null;
  }
}

/** Everything the routes need. */
export interface Deps {
  store: Store;
  engine: Engine;
  /** Documents whose absolute links start as the client called the server. */
  docs(request: FastifyRequest): Documents;
  faults: Faults;
  log: RequestLog;
  scheduler: Scheduler;
  /** How each environment's site answers (./sites.ts). */
  sites: Sites;
  /** Unknown request-body members are a 400 (strict) or ignored, as the platform does (tolerant). */
  strict: boolean;
  reset(): void;
}

/** Parses the request body with `schema`; unknown members are refused only in strict mode. */
export function parseBody<S extends z.ZodObject>(deps: Deps, request: FastifyRequest, schema: S): z.infer<S> {
  return parseWith(schema, request.body, "request body", { strict: deps.strict });
}

export function stateOf(request: FastifyRequest): RequestState {
  if (request.emu === null) throw new Error("request state missing (onRequest hook did not run)");
  return request.emu;
}

export function callerOf(request: FastifyRequest): Caller {
  const caller = stateOf(request).caller;
  if (caller === null) throw new HttpError(401, "Authentication required", { "www-authenticate": "Basic" });
  return caller;
}

export function versionOf(request: FastifyRequest): ApiVersion {
  return request.emu?.version ?? "2.0";
}

/** Sends a JSON:API document (or nothing, for 204). */
export function send(reply: FastifyReply, status: number, body?: unknown): FastifyReply {
  reply.code(status);
  if (body === undefined) return reply.send();
  // A Buffer keeps the media type exactly as set (JSON:API allows no charset parameter).
  reply.header("content-type", MEDIA_TYPE);
  return reply.send(Buffer.from(JSON.stringify(body)));
}

/** Parses a numeric path parameter (the id rule of `src/api/ids.ts`); anything else is a 400 naming it. */
export function numericParam(value: string, name: string): number {
  if (!isNumericIdText(value)) {
    throw new HttpError(400, `Invalid path parameter '${name}': '${value}' is not a number`);
  }
  return Number(value);
}
