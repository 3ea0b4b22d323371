import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { type Deps, send } from "../context";
import { parseWith } from "../errors";
import { FaultSpec } from "../faults";

type EnvParams = { Params: { stack: string; env: string } };
type EnvIdParams = { Params: { stack: string; env: string; id: string } };

const Reason = z.string().min(1).max(500);
/**
 * What the next deployment (next-outcome) or transfer (next-transfer-outcome) of an environment
 * does: fail, with `reason` in its log, or stall for `ms` before its first step.
 */
const ScriptedOutcome = z
  .strictObject({
    outcome: z.enum(["fail", "stall"]),
    ms: z.number().int().min(1).max(600_000).optional(),
    reason: Reason.optional(),
  })
  .superRefine((v, ctx) => {
    if (v.reason !== undefined && v.outcome !== "fail") {
      ctx.addIssue({ code: "custom", path: ["reason"], message: "is only allowed with outcome 'fail'" });
    }
    if ((v.outcome === "stall") !== (v.ms !== undefined)) {
      ctx.addIssue({
        code: "custom",
        path: ["ms"],
        message: "is required with outcome 'stall' and only then",
      });
    }
  });
const HandDeploy = z.strictObject({
  sha: z.string().regex(/^[0-9a-f]{40}$/, "expected a 40-character lowercase hex commit hash"),
  /** The branch or tag the person picked in the dashboard (default: the sha itself). */
  ref_type: z.enum(["sha", "branch", "tag"]).optional(),
  ref: z.string().min(1).optional(),
});
const Empty = z.strictObject({});
const Reject = z.strictObject({ reason: Reason.optional() });
const NextFetchOutcome = z.strictObject({ outcome: z.literal("fail") });

const HOOK_ENV = "/_emulator/project/:stack/environment/:env";

/**
 * Test hooks under /_emulator/ (loopback only, JSON, unknown fields rejected). They are not part
 * of the platform: they do what a person would do in the dashboard, script outcomes and faults.
 */
export function registerHooks(app: FastifyInstance, deps: Deps): void {
  const { engine, docs, faults, log } = deps;
  const noBody = (body: unknown) => {
    if (body !== undefined) parseWith(Empty, body, "request body");
  };
  const id = (text: string) => {
    if (!/^\d{1,15}$/.test(text)) {
      return parseWith(z.strictObject({ id: z.number() }), { id: text }, "path");
    }
    return { id: Number(text) };
  };

  app.post("/_emulator/reset", (request, reply) => {
    noBody(request.body);
    deps.reset();
    return send(reply, 204);
  });

  app.get("/_emulator/requests", (_request, reply) => send(reply, 200, { requests: log.list() }));
  app.delete("/_emulator/requests", (_request, reply) => {
    log.clear();
    return send(reply, 204);
  });

  app.post("/_emulator/faults", (request, reply) => {
    const spec = parseWith(FaultSpec, request.body, "request body");
    const fault = faults.add(spec);
    return send(reply, 201, { id: fault.id });
  });
  app.delete("/_emulator/faults", (_request, reply) => {
    faults.clear();
    return send(reply, 204);
  });

  for (const verdict of ["approve", "reject"] as const) {
    app.post<EnvIdParams>(`${HOOK_ENV}/deploys/:id/${verdict}`, (request, reply) => {
      let reason: string | undefined;
      if (verdict === "approve") noBody(request.body);
      else if (request.body !== undefined) reason = parseWith(Reject, request.body, "request body").reason;
      const { stack, env } = request.params;
      const d = engine.deployments.review(stack, env, id(request.params.id).id, verdict, reason);
      return send(reply, 200, { data: docs(request).deployment(d, { version: "2.0" }) });
    });
  }

  app.post<EnvParams>(`${HOOK_ENV}/next-outcome`, (request, reply) => {
    const body = parseWith(ScriptedOutcome, request.body, "request body");
    const { stack, env } = request.params;
    if (body.outcome === "fail") engine.deployments.scriptNextOutcome(stack, env, "fail", body.reason);
    else engine.deployments.stallNext(stack, env, body.ms ?? 1);
    return send(reply, 204);
  });

  app.post<EnvParams>(`${HOOK_ENV}/next-transfer-outcome`, (request, reply) => {
    const body = parseWith(ScriptedOutcome, request.body, "request body");
    const { stack, env } = request.params;
    if (body.outcome === "stall") engine.snapshots.stallNext(stack, env, body.ms ?? 1);
    else
      engine.snapshots.scriptNextFailure(
        stack,
        env,
        body.reason ?? "scripted failure (next-transfer-outcome hook)",
      );
    return send(reply, 204);
  });

  app.post<{ Params: { stack: string } }>(
    "/_emulator/project/:stack/next-fetch-outcome",
    (request, reply) => {
      parseWith(NextFetchOutcome, request.body, "request body");
      engine.fetches.scriptNextFailure(request.params.stack);
      return send(reply, 204);
    },
  );

  // Read-only views for property tests: what the platform holds, with no API request logged.
  app.get<EnvParams>(`${HOOK_ENV}/lock`, (request, reply) => {
    const { live } = engine.access.envContext(request.params.stack, request.params.env);
    return send(reply, 200, { locked: live.locked, lock_message: live.lock_message });
  });
  app.get<{ Params: { stack: string } }>("/_emulator/project/:stack/transfers", (request, reply) => {
    const transfers = [...deps.store.transfers.values()].filter((t) => t.stack === request.params.stack);
    return send(reply, 200, { transfers });
  });

  app.post<EnvParams>(`${HOOK_ENV}/hand-deploy`, (request, reply) => {
    const body = parseWith(HandDeploy, request.body, "request body");
    const d = engine.deployments.handDeploy(request.params.stack, request.params.env, body.sha, {
      ref_type: body.ref_type ?? "sha",
      ref: body.ref ?? body.sha,
    });
    return send(reply, 201, { data: docs(request).deployment(d, { version: "2.0" }) });
  });
}
