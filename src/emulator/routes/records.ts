import type { FastifyInstance, FastifyRequest } from "fastify";
import type { RecordDocumentInput, RecordMethodResultInput } from "../../api";
import { type Deps, callerOf, send } from "../context";
import { HttpError } from "../errors";
import { recordKey } from "../store";

/** The platform's wording for an action a class does not offer. */
function actionMissing(action: string, cls: string): HttpError {
  return new HttpError(404, `Action '${action}' isn't available on class ${cls}.`);
}

/**
 * The generic record server: GET a record and POST a method on it; every other operation answers
 * as an action that does not exist (spec: "Implemented: no").
 */
export function registerRecords(app: FastifyInstance, deps: Deps): void {
  const { store } = deps;

  const seedRecord = (cls: string, idText: string, action: string) => {
    const known = store.seed.records.find((r) => r.class === cls && r.api_access);
    if (known === undefined) throw new HttpError(404, `Class '${cls}' isn't available through the API.`);
    if (!/^\d{1,15}$/.test(idText)) throw actionMissing(action === "" ? idText : action, cls);
    const id = Number(idText);
    const seed = store.seedRecords.get(recordKey(cls, id));
    const live = store.records.get(recordKey(cls, id));
    if (seed === undefined || live === undefined || !seed.api_access) {
      throw new HttpError(404, `Record ${cls} #${id} not found.`);
    }
    return { seed, live };
  };

  const recordDoc = (cls: string, id: number, fields: Record<string, unknown>): RecordDocumentInput => ({
    ...fields,
    ID: id,
    ClassName: cls,
  });

  app.get<{ Params: { cls: string; id: string } }>("/api/v1/:cls/:id", (request, reply) => {
    callerOf(request);
    const { live } = seedRecord(request.params.cls, request.params.id, "");
    return send(reply, 200, recordDoc(live.class, live.id, live.fields));
  });

  app.post<{ Params: { cls: string; id: string; method: string } }>(
    "/api/v1/:cls/:id/:method",
    (request, reply) => {
      callerOf(request);
      const { cls, id, method } = request.params;
      const { seed, live } = seedRecord(cls, id, method);
      const def = seed.methods.find((m) => (typeof m === "string" ? m : m.name) === method);
      if (def === undefined) throw actionMissing(method, cls);
      const set = typeof def === "string" ? {} : def.set;
      const fields = { ...live.fields, ...set };
      store.tx(() => store.saveRecord({ ...live, fields }));
      const result: RecordMethodResultInput = {
        method,
        result: "ok",
        record: recordDoc(live.class, live.id, fields),
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
