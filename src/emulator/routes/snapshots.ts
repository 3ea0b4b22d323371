import type { FastifyInstance } from "fastify";
import { CreateSnapshotRequest, RestoreSnapshotRequest } from "../../api";
import { type Deps, callerOf, parseBody, numericParam, send } from "../context";
import { STACK, type StackIdParams, type StackParams } from "./paths";

/** Endpoints 14 to 19: list, create, view, restore and delete snapshots; view a transfer. */
export function registerSnapshots(app: FastifyInstance, deps: Deps): void {
  const { engine, docs, store } = deps;
  const { access, snapshots } = engine;

  // 14
  app.get<StackParams>(`${STACK}/snapshots`, (request, reply) => {
    const { stack } = request.params;
    access.stack(callerOf(request), stack);
    const list = [...store.snapshots.values()]
      .filter((s) => s.stack === stack)
      .sort((a, b) => b.id - a.id)
      .map((s) => docs(request).snapshotListItem(s));
    return send(reply, 200, { data: list });
  });

  // 15
  app.post<StackParams>(`${STACK}/snapshots`, (request, reply) => {
    const caller = callerOf(request);
    access.stack(caller, request.params.stack);
    const body = parseBody(deps, request, CreateSnapshotRequest);
    const t = snapshots.create(caller, request.params.stack, body);
    return send(reply, 202, { data: docs(request).transfer(t) });
  });

  // 19
  app.get<StackIdParams>(`${STACK}/snapshots/transfer/:id`, (request, reply) => {
    access.stack(callerOf(request), request.params.stack);
    const t = snapshots.transferIn(request.params.stack, numericParam(request.params.id, "transfer_id"));
    return send(reply, 200, { data: docs(request).transfer(t) });
  });

  // The transfer's log (the platform has it; the spec does not list it).
  app.get<StackIdParams>(`${STACK}/snapshots/transfer/:id/log`, (request, reply) => {
    access.stack(callerOf(request), request.params.stack);
    const t = snapshots.transferIn(request.params.stack, numericParam(request.params.id, "transfer_id"));
    return send(reply, 200, docs(request).transferLog(t));
  });

  // 16
  app.get<StackIdParams>(`${STACK}/snapshots/:id`, (request, reply) => {
    access.stack(callerOf(request), request.params.stack);
    const s = snapshots.in(request.params.stack, numericParam(request.params.id, "snapshot_id"));
    return send(reply, 200, { data: docs(request).snapshot(s) });
  });

  // 17
  app.post<StackIdParams>(`${STACK}/snapshots/:id`, (request, reply) => {
    const caller = callerOf(request);
    const { stack } = request.params;
    access.stack(caller, stack);
    const id = numericParam(request.params.id, "snapshot_id");
    snapshots.in(stack, id);
    const body = parseBody(deps, request, RestoreSnapshotRequest);
    const t = snapshots.restore(caller, stack, id, body);
    return send(reply, 202, { data: docs(request).transfer(t) });
  });

  // 18
  app.delete<StackIdParams>(`${STACK}/snapshots/:id`, (request, reply) => {
    const caller = callerOf(request);
    snapshots.delete(caller, request.params.stack, numericParam(request.params.id, "snapshot_id"));
    return send(reply, 204);
  });
}
