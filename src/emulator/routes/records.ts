import type { FastifyInstance, FastifyRequest } from "fastify";
import type { RecordDocumentInput, RecordMethodResultInput } from "../../api";
import { type Deps, callerOf, send } from "../context";
import { actionMissing } from "../operations/records";

/**
 * The generic record server: GET a record and POST a method on it; every other operation answers
 * as an action that does not exist (spec: "Implemented: no").
 */
export function registerRecords(app: FastifyInstance, deps: Deps): void {
  const { records } = deps.engine;

  const recordDoc = (cls: string, id: number, fields: Record<string, unknown>): RecordDocumentInput => ({
    ...fields,
    ID: id,
    ClassName: cls,
  });

  app.get<{ Params: { cls: string; id: string } }>("/api/v1/:cls/:id", (request, reply) => {
    callerOf(request);
    const { live } = records.find(request.params.cls, request.params.id, "");
    return send(reply, 200, recordDoc(live.class, live.id, live.fields));
  });

  app.post<{ Params: { cls: string; id: string; method: string } }>(
    "/api/v1/:cls/:id/:method",
    (request, reply) => {
      callerOf(request);
      const { cls, id, method } = request.params;
      const done = records.run(cls, id, method);
      const result: RecordMethodResultInput = {
        method,
        result: "ok",
        record: recordDoc(done.class, done.id, done.fields),
      };
      return send(reply, 200, result);
    },
  );

  // Everything else under /api/v1: an action the class does not offer.
  const notImplemented = (request: FastifyRequest<{ Params: { "*": string } }>) => {
    callerOf(request);
    const parts =
      request.params["*"]
        .split("?")[0]
        ?.split("/")
        .filter((p) => p !== "") ?? [];
    const [cls = "", id, relation] = parts;
    const action =
      relation ??
      (id === undefined
        ? "search"
        : request.method === "PUT" || request.method === "PATCH"
          ? "update"
          : request.method === "DELETE"
            ? "delete"
            : request.method.toLowerCase());
    throw actionMissing(action, cls === "" ? "(none)" : cls);
  };
  app.route<{ Params: { "*": string } }>({
    method: ["GET", "POST", "PUT", "PATCH", "DELETE"],
    url: "/api/v1/*",
    handler: (request) => notImplemented(request),
  });
}
