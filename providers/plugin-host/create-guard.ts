/**
 * The shared host's side of a run's guard of its never-repeated creates (protocol.ts): before the
 * provider runs a guarded create, the parent records it in flight; once answered, the parent
 * forgets it; a suspect's create is answered as an unknown outcome without running it.
 */
import { urnType } from "../../src/api/resources";
import {
  inputsDigest,
  type CreateGuardSpec,
  type HostAnswer,
  type HostRequest,
  type InFlightCreate,
} from "./protocol";
import type { ServiceHooks } from "./service";

/** A bound on the parent's recording of a create in flight (a write to the state's backend). */
const RECORD_DEADLINE_MS = 60_000;

/** Sends the parent a message, if it is still there. */
export function tellParent(message: HostAnswer): void {
  if (process.connected) process.send?.(message);
}

/** Creates waiting for the parent to record them in flight, by `${run}:${call}`. */
const recording = new Map<string, { resolve(): void; reject(error: Error): void }>();
let calls = 0;

/** Asks the parent to record the create of run `id` as in flight; resolves when it has. */
function recordInFlight(id: number, create: InFlightCreate): Promise<void> {
  const call = ++calls;
  const key = `${String(id)}:${String(call)}`;
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      recording.delete(key);
      reject(new Error(`it was not recorded as in flight within ${RECORD_DEADLINE_MS / 1000} s`));
    }, RECORD_DEADLINE_MS);
    const settle = (f: () => void) => {
      clearTimeout(timer);
      recording.delete(key);
      f();
    };
    recording.set(key, {
      resolve: () => settle(resolve),
      reject: (error) => settle(() => reject(error)),
    });
    tellParent({ kind: "in-flight", id, call, create });
  });
}

/**
 * The create hook of run `id` (protocol.ts): a guarded type's create is recorded in flight by the
 * parent before the provider runs it and forgotten once answered; a suspect's is answered as an
 * unknown outcome without running it.
 */
export function guardedCreate(id: number, guard: CreateGuardSpec): NonNullable<ServiceHooks["create"]> {
  return async (urn, inputs, run) => {
    const outputs = guard.types[urnType(urn)];
    if (outputs === undefined) return run();
    const create: InFlightCreate = { urn, inputs: inputsDigest(inputs) };
    const suspect = guard.suspects.find((s) => s.create.urn === urn && s.create.inputs === create.inputs);
    if (suspect !== undefined) {
      console.log(suspect.note);
      tellParent({ kind: "answered", id, create });
      return { id: guard.unknownId, properties: { ...inputs, ...outputs } };
    }
    try {
      if (!process.connected) throw new Error("the process that runs the update is gone");
      await recordInFlight(id, create);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new Error(`not started, because it must be recorded as in flight first and ${why}`);
    }
    try {
      return await run();
    } finally {
      tellParent({ kind: "answered", id, create });
    }
  };
}

/** The parent's answer to a request to record a create in flight. */
export function recordedByParent(answer: Extract<HostRequest, { kind: "recorded" }>): void {
  const pending = recording.get(`${String(answer.id)}:${String(answer.call)}`);
  if (answer.error === undefined) pending?.resolve();
  else pending?.reject(new Error(`recording it failed: ${answer.error}`));
}

/** The parent is gone: no create waiting for its record will get one. */
export function parentGone(): void {
  for (const pending of recording.values())
    pending.reject(new Error("the process that runs the update is gone"));
}
