/**
 * Snapshot: takes a snapshot of an environment and waits for its transfer. Every input but the
 * notes and the wait bound replaces. The notes carry a marker so a rerun after a crash adopts the
 * snapshot instead of taking a second one; the API cannot edit them, so new notes apply to the
 * next snapshot taken (recorded in place, said in the preview). Delete removes it; the resource
 * option `retainOnDelete` keeps it.
 */
import type { z } from "zod";
import type { Snapshot } from "../../src/api";
import { ApiError, ErrorCode, needAttributes, type StackwrightClient } from "../../src/client";
import { snapshotContract } from "../shared/snapshot";
import {
  changedKeys,
  checkWithMarker,
  markerOf,
  parseInputs,
  progress,
  recordInPlace,
  timeoutMs,
  userInputs,
  withMarker,
  withProvider,
  type CheckResult,
  type DiffResult,
  type Props,
} from "./common";
import { InitError, wrap } from "./errors";
import { startWhenFree } from "./busy-environment";
import { followTransfer, type LogFollower } from "./log-follower";
import { withClient } from "./settings";

/** Inputs of a Snapshot (the contract's). */
export const SnapshotInputs = snapshotContract.inputs;
export type SnapshotInputs = z.output<typeof SnapshotInputs>;
type SnapshotOutputs = z.output<typeof snapshotContract.outputs>;

/** Inputs whose change takes a new snapshot. */
export const SNAPSHOT_REPLACE_KEYS = snapshotContract.replaceKeys;

/** Validates inputs (no API call) and fills in the marker. */
export function check(_olds: Props, news: Props): Promise<CheckResult> {
  return checkWithMarker(SnapshotInputs, news, SNAPSHOT_REPLACE_KEYS);
}

/** Inputs recorded in place, with no request: the wait bound, and notes for the next snapshot. */
const IN_PLACE_KEYS = ["timeout_seconds", "notes"] as const;

/**
 * A new mode, resampled flag, stack or environment takes a new snapshot; new notes or a new
 * wait bound are recorded in place. A notes change says so on its own line (the preview's
 * output), because the snapshot on the platform keeps the notes it was taken with.
 */
export function diff(id: string, olds: Props, news: Props): Promise<DiffResult> {
  const replaces = changedKeys(olds, news, SNAPSHOT_REPLACE_KEYS);
  const updates = changedKeys(olds, news, IN_PLACE_KEYS);
  if (replaces.length === 0 && updates.includes("notes")) {
    progress(
      `snapshot ${id} of ${String(news["stack"])}/${String(news["environment"])}: the new notes apply to the next ` +
        "snapshot taken; this one keeps its notes (the API cannot edit them), so nothing is taken",
    );
  }
  return Promise.resolve({
    changes: replaces.length + updates.length > 0,
    replaces,
    deleteBeforeReplace: false,
  });
}

/** What the API said about the snapshot, as the state records it. */
function recordedOf(s: Snapshot, marker: string): SnapshotOutputs {
  const known = needAttributes(s, ["snapshot_status"], `cannot tell whether snapshot ${s.id} is complete`);
  return {
    marker,
    snapshot_id: s.id,
    snapshot_status: known.attributes.snapshot_status,
    // Empty when the platform did not say (as the spec's own pending snapshot shows them).
    size: s.attributes.size ?? "",
    created: s.attributes.created ?? "",
    download_link: s.links?.download_link ?? "",
  };
}

/** Outputs: the inputs exactly as given plus what the API said. */
function outputsOf(s: Snapshot, raw: Props, marker: string): Props {
  return { ...userInputs(raw), ...recordedOf(s, marker) };
}

async function waitSnapshot(
  client: StackwrightClient,
  inputs: SnapshotInputs,
  id: string,
  bound: number | undefined,
): Promise<Snapshot> {
  return client.waitForSnapshot(inputs.stack, id, {
    ...(bound === undefined ? {} : { timeoutMs: bound }),
    onProgress: (p) => progress(`snapshot ${id} of ${inputs.stack}/${inputs.environment}: ${p.state}`),
  });
}

