/**
 * SnapshotRestore: restores a snapshot into an environment and waits. `confirm` must repeat the
 * target environment's name, because a restore overwrites its data. Deleting does nothing: a
 * restore cannot be undone. Every input replaces (a new restore).
 */
import type { z } from "zod";
import { snapshotRestoreContract } from "../shared/snapshot-restore";
import {
  diffReplacing,
  checkWith,
  parseInputs,
  progress,
  timeoutMs,
  userInputs,
  withProvider,
  type CheckResult,
  type CheckFailure,
  type DiffResult,
  type Props,
  UNKNOWN,
} from "./common";
import { UNKNOWN_OUTCOME_ID, UNKNOWN_OUTCOME_OUTPUTS } from "../../src/api";
import { ApiError, ErrorCode } from "../../src/client";
import { startWhenFree } from "./busy-environment";
import { InitError, wrap } from "./errors";
import { followTransfer, type LogFollower } from "./log-follower";
import { oneShot } from "./one-shot";
import { withClient } from "./settings";

/** Inputs of a SnapshotRestore (the contract's). */
export const SnapshotRestoreInputs = snapshotRestoreContract.inputs;
export type SnapshotRestoreInputs = z.output<typeof SnapshotRestoreInputs>;

const REPLACE_KEYS = snapshotRestoreContract.replaceKeys;

/** Validates inputs, including `confirm` = environment; no API call. */
export function check(_olds: Props, news: Props): Promise<CheckResult> {
  const failures: CheckFailure[] = [...checkWith(SnapshotRestoreInputs, news).failures];
  const env = news["environment"];
  const confirm = news["confirm"];
  if (
    typeof env === "string" &&
    env !== UNKNOWN &&
    typeof confirm === "string" &&
    confirm !== UNKNOWN &&
    confirm !== env &&
    !failures.some((f) => f.property === "confirm")
  ) {
    failures.push({
      property: "confirm",
      reason: `[confirm] must equal the target environment's name '${env}' (a restore overwrites its data), got '${confirm}'`,
    });
  }
  return Promise.resolve({ inputs: { ...news }, failures });
}

/** Every input but the wait bound replaces. */
export function diff(_id: string, olds: Props, news: Props): Promise<DiffResult> {
  return diffReplacing(olds, news, REPLACE_KEYS);
}

/** True when a failed restore request may still have started a restore. */
function mayHaveStarted(error: unknown): boolean {
  return (
    ApiError.isInstance(error) && (error.code === ErrorCode.OutcomeUnknown || error.code === ErrorCode.Server)
  );
}

/** POST restore → transfer; waits until it finishes. */
export function create(props: Props): Promise<{ id: string; outs: Props }> {
  const inputs = parseInputs(SnapshotRestoreInputs, props, "SnapshotRestore");
  if (inputs.confirm !== inputs.environment) {
    throw new Error(`SnapshotRestore: [confirm] must equal '${inputs.environment}'`);
  }
  const where = `${inputs.stack}/${inputs.environment}`;
  const bound = timeoutMs(inputs.timeout_seconds);
  const base = userInputs(props);
  return withClient(async (client) => {
    let transferId: string | undefined;
    let log: LogFollower | undefined;
    try {
      const transfer = await startWhenFree({ client, stack: inputs.stack, where, boundMs: bound }, () =>
        client.snapshots.restore(inputs.stack, inputs.snapshot_id, {
          environment: inputs.environment,
          mode: inputs.mode,
          ...(inputs.skip_build === undefined ? {} : { skip_build: inputs.skip_build }),
          ...(inputs.backup_existing_data === undefined
            ? {}
            : { backup_existing_data: inputs.backup_existing_data }),
        }),
      );
      transferId = transfer.id;
      progress(`restore of snapshot ${inputs.snapshot_id} into ${where} started (transfer ${transfer.id})`);
      log = followTransfer(
        client,
        inputs.stack,
        transfer.id,
        `restore transfer ${transfer.id} into ${where}`,
      );
      const following = log;
      const done = await client.waitForTransfer(inputs.stack, transfer.id, {
        ...(bound === undefined ? {} : { timeoutMs: bound }),
        onProgress: (p) => {
          progress(`restore transfer ${transfer.id} into ${where}: ${p.state}`);
          if (p.state === "Started" || p.state === "Running") following.poll();
        },
      });
      await following.finish();
      return { id: done.id, outs: { ...base, transfer_id: done.id, status: done.attributes.status } };
    } catch (error) {
      await log?.finish();
      const failed = wrap(`Restore of snapshot ${inputs.snapshot_id} into ${where} failed`, error).message;
      const message = log === undefined ? failed : log.withTail(failed);
      if (transferId === undefined && mayHaveStarted(error)) {
        // The request may have reached the platform (its answer was lost, or a server error came
        // back after it may have acted). The state records the restore as done-but-unknown, so no
        // later run repeats it: a restore must never run twice.
        throw new InitError(
          `${message}. The restore may have started: Stackwright will not run it again by itself. ` +
            "Check the environment's data; to restore again, change `trigger`.",
          UNKNOWN_OUTCOME_ID,
          withProvider({ ...base, ...UNKNOWN_OUTCOME_OUTPUTS.SnapshotRestore }, props),
        );
      }
      if (transferId !== undefined) {
        throw new InitError(message, transferId, withProvider({ ...base, transfer_id: transferId }, props));
      }
      throw new Error(message);
    }
  });
}

// Read follows the status, update only moves the wait bound, delete only forgets: a restore
// cannot be undone.
const lifecycle = oneShot(
  (id, stack) => `Restore transfer ${id} of ${stack}`,
  async (client, stack, id) => (await client.snapshots.transfer(stack, id)).attributes.status,
);
export const { read, update, remove } = lifecycle;
