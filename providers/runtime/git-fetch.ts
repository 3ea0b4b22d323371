/** GitFetch: queues a fetch of the stack's repository and waits for `Complete`. */
import { z } from "zod";
import { ApiError, ErrorCode } from "../../src/client";
import {
  changedKeys,
  checkWith,
  parseInputs,
  progress,
  timeoutMs,
  userInputs,
  PathName,
  type CheckResult,
  type DiffResult,
  type Props,
} from "./common";
import { wrap } from "./errors";
import { withClient } from "./settings";

/** Inputs of a GitFetch. */
export const GitFetchInputs = z.strictObject({
  stack: PathName,
  trigger: z.string().optional(),
  timeout_seconds: z.number().int().positive().optional(),
});
export type GitFetchInputs = z.infer<typeof GitFetchInputs>;

/** Validates inputs; no API call. */
export function check(_olds: Props, news: Props): Promise<CheckResult> {
  return Promise.resolve({ inputs: { ...news }, failures: checkWith(GitFetchInputs, news).failures });
}

/** Replaces (a new fetch) on stack and trigger. */
export function diff(_id: string, olds: Props, news: Props): Promise<DiffResult> {
  const replaces = changedKeys(olds, news, ["stack", "trigger"]);
  const updates = changedKeys(olds, news, ["timeout_seconds"]);
  return Promise.resolve({
    changes: replaces.length + updates.length > 0,
    replaces,
    deleteBeforeReplace: false,
  });
}

/** POST fetch, wait for Complete. A second fetch is harmless, so no marker is needed. */
export function create(props: Props): Promise<{ id: string; outs: Props }> {
  const inputs = parseInputs(GitFetchInputs, props, "GitFetch");
  const bound = timeoutMs(inputs.timeout_seconds);
  const base = userInputs(props);
  return withClient(async (client) => {
    try {
      const f = await client.fetches.create(inputs.stack);
      progress(`git fetch ${f.id} of ${inputs.stack} queued`);
      const done = await client.waitForFetch(inputs.stack, f.id, {
        ...(bound === undefined ? {} : { timeoutMs: bound }),
        onProgress: (p) => progress(`git fetch ${f.id} of ${inputs.stack}: ${p.state}`),
      });
      return { id: done.id, outs: { ...base, fetch_id: done.id, status: done.attributes.status } };
    } catch (error) {
      throw wrap(`Git fetch of ${inputs.stack} failed`, error);
    }
  });
}

/** GET fetch; gone → leaves the state. */
export function read(id: string, props: Props): Promise<{ id: string; props: Props }> {
  const stack = String(props["stack"]);
  return withClient(async (client) => {
    try {
      const f = await client.fetches.get(stack, id);
      return { id, props: { ...props, status: f.attributes.status } };
    } catch (error) {
      if (ApiError.isInstance(error) && error.code === ErrorCode.NotFound) return { id: "", props: {} };
      throw wrap(`Git fetch ${id} of ${stack} could not be read`, error);
    }
  });
}

/** Only the wait bound changes in place; no request. */
export function update(_id: string, olds: Props, news: Props): Promise<{ outs: Props }> {
  return Promise.resolve({ outs: { ...olds, timeout_seconds: news["timeout_seconds"] } });
}

/** A fetch cannot be undone: deleting only forgets it. */
export function remove(): Promise<void> {
  return Promise.resolve();
}
