/**
 * EnvironmentLock: the environment's lock as Stackwright manages it. `locked` (default true) says
 * whether it should be locked, with `message`. The program keeps one per environment whose lock it
 * manages, and sets `locked: false` to unlock: so the unlock is an update that can be ordered
 * before the environment's deployment, where deleting the resource would happen last, after a
 * deployment the lock refused. An unlocked resource makes no API call at all, so a lock a person
 * set by hand on an environment we never locked is left alone. There is no endpoint to read a
 * lock, so refresh keeps the recorded state.
 */
import { z } from "zod";
import { PathName } from "../shared/contract";
import { environmentLockContract } from "../shared/environment-lock";
import {
  changedKeys,
  checkWith,
  parseInputs,
  userInputs,
  type CheckResult,
  type DiffResult,
  type Props,
} from "./common";
import { refusal, wrap } from "./errors";
import { withClient } from "./settings";

/** Inputs of an EnvironmentLock (the contract's). */
export const EnvironmentLockInputs = environmentLockContract.inputs;
export type EnvironmentLockInputs = z.output<typeof EnvironmentLockInputs>;

/** The part of the recorded outputs that names the environment (extra keys ignored). */
const LockTarget = z.object({ stack: PathName, environment: PathName });

/** Validates inputs; no API call. */
export function check(_olds: Props, news: Props): Promise<CheckResult> {
  return Promise.resolve({ inputs: { ...news }, failures: checkWith(EnvironmentLockInputs, news).failures });
}

/** True unless `locked: false` (recorded outputs carry the same key). */
function wantsLock(props: Props): boolean {
  return props["locked"] !== false;
}

/** The environment's snapshots and restores as the program names them (see `holds`). */
function holdsOf(props: Props): string[] | undefined {
  const holds = props["holds"];
  return Array.isArray(holds) ? holds.filter((h): h is string => typeof h === "string") : undefined;
}

/**
 * True when `hold` is not among `before`. A snapshot's hold of this release (`snapshot N#digest`,
 * notes left out) is not new where the holds of an earlier release name the same snapshot
 * (`snapshot N@digest`, notes hashed): they cannot be compared, and refusing would fail every
 * locked environment with an annotated snapshot once, for nothing.
 */
function isNewHold(hold: string, before: readonly string[]): boolean {
  if (before.includes(hold)) return false;
  const snapshot = /^(snapshot .+)#[0-9a-f]+$/.exec(hold);
  return snapshot === null || !before.some((h) => h.startsWith(`${snapshot[1] ?? ""}@`));
}

/**
 * Replaces on stack/environment; locking, unlocking and a new message while locked are in-place
 * updates. The message of an unlocked environment is not compared: nothing would change.
 *
 * `holds` names the environment's snapshots and restores with the inputs that make a new one.
 * A name that is new while the lock stays is work the platform will refuse (409): the preview
 * fails here and names the lock, instead of the update failing halfway. Otherwise a change of
 * `holds` is recorded in place, with no request.
 */
export function diff(_id: string, olds: Props, news: Props): Promise<DiffResult> {
  const replaces = changedKeys(olds, news, environmentLockContract.replaceKeys);
  const before = holdsOf(olds);
  const added = before === undefined ? [] : (holdsOf(news) ?? []).filter((h) => isNewHold(h, before));
  if (wantsLock(olds) && wantsLock(news) && replaces.length === 0 && added.length > 0) {
    const where = `${String(news["stack"])}/${String(news["environment"])}`;
    return Promise.reject(
      refusal(
        `${where} is locked ("${String(news["message"] ?? "")}") and stays locked in this change, so the platform ` +
          `would refuse ${added.map((h) => h.replace(/[@#][0-9a-f]+$/, "")).join(", ")}. Remove the lock in the same change (Stackwright unlocks first and ` +
          "you lock again later), or leave these out until the lock is lifted.",
      ),
    );
  }
  const updates =
    wantsLock(olds) !== wantsLock(news)
      ? ["locked"]
      : [
          ...(wantsLock(news) ? changedKeys(olds, news, ["message"]) : []),
          ...changedKeys(olds, news, ["holds"]),
        ];
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

/** The outputs of an environment this resource keeps unlocked. */
function unlockedOutputs(inputs: EnvironmentLockInputs, raw: Props): { id: string; outs: Props } {
  return {
    id: `${inputs.stack}:${inputs.environment}`,
    outs: { ...userInputs(raw), locked: false, lock_message: "" },
  };
}

/** POST lock; nothing at all for `locked: false`. */
export function create(props: Props): Promise<{ id: string; outs: Props }> {
  const inputs = parseInputs(EnvironmentLockInputs, props, "EnvironmentLock");
  if (!wantsLock(props)) return Promise.resolve(unlockedOutputs(inputs, props));
  return lock(inputs, props, "locked");
}

/** POST lock (to lock, or with a new message), or DELETE it when `locked` turns false. */
export async function update(_id: string, olds: Props, news: Props): Promise<{ outs: Props }> {
  const inputs = parseInputs(EnvironmentLockInputs, news, "EnvironmentLock");
  if (!wantsLock(news)) {
    if (wantsLock(olds)) await remove(_id, olds);
    return { outs: unlockedOutputs(inputs, news).outs };
  }
  // Only `holds` changed: record it, with no request.
  if (wantsLock(olds) && changedKeys(olds, news, ["message"]).length === 0) {
    return { outs: { ...olds, ...userInputs(news) } };
  }
  const { outs } = await lock(inputs, news, wantsLock(olds) ? "re-locked" : "locked");
  return { outs };
}

/** There is no endpoint to read a lock: refresh keeps the recorded state. */
export function read(id: string, props: Props): Promise<{ id: string; props: Props }> {
  return Promise.resolve({ id, props });
}

/** DELETE lock (a lock already gone counts as done); nothing when this resource kept it unlocked. */
export function remove(_id: string, props: Props): Promise<void> {
  // `props` are the recorded outputs (inputs plus `locked`, `lock_message`).
  if (!wantsLock(props)) return Promise.resolve();
  const inputs = parseInputs(LockTarget, props, "EnvironmentLock");
  return withClient(async (client) => {
    try {
      await client.locks.unlock(inputs.stack, inputs.environment);
    } catch (error) {
      throw wrap(`Environment ${inputs.stack}/${inputs.environment} could not be unlocked`, error);
    }
  });
}
