/**
 * EnvironmentLock: present = the environment is locked with `message`. There is no endpoint to
 * read a lock, so refresh keeps the recorded state.
 */
import { z } from "zod";
import {
  changedKeys,
  checkWith,
  parseInputs,
  userInputs,
  PathName,
  type CheckResult,
  type DiffResult,
  type Props,
} from "./common";
import { wrap } from "./errors";
import { withClient } from "./settings";

/** Inputs of an EnvironmentLock. */
export const EnvironmentLockInputs = z.strictObject({
  stack: PathName,
  environment: PathName,
  message: z.string().optional(),
});
export type EnvironmentLockInputs = z.infer<typeof EnvironmentLockInputs>;

/** The part of the recorded outputs that names the environment (extra keys ignored). */
const LockTarget = z.object({ stack: PathName, environment: PathName });

/** Validates inputs; no API call. */
export function check(_olds: Props, news: Props): Promise<CheckResult> {
  return Promise.resolve({ inputs: { ...news }, failures: checkWith(EnvironmentLockInputs, news).failures });
}

/** Replaces on stack/environment; a new message is an in-place update. */
export function diff(_id: string, olds: Props, news: Props): Promise<DiffResult> {
  const replaces = changedKeys(olds, news, ["stack", "environment"]);
  const updates = changedKeys(olds, news, ["message"]);
  return Promise.resolve({
    changes: replaces.length + updates.length > 0,
    replaces,
    deleteBeforeReplace: true,
  });
}

async function lock(
  inputs: EnvironmentLockInputs,
  raw: Props,
  verb: string,
): Promise<{ id: string; outs: Props }> {
  const where = `${inputs.stack}/${inputs.environment}`;
  return withClient(async (client) => {
    try {
      const l = await client.locks.lock(inputs.stack, inputs.environment, inputs.message);
      return {
        id: l.id,
        outs: { ...userInputs(raw), locked: l.attributes.locked, lock_message: l.attributes.lock_message },
      };
    } catch (error) {
      throw wrap(`Environment ${where} could not be ${verb}`, error);
    }
  });
}

/** POST lock. */
export function create(props: Props): Promise<{ id: string; outs: Props }> {
  return lock(parseInputs(EnvironmentLockInputs, props, "EnvironmentLock"), props, "locked");
}

/** POST lock again with the new message. */
export async function update(_id: string, _olds: Props, news: Props): Promise<{ outs: Props }> {
  const { outs } = await lock(parseInputs(EnvironmentLockInputs, news, "EnvironmentLock"), news, "re-locked");
  return { outs };
}

/** DELETE lock (a lock already gone counts as done). */
export function remove(_id: string, props: Props): Promise<void> {
  // `props` are the recorded outputs (inputs plus `locked`, `lock_message`).
  const inputs = parseInputs(LockTarget, props, "EnvironmentLock");
  return withClient(async (client) => {
    try {
      await client.locks.unlock(inputs.stack, inputs.environment);
    } catch (error) {
      throw wrap(`Environment ${inputs.stack}/${inputs.environment} could not be unlocked`, error);
    }
  });
}
