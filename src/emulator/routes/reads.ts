import type { FastifyInstance } from "fastify";
import { ModuleListQuery } from "../../api";
import { type Deps, callerOf, send } from "../context";
import { HttpError, parseWith } from "../errors";
import type { Documents } from "../documents";
import { formatDateTime, nowUnix } from "../time";
import { ENV, type EnvParams, STACK, type StackParams, serverMeta } from "./paths";

/** `filters` of endpoint 5 as `filters=a&filters=b`, `filters[]=a`, `filters[0]=a` or `filters=a,b`. */
function moduleFilters(query: unknown): string[] | undefined {
  if (query === null || typeof query !== "object") return undefined;
  const entries = Object.entries(query);
  const bad = entries.filter(([k]) => !/^filters(\[\d*\])?$/.test(k)).map(([k]) => `'${k}'`);
  if (bad.length > 0)
    throw new HttpError(400, `Unknown query parameter ${bad.join(", ")} (allowed: filters)`);
  if (entries.length === 0) return undefined;
  const values = entries.flatMap(([, v]): unknown[] => (Array.isArray(v) ? v : [v]));
  const names = values.flatMap((v) => (typeof v === "string" ? v.split(",") : [v]));
  const parsed = parseWith(ModuleListQuery, { filters: names.filter((n) => n !== "") }, "query");
  return parsed.filters;
}

/** The read-only endpoints: who am I, stacks, environments and what they hold, team, releases. */
export function registerReads(app: FastifyInstance, deps: Deps): void {
  const { engine, docs, store } = deps;
  const { access } = engine;

  // 1
  app.get("/svc/meta", (request, reply) => {
    const caller = callerOf(request);
    return send(reply, 200, { meta: { whoami: caller.email, now: formatDateTime(nowUnix()) } });
  });

  // 2
  app.get("/svc/projects", (request, reply) => {
    const caller = callerOf(request);
    const visible = [...store.stacks.keys()].filter((s) => store.role(s, caller.email) !== undefined);
    return send(reply, 200, { data: visible.map((s) => docs(request).stack(s, false)) });
  });

  // 3
  app.get<StackParams>(STACK, (request, reply) => {
    access.stack(callerOf(request), request.params.stack);
    return send(reply, 200, { data: docs(request).stack(request.params.stack, true) });
  });

  // 5
  app.get<EnvParams>(`${ENV}/modules`, (request, reply) => {
    const filters = moduleFilters(request.query);
    const { stack, env } = request.params;
    access.env(callerOf(request), stack, env);
    return send(reply, 200, { data: docs(request).modules(stack, env, filters), meta: serverMeta() });
  });

  // 22
  app.get<StackParams>(`${STACK}/team`, (request, reply) => {
    access.stack(callerOf(request), request.params.stack);
    return send(reply, 200, { data: docs(request).team(request.params.stack) });
  });

  // 4, 23, 24, 26: one document about an environment the caller can see
  const envDocuments: [path: string, document: (docs: Documents, stack: string, env: string) => unknown][] = [
    [ENV, (d, s, e) => ({ data: d.environment(s, e) })],
    [`${ENV}/domains`, (d, s, e) => ({ data: d.domains(s, e) })],
    [`${ENV}/configuration`, (d, s, e) => ({ data: d.configuration(s, e) })],
    [`${ENV}/whitelist`, (d, s, e) => ({ data: d.whitelist(s, e), meta: serverMeta() })],
  ];
  for (const [path, document] of envDocuments) {
    app.get<EnvParams>(path, (request, reply) => {
      const { stack, env } = request.params;
      access.env(callerOf(request), stack, env);
      return send(reply, 200, document(docs(request), stack, env));
    });
  }

  // 25
  app.get("/svc/manifestreleases", (request, reply) => {
    callerOf(request);
    return send(reply, 200, { data: docs(request).manifestReleases() });
  });
}
