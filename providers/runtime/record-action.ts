/** RecordAction: runs a method on a record of the generic record server (`/api/v1`). */
import { z } from "zod";
import { RecordName } from "../../src/api";
import {
  changedKeys,
  checkWith,
  parseInputs,
  userInputs,
  type CheckResult,
  type DiffResult,
  type Props,
} from "./common";
import { wrap } from "./errors";
import { withClient } from "./settings";

/** Inputs of a RecordAction. */
export const RecordActionInputs = z.strictObject({
  class_name: RecordName,
  record_id: z
    .union([z.string().regex(/^[A-Za-z0-9_-]+$/, "expected a record id"), z.number().int()])
    .transform(String),
  method: RecordName,
  trigger: z.string().optional(),
});
export type RecordActionInputs = z.infer<typeof RecordActionInputs>;

const KEYS = ["class_name", "record_id", "method", "trigger"] as const;

/** Validates inputs; no API call. */
export function check(_olds: Props, news: Props): Promise<CheckResult> {
  return Promise.resolve({ inputs: { ...news }, failures: checkWith(RecordActionInputs, news).failures });
}

/** Every input replaces: a change runs the method again. */
export function diff(_id: string, olds: Props, news: Props): Promise<DiffResult> {
  const replaces = changedKeys(olds, news, KEYS);
  return Promise.resolve({ changes: replaces.length > 0, replaces, deleteBeforeReplace: false });
}

/** POST /api/v1/{class}/{id}/{method}. */
export function create(props: Props): Promise<{ id: string; outs: Props }> {
  const inputs = parseInputs(RecordActionInputs, props, "RecordAction");
  const what = `${inputs.class_name}/${inputs.record_id}/${inputs.method}`;
  return withClient(async (client) => {
    try {
      const r = await client.records.callMethod(inputs.class_name, inputs.record_id, inputs.method);
      const base = userInputs(props);
      return { id: `${what}@${Date.now()}`, outs: { ...base, result: r.result ?? "" } };
    } catch (error) {
      throw wrap(`Record action ${what} failed`, error);
    }
  });
}

/** Nothing to undo. */
export function remove(): Promise<void> {
  return Promise.resolve();
}
