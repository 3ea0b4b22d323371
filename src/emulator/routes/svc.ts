import type { FastifyInstance } from "fastify";
import {
  CreateDeploymentRequest,
  CreateFetchRequest,
  CreateSnapshotRequest,
  DeploymentIdRequest,
  DeploymentListQuery,
  LockRequest,
  ModuleListQuery,
  RestoreSnapshotRequest,
  type DeploymentInput,
} from "../../api";
import { type Deps, callerOf, numericParam, send, versionOf } from "../context";
import { HttpError, parseWith } from "../errors";
import type { DeploymentRecord } from "../model";
import { formatDateTime, nowUnix } from "../time";

type StackParams = { Params: { stack: string } };
type EnvParams = { Params: { stack: string; env: string } };
type EnvIdParams = { Params: { stack: string; env: string; id: string } };
type StackIdParams = { Params: { stack: string; id: string } };

const ENV = "/svc/project/:stack/environment/:env";

function serverMeta() {
  return { server_time: String(nowUnix()), status_code: 200 };
}

/** `filters` of endpoint 5 as `filters=a&filters=b`, `filters[]=a`, `filters[0]=a` or `filters=a,b`. */
function moduleFilters(query: unknown): string[] | undefined {
  if (query === null || typeof query !== "object") return undefined;
  const entries = Object.entries(query);
  const bad = entries.filter(([k]) => !/^filters(\[\d*\])?$/.test(k)).map(([k]) => `'${k}'`);
  if (bad.length > 0)
    throw new HttpError(400, `Unknown query parameter ${bad.join(", ")} (allowed: filters)`);
  if (entries.length === 0) return undefined;
  const values: unknown[] = entries.flatMap(([, v]) => (Array.isArray(v) ? (v as unknown[]) : [v]));
  const names = values.flatMap((v) => (typeof v === "string" ? v.split(",") : [v]));
  const parsed = parseWith(ModuleListQuery, { filters: names.filter((n) => n !== "") }, "query");
  return parsed.filters;
}

function matchesText(value: string, wanted: string | undefined): boolean {
  return wanted === undefined || value.toLowerCase().includes(wanted.toLowerCase());
}