/** Takes (or adopts) the snapshot and waits until it is complete. */
export function create(props: Props): Promise<{ id: string; outs: Props }> {
  const inputs = parseInputs(SnapshotInputs, props, "Snapshot");
  const marker = markerOf(inputs, SNAPSHOT_REPLACE_KEYS);
  const where = `${inputs.stack}/${inputs.environment}`;
  const bound = timeoutMs(inputs.timeout_seconds);
  return withClient(async (client) => {
    let snapshotId: string | undefined;
    let log: LogFollower | undefined;
    try {
      const earlier = await client.snapshots.findByMarker(inputs.stack, marker, {
        environment: inputs.environment,
        mode: inputs.mode,
      });
      if (earlier !== undefined) {
        progress(`found snapshot ${earlier.id} of ${where} taken by an interrupted run; adopting it`);
        snapshotId = earlier.id;
      } else {
        const made = await startWhenFree({ client, stack: inputs.stack, where, boundMs: bound }, () =>
          client.snapshots.create(
            inputs.stack,
            {
              environment: inputs.environment,
              mode: inputs.mode,
              ...(inputs.include_resampled === undefined
                ? {}
                : { include_resampled: inputs.include_resampled }),
              notes: withMarker(inputs.notes, marker),
            },
            { marker },
          ),
        );
        if (made.kind === "adopted") {
          snapshotId = made.snapshot.id;
        } else {
          const transferId = made.transfer.id;
          progress(`snapshot transfer ${transferId} of ${where} started`);
          log = followTransfer(
            client,
            inputs.stack,
            transferId,
            `snapshot transfer ${transferId} of ${where}`,
          );
          const following = log;
          const done = await client.waitForTransfer(inputs.stack, transferId, {
            ...(bound === undefined ? {} : { timeoutMs: bound }),
            onProgress: (p) => {
              progress(`snapshot transfer ${transferId} of ${where}: ${p.state}`);
              if (p.state === "Started" || p.state === "Running") following.poll();
            },
          });
          await following.finish();
          const ref = done.relationships?.snapshot?.data ?? null;
          if (ref === null) throw new Error(`transfer ${done.id} finished without a snapshot`);
          snapshotId = ref.id;
        }
      }
      const s = await waitSnapshot(client, inputs, snapshotId, bound);
      return { id: s.id, outs: outputsOf(s, props, marker) };
    } catch (error) {
      await log?.finish();
      const failed = wrap(`Snapshot of ${where} failed`, error).message;
      const message = log === undefined ? failed : log.withTail(failed);
      if (snapshotId !== undefined) {
        // Record what exists so the next run (or a destroy) can deal with it.
        const partial = await client.snapshots.get(inputs.stack, snapshotId).catch(() => undefined);
        const outs =
          partial === undefined ? { marker, snapshot_id: snapshotId } : outputsOf(partial, props, marker);
        throw new InitError(message, snapshotId, withProvider(outs, props));
      }
      throw new Error(message);
    }
  });
}

/** Reads the live snapshot; one that no longer exists leaves the state. */
export function read(id: string, props: Props): Promise<{ id: string; props: Props }> {
  const stack = String(props["stack"]);
  return withClient(async (client) => {
    try {
      const s = await client.snapshots.get(stack, id);
      const marker = typeof props["marker"] === "string" ? props["marker"] : "";
      return { id, props: outputsOf(s, props, marker) };
    } catch (error) {
      if (ApiError.isInstance(error) && error.code === ErrorCode.NotFound) return { id: "", props: {} };
      throw wrap(`Snapshot ${id} of ${stack} could not be read`, error);
    }
  });
}

/**
 * Records the wait bound and the notes, with no request. The recorded marker stays the one the
 * platform's snapshot carries.
 */
export function update(_id: string, olds: Props, news: Props): Promise<{ outs: Props }> {
  return Promise.resolve({ outs: recordInPlace(olds, news, IN_PLACE_KEYS) });
}

/** DELETE snapshot (already gone counts as done). */
export function remove(id: string, props: Props): Promise<void> {
  const stack = String(props["stack"]);
  return withClient(async (client) => {
    try {
      await client.snapshots.delete(stack, id);
    } catch (error) {
      if (ApiError.isInstance(error) && error.code === ErrorCode.NotFound) return;
      throw wrap(`Snapshot ${id} of ${stack} could not be deleted`, error);
    }
  });
}
