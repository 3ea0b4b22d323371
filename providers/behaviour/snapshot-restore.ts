/**
 * SnapshotRestore: restores a snapshot into an environment and waits. `confirm` must repeat the
 * target environment's name, because a restore overwrites its data. Deleting does nothing: a
 * restore cannot be undone. A change of its own settings (the snapshot as the file names it,
 * mode, flags, confirm, trigger) is a new restore; a declared snapshot taken anew only moves
 * `snapshot_id`, which is recorded with no request: the restore keeps `restored_snapshot_id`,
 * the id it ran with, and never runs again for it.
 */
import type { z } from "zod";
import { snapshotRestoreContract } from "../shared/snapshot-restore";
import {
  changedKeys,
  checkWith,
  differs,
  parseInputs,
  progress,
  recordInPlace,
  timeoutMs,
  userInputs,
  withProvider,
  type CheckResult,
  type CheckFailure,
  type DiffResult,
  type Props,
  UNKNOWN,
} from "./common";
import { isNumericIdText, UNKNOWN_OUTCOME_ID, UNKNOWN_OUTCOME_OUTPUTS } from "../../src/api";
import { ApiError, ErrorCode, needAttributes } from "../../src/client";
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

/** Recorded in place, with no request: the wait bound and the id the snapshot stands for now. */
const IN_PLACE_KEYS = ["timeout_seconds", "snapshot", "snapshot_id"] as const;

/** The snapshot id the recorded restore ran with (state of an earlier release: `snapshot_id`). */
function restoredFrom(olds: Props): string {
  const restored = olds["restored_snapshot_id"] ?? olds["snapshot_id"];
  return typeof restored === "string" ? restored : "";
}

/**
 * Which of the restore's own settings changed. `snapshot` is the snapshot as the file names it;
 * `snapshot_id` follows the snapshot and is no setting of the restore. Without `snapshot` on one
 * side (a caller that gives only an id, or state written before `snapshot` existed) the id
 * stands for it, except that a declared name in the new inputs against an old record without
 * one cannot be told from a snapshot taken anew: it counts as the same, because a restore
 * overwrites an environment's data and must not run by surprise.
 */
function ownChanges(olds: Props, news: Props): string[] {
  const changed = changedKeys(
    olds,
    news,
    REPLACE_KEYS.filter((k) => k !== "snapshot"),
  );
  const before = olds["snapshot"];
  const after = news["snapshot"];
  if (after === undefined || after === null) {
    if (news["snapshot_id"] === UNKNOWN || differs(olds["snapshot_id"], news["snapshot_id"])) {
      changed.push("snapshot_id");
    }
  } else if (before === undefined || before === null) {
    if (isNumericIdText(String(after)) && differs(olds["snapshot_id"], after)) changed.push("snapshot");
  } else if (differs(before, after)) {
    changed.push("snapshot");
  }
  return changed;
}

/**
 * A change of the restore's own settings replaces it (a new restore); a new wait bound, or a new
 * id of its declared snapshot (taken anew), is recorded in place with no request, and the second
 * says so on its own line (the preview's output).
 */
export function diff(id: string, olds: Props, news: Props): Promise<DiffResult> {
  const replaces = ownChanges(olds, news);
  const updates = changedKeys(olds, news, IN_PLACE_KEYS);
  if (replaces.length === 0 && updates.includes("snapshot_id")) {
    const name = typeof news["snapshot"] === "string" ? `snapshot ${news["snapshot"]}` : "its snapshot";
    progress(
      `restore ${id} into ${String(news["stack"])}/${String(news["environment"])} does not run again: ` +
        `${name} is taken anew, the restore keeps snapshot ${restoredFrom(olds)} it ran with ` +
        "(change the restore's trigger to restore the new one)",
    );
  }
  return Promise.resolve({
    changes: replaces.length + updates.length > 0,
    replaces,
    deleteBeforeReplace: false,
  });
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
      return {
        id: done.id,
        outs: {
          ...base,
          transfer_id: done.id,
          status: done.attributes.status,
          restored_snapshot_id: inputs.snapshot_id,
        },
      };
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
          withProvider(
            { ...base, ...UNKNOWN_OUTCOME_OUTPUTS.SnapshotRestore, restored_snapshot_id: inputs.snapshot_id },
            props,
          ),
        );
      }
      if (transferId !== undefined) {
        throw new InitError(
          message,
          transferId,
          withProvider({ ...base, transfer_id: transferId, restored_snapshot_id: inputs.snapshot_id }, props),
        );
      }
      throw new Error(message);
    }
  });
}

// Read follows the status, delete only forgets: a restore cannot be undone.
const lifecycle = oneShot(
  (id, stack) => `Restore transfer ${id} of ${stack}`,
  async (client, stack, id) =>
    needAttributes(
      await client.snapshots.transfer(stack, id),
      ["status"],
      `cannot tell whether restore transfer ${id} of ${stack} finished`,
    ).attributes.status,
);
export const { read, remove } = lifecycle;

/**
 * Records the wait bound and the snapshot id the restore's snapshot stands for now, with no
 * request; `restored_snapshot_id` keeps the id the restore ran with.
 */
export function update(_id: string, olds: Props, news: Props): Promise<{ outs: Props }> {
  return Promise.resolve({
    outs: { ...recordInPlace(olds, news, IN_PLACE_KEYS), restored_snapshot_id: restoredFrom(olds) },
  });
}