/** Registers the 26 endpoints of the main interface. */
export function registerSvc(app: FastifyInstance, deps: Deps): void {
  const { engine, docs, store } = deps;

  const deploymentDoc = (d: DeploymentRecord, version: "1.0" | "2.0", changes: boolean): DeploymentInput =>
    docs.deployment(d, { version, changes });

  // 1
  app.get("/svc/meta", (request, reply) => {
    const caller = callerOf(request);
    return send(reply, 200, { meta: { whoami: caller.email, now: formatDateTime(nowUnix()) } });
  });

  // 2
  app.get("/svc/projects", (request, reply) => {
    const caller = callerOf(request);
    const visible = [...store.stacks.keys()].filter((s) => store.role(s, caller.email) !== undefined);
    return send(reply, 200, { data: visible.map((s) => docs.stack(s, false)) });
  });

  // 3
  app.get<StackParams>("/svc/project/:stack", (request, reply) => {
    engine.stackRole(callerOf(request), request.params.stack);
    return send(reply, 200, { data: docs.stack(request.params.stack, true) });
  });

  // 5
  app.get<EnvParams>(`${ENV}/modules`, (request, reply) => {
    const filters = moduleFilters(request.query);
    const { stack, env } = request.params;
    engine.stackRole(callerOf(request), stack);
    engine.envContext(stack, env);
    return send(reply, 200, { data: docs.modules(stack, env, filters), meta: serverMeta() });
  });

  // 6
  app.post<StackParams>("/svc/project/:stack/git/fetches", (request, reply) => {
    const caller = callerOf(request);
    if (request.body !== undefined) parseWith(CreateFetchRequest, request.body, "request body");
    const f = engine.createFetch(caller, request.params.stack);
    return send(reply, 202, { data: docs.fetch(f) });
  });

  // 7
  app.get<StackIdParams>("/svc/project/:stack/git/fetches/:id", (request, reply) => {
    engine.stackRole(callerOf(request), request.params.stack);
    const f = engine.fetchIn(request.params.stack, numericParam(request.params.id, "fetch_id"));
    return send(reply, 200, { data: docs.fetch(f) });
  });

  // 8
  app.get<EnvParams>(`${ENV}/deploys`, (request, reply) => {
    const caller = callerOf(request);
    const { stack, env } = request.params;
    engine.stackRole(caller, stack);
    engine.envContext(stack, env);
    const q = parseWith(DeploymentListQuery, request.query ?? {}, "query");
    const version = versionOf(request);
    const list = [...store.deployments.values()]
      .filter((d) => d.stack === stack && d.env === env)
      // Deleted is a soft delete: hidden unless asked for by state.
      .filter((d) => (q.state === undefined ? d.state !== "Deleted" : d.state === q.state))
      .filter((d) => q.deployer_email === undefined || d.deployer === q.deployer_email.toLowerCase())
      .filter((d) => q.lastedited_from_unix === undefined || d.updated >= q.lastedited_from_unix)
      .filter(
        (d) =>
          q.datestarted_from_unix === undefined || (d.started > 0 && d.started >= q.datestarted_from_unix),
      )
      .filter(
        (d) => q.datestarted_to_unix === undefined || (d.started > 0 && d.started <= q.datestarted_to_unix),
      )
      .filter((d) => matchesText(d.title, q.title) && matchesText(d.summary, q.summary))
      .sort((a, b) => b.id - a.id)
      .map((d) => docs.deployment(d, { version, relationships: true }));
    return send(reply, 200, { data: list });
  });

  // 9
  app.post<EnvParams>(`${ENV}/deploys`, (request, reply) => {
    const caller = callerOf(request);
    const { stack, env } = request.params;
    engine.stackRole(caller, stack);
    engine.envContext(stack, env);
    const body = parseWith(CreateDeploymentRequest, request.body, "request body");
    const d = engine.createDeployment(caller, stack, env, body);
    return send(reply, 201, { data: deploymentDoc(d, versionOf(request), true) });
  });

  // 12, 13
  for (const [action, move] of [
    ["start", engine.startDeployment.bind(engine)],
    ["invalidate", engine.invalidateDeployment.bind(engine)],
  ] as const) {
    app.post<EnvParams>(`${ENV}/deploys/${action}`, (request, reply) => {
      const caller = callerOf(request);
      const { stack, env } = request.params;
      engine.stackRole(caller, stack);
      engine.envContext(stack, env);
      const body = parseWith(DeploymentIdRequest, request.body, "request body");
      const d = move(caller, stack, env, body.id);
      return send(reply, 200, { data: deploymentDoc(d, versionOf(request), true) });
    });
  }

  // 10
  app.get<EnvIdParams>(`${ENV}/deploys/:id`, (request, reply) => {
    const { stack, env, id } = request.params;
    engine.stackRole(callerOf(request), stack);
    const ctx = engine.envContext(stack, env);
    const d = engine.deploymentIn(ctx, numericParam(id, "deployment_id"));
    return send(reply, 200, { data: deploymentDoc(d, versionOf(request), false) });
  });

  // 11
  app.delete<EnvIdParams>(`${ENV}/deploys/:id`, (request, reply) => {
    const { stack, env, id } = request.params;
    engine.deleteDeployment(callerOf(request), stack, env, numericParam(id, "deployment_id"));
    return send(reply, 204);
  });

  // 14
  app.get<StackParams>("/svc/project/:stack/snapshots", (request, reply) => {
    const { stack } = request.params;
    engine.stackRole(callerOf(request), stack);
    const list = [...store.snapshots.values()]
      .filter((s) => s.stack === stack)
      .sort((a, b) => b.id - a.id)
      .map((s) => docs.snapshotListItem(s));
    return send(reply, 200, { data: list });
  });

  // 15
  app.post<StackParams>("/svc/project/:stack/snapshots", (request, reply) => {
    const caller = callerOf(request);
    engine.stackRole(caller, request.params.stack);
    const body = parseWith(CreateSnapshotRequest, request.body, "request body");
    const t = engine.createSnapshot(caller, request.params.stack, body);
    return send(reply, 202, { data: docs.transfer(t) });
  });

  // 19
  app.get<StackIdParams>("/svc/project/:stack/snapshots/transfer/:id", (request, reply) => {
    engine.stackRole(callerOf(request), request.params.stack);
    const t = engine.transferIn(request.params.stack, numericParam(request.params.id, "transfer_id"));
    return send(reply, 200, { data: docs.transfer(t) });
  });

  // 16
  app.get<StackIdParams>("/svc/project/:stack/snapshots/:id", (request, reply) => {
    engine.stackRole(callerOf(request), request.params.stack);
    const s = engine.snapshotIn(request.params.stack, numericParam(request.params.id, "snapshot_id"));
    return send(reply, 200, { data: docs.snapshot(s) });
  });

  // 17
  app.post<StackIdParams>("/svc/project/:stack/snapshots/:id", (request, reply) => {
    const caller = callerOf(request);
    const { stack } = request.params;
    engine.stackRole(caller, stack);
    const id = numericParam(request.params.id, "snapshot_id");
    engine.snapshotIn(stack, id);
    const body = parseWith(RestoreSnapshotRequest, request.body, "request body");
    const t = engine.restoreSnapshot(caller, stack, id, body);
    return send(reply, 202, { data: docs.transfer(t) });
  });

  // 18
  app.delete<StackIdParams>("/svc/project/:stack/snapshots/:id", (request, reply) => {
    engine.deleteSnapshot(
      callerOf(request),
      request.params.stack,
      numericParam(request.params.id, "snapshot_id"),
    );
    return send(reply, 204);
  });

  // 20
  app.post<EnvParams>(`${ENV}/lock`, (request, reply) => {
    const caller = callerOf(request);
    const { stack, env } = request.params;
    engine.stackRole(caller, stack);
    engine.envContext(stack, env);
    const body = request.body === undefined ? {} : parseWith(LockRequest, request.body, "request body");
    engine.lock(caller, stack, env, body.lock_message ?? "");
    return send(reply, 202, { data: docs.lock(stack, env) });
  });

  // 21
  app.delete<EnvParams>(`${ENV}/lock`, (request, reply) => {
    engine.unlock(callerOf(request), request.params.stack, request.params.env);
    return send(reply, 204);
  });

  // 22
  app.get<StackParams>("/svc/project/:stack/team", (request, reply) => {
    engine.stackRole(callerOf(request), request.params.stack);
    return send(reply, 200, { data: docs.team(request.params.stack) });
  });

  // 4, 23, 24, 26: one document about an environment the caller can see
  const envDocuments: [path: string, document: (stack: string, env: string) => unknown][] = [
    [ENV, (s, e) => ({ data: docs.environment(s, e) })],
    [`${ENV}/domains`, (s, e) => ({ data: docs.domains(s, e) })],
    [`${ENV}/configuration`, (s, e) => ({ data: docs.configuration(s, e) })],
    [`${ENV}/whitelist`, (s, e) => ({ data: docs.whitelist(s, e), meta: serverMeta() })],
  ];
  for (const [path, document] of envDocuments) {
    app.get<EnvParams>(path, (request, reply) => {
      const { stack, env } = request.params;
      engine.stackRole(callerOf(request), stack);
      engine.envContext(stack, env);
      return send(reply, 200, document(stack, env));
    });
  }

  // 25
  app.get("/svc/manifestreleases", (request, reply) => {
    callerOf(request);
    return send(reply, 200, { data: docs.manifestReleases() });
  });
}
