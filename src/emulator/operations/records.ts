import { HttpError } from "../errors";
import type { RecordRecord } from "../model";
import type { SeedRecord } from "../seed";
import { recordKey } from "../seed-records";
import type { Store } from "../store";

/** The platform's wording for an action a class does not offer. */
export function actionMissing(action: string, cls: string): HttpError {
  return new HttpError(404, `Action '${action}' isn't available on class ${cls}.`);
}

/** Generic records of the `/api/v1` interface: read one, run one of its methods. */
export class Records {
  constructor(private readonly store: Store) {}

  /** Record `idText` of class `cls`; `action` names the operation for the "not available" answer. */
  find(cls: string, idText: string, action: string): { seed: SeedRecord; live: RecordRecord } {
    const known = this.store.seed.records.find((r) => r.class === cls && r.api_access);
    if (known === undefined) throw new HttpError(404, `Class '${cls}' isn't available through the API.`);
    if (!/^\d{1,15}$/.test(idText)) throw actionMissing(action === "" ? idText : action, cls);
    const id = Number(idText);
    const seed = this.store.seedRecords.get(recordKey(cls, id));
    const live = this.store.records.get(recordKey(cls, id));
    if (seed === undefined || live === undefined || !seed.api_access) {
      throw new HttpError(404, `Record ${cls} #${id} not found.`);
    }
    return { seed, live };
  }

  /** Runs `method` on the record: its `set` fields overwrite the record's. */
  run(cls: string, idText: string, method: string): RecordRecord {
    const { seed, live } = this.find(cls, idText, method);
    const def = seed.methods.find((m) => (typeof m === "string" ? m : m.name) === method);
    if (def === undefined) throw actionMissing(method, cls);
    const set = typeof def === "string" ? {} : def.set;
    const next = { ...live, fields: { ...live.fields, ...set } };
    this.store.tx(() => this.store.saveRecord(next));
    return next;
  }
}
