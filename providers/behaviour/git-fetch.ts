/** GitFetch: queues a fetch of the stack's repository and waits for `Complete`. */
import type { z } from "zod";
import { needAttributes } from "../../src/client";
import { gitFetchContract } from "../shared/git-fetch";
import {
  diffReplacing,
  checkWith,
  parseInputs,
  progress,
  timeoutMs,
  userInputs,
  type CheckResult,
  type DiffResult,
  type Props,
} from "./common";
import { wrap } from "./errors";
import { oneShot } from "./one-shot";
import { withClient } from "./settings";

/** Inputs of a GitFetch (the contract's). */
export const GitFetchInputs = gitFetchContract.inputs;
export type GitFetchInputs = z.output<typeof GitFetchInputs>;

/** Validates inputs; no API call. */
export function check(_olds: Props, news: Props): Promise<CheckResult> {
  return Promise.resolve({ inputs: { ...news }, failures: checkWith(GitFetchInputs, news).failures });
}

/** Replaces (a new fetch) on stack and trigger. */
export function diff(_id: string, olds: Props, news: Props): Promise<DiffResult> {
  return diffReplacing(olds, news, gitFetchContract.replaceKeys);
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

// Read follows the status, update only moves the wait bound, delete only forgets: a fetch
// cannot be undone.
const lifecycle = oneShot(
  (id, stack) => `Git fetch ${id} of ${stack}`,
  async (client, stack, id) =>
    needAttributes(
      await client.fetches.get(stack, id),
      ["status"],
      `cannot tell whether git fetch ${id} of ${stack} finished`,
    ).attributes.status,
);
export const { read, update, remove } = lifecycle;
