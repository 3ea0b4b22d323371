/** RecordAction: runs a method on a record of the generic record server (`/api/v1`). */
import type { z } from "zod";
import { recordActionContract } from "../shared/record-action";
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

/** Inputs of a RecordAction (the contract's). */
export const RecordActionInputs = recordActionContract.inputs;
export type RecordActionInputs = z.output<typeof RecordActionInputs>;

/** Validates inputs; no API call. */
export function check(_olds: Props, news: Props): Promise<CheckResult> {
  return Promise.resolve({ inputs: { ...news }, failures: checkWith(RecordActionInputs, news).failures });
}

/** Every input replaces: a change runs the method again. */
export function diff(_id: string, olds: Props, news: Props): Promise<DiffResult> {
  const replaces = changedKeys(olds, news, recordActionContract.replaceKeys);
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

/** Nothing to read back: the method ran, its result is recorded. */
export function read(id: string, props: Props): Promise<{ id: string; props: Props }> {
  return Promise.resolve({ id, props });
}

/** Never planned (every input replaces); records the new inputs if the engine asks. */
export function update(_id: string, olds: Props, news: Props): Promise<{ outs: Props }> {
  return Promise.resolve({ outs: { ...olds, ...userInputs(news) } });
}

/** Nothing to undo. */
export function remove(): Promise<void> {
  return Promise.resolve();
}
