import type { FastifyInstance } from "fastify";
import { CreateFetchRequest, LockRequest } from "../../api";
import { type Deps, callerOf, parseBody, numericParam, send } from "../context";
import { ENV, type EnvParams, STACK, type StackIdParams, type StackParams } from "./paths";

/** Endpoints 6 and 7 (git fetches) and 20 and 21 (environment locks). */
export function registerLocksAndFetches(app: FastifyInstance, deps: Deps): void {
  const { engine, docs } = deps;
  const { access, fetches, locks } = engine;

  // 6
  app.post<StackParams>(`${STACK}/git/fetches`, (request, reply) => {
    const caller = callerOf(request);
    if (request.body !== undefined) parseBody(deps, request, CreateFetchRequest);
    const f = fetches.create(caller, request.params.stack);
    return send(reply, 202, { data: docs(request).fetch(f) });
  });

  // 7
  app.get<StackIdParams>(`${STACK}/git/fetches/:id`, (request, reply) => {
    access.stack(callerOf(request), request.params.stack);
    const f = fetches.in(request.params.stack, numericParam(request.params.id, "fetch_id"));
    return send(reply, 200, { data: docs(request).fetch(f) });
  });

  // 20
  app.post<EnvParams>(`${ENV}/lock`, (request, reply) => {
    const caller = callerOf(request);
    const { stack, env } = request.params;
    access.env(caller, stack, env);
    const body = request.body === undefined ? {} : parseBody(deps, request, LockRequest);
    locks.lock(caller, stack, env, body.lock_message ?? "");
    return send(reply, 202, { data: docs(request).lock(stack, env) });
  });

  // 21
  app.delete<EnvParams>(`${ENV}/lock`, (request, reply) => {
    locks.unlock(callerOf(request), request.params.stack, request.params.env);
    return send(reply, 204);
  });
}
