import type { FastifyInstance } from "fastify";
import { CreateDeploymentRequest, DeploymentIdRequest, DeploymentListQuery } from "../../api";
import { type Deps, callerOf, parseBody, numericParam, send, versionOf } from "../context";
import { parseWith } from "../errors";
import { ENV, type EnvIdParams, type EnvParams } from "./paths";

function matchesText(value: string, wanted: string | undefined): boolean {
  return wanted === undefined || value.toLowerCase().includes(wanted.toLowerCase());
}

/** Endpoints 8 to 13: list, create, view, delete, start and invalidate deployments. */
export function registerDeployments(app: FastifyInstance, deps: Deps): void {
  const { engine, docs, store } = deps;
  const { access, deployments } = engine;

  // 8
  app.get<EnvParams>(`${ENV}/deploys`, (request, reply) => {
    const { stack, env } = request.params;
    access.env(callerOf(request), stack, env);
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
      .map((d) => docs(request).deploymentAnswer(d, { version, relationships: true }, "list"));
    return send(reply, 200, { data: list });
  });

  // 9
  app.post<EnvParams>(`${ENV}/deploys`, (request, reply) => {
    const caller = callerOf(request);
    const { stack, env } = request.params;
    access.env(caller, stack, env);
    const body = parseBody(deps, request, CreateDeploymentRequest);
    const d = deployments.create(caller, stack, env, body);
    return send(reply, 201, {
      data: docs(request).deploymentAnswer(d, { version: versionOf(request) }, "create"),
    });
  });

  // 12, 13
  for (const [action, move] of [
    ["start", deployments.start.bind(deployments)],
    ["invalidate", deployments.invalidate.bind(deployments)],
  ] as const) {
    app.post<EnvParams>(`${ENV}/deploys/${action}`, (request, reply) => {
      const caller = callerOf(request);
      const { stack, env } = request.params;
      access.env(caller, stack, env);
      const body = parseBody(deps, request, DeploymentIdRequest);
      const d = move(caller, stack, env, body.id);
      return send(reply, 200, {
        data: docs(request).deploymentAnswer(d, { version: versionOf(request) }, "create"),
      });
    });
  }

  // 10
  app.get<EnvIdParams>(`${ENV}/deploys/:id`, (request, reply) => {
    const { stack, env, id } = request.params;
    const ctx = access.env(callerOf(request), stack, env);
    const d = deployments.in(ctx, numericParam(id, "deployment_id"));
    return send(reply, 200, {
      data: docs(request).deploymentAnswer(d, { version: versionOf(request) }, "single"),
    });
  });

  // The deployment's log (the platform has it; the spec does not list it).
  app.get<EnvIdParams>(`${ENV}/deploys/log/:id`, (request, reply) => {
    const { stack, env, id } = request.params;
    const ctx = access.env(callerOf(request), stack, env);
    const d = deployments.in(ctx, numericParam(id, "deployment_id"));
    return send(reply, 200, docs(request).deploymentLog(d, versionOf(request)));
  });

  // 11
  app.delete<EnvIdParams>(`${ENV}/deploys/:id`, (request, reply) => {
    const { stack, env, id } = request.params;
    deployments.delete(callerOf(request), stack, env, numericParam(id, "deployment_id"));
    return send(reply, 204);
  });
}
