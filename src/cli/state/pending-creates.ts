/**
 * Creates that a killed run left in flight, settled before the next `up` so that a restore (or a
 * record method) never runs twice.
 *
 * The engine writes a pending operation (`creating`) into the checkpoint before it asks the
 * provider to create a resource, and records the resource when the answer comes. A run killed in
 * between leaves the pending operation behind, and the next `up` only warns about it: the resource
 * is not in the state, so the program's declaration of it is a create again. For a deployment or a
 * snapshot that is harmless (the provider finds the first one by its marker); a restore and a
 * record method carry no marker, so the platform would run them a second time. Pulumi's own
 * repair for a pending create is to edit the state by hand (export, edit, import) or to `refresh
 * --import-pending-creates URN ID` with an id one knows; Stackwright does the first by itself for
 * those types only: each such pending create becomes a recorded resource with id `unknown` and an
 * unknown outcome (src/api/never-repeated.ts, the record the provider makes when an answer is
 * lost), and says so. Whether it ran cannot be known (the API cannot list restores), so it is
 * never run again by itself; a new `trigger` runs it again.
 *
 * The provider process dying alone (killed, out of memory) during such a create is the same case
 * seen from a live engine: it reports the create as failed ("error reading from server: EOF")
 * and keeps no pending operation, so the run that saw it records the resource the same way from
 * the engine's events before it ends.
 */
import type { Deployment as ExportedState, EngineEvent } from "@pulumi/pulumi/automation";
import { z } from "zod";
import {
  isNeverRepeated,
  stackwrightTypeOf,
  urnName,
  UNKNOWN_OUTCOME_ID,
  UNKNOWN_OUTCOME_OUTPUTS,
  type NeverRepeatedType,
} from "../../api";
import type { LockTarget } from "./lock-guard";
import { readLocks } from "./locks";
import { readCheckpoint } from "../../state-backend";

const Resource = z.looseObject({
  urn: z.string(),
  type: z.string(),
  inputs: z.record(z.string(), z.unknown()).optional(),
});
const PendingOperation = z.looseObject({ type: z.string(), resource: Resource });
/** The part of a deployment (`checkpoint.latest`, or an exported stack) this module reads. */
const Deployment = z.looseObject({
  resources: z.array(z.looseObject({})).nullish(),
  pending_operations: z.array(PendingOperation).nullish(),
});

type PendingOperation = z.infer<typeof PendingOperation>;

/** A pending create recorded with an unknown outcome. */
/** A stack's state, exported and imported whole (`pulumi stack export` / `import`). */
export interface StackState {
  exportStack(): Promise<ExportedState>;
  importStack(state: ExportedState): Promise<void>;
}

export interface SettledCreate {
  readonly urn: string;
  readonly type: NeverRepeatedType;
  /** The resource's name, e.g. `acme-web/uat/from-a`. */
  readonly name: string;
}

/** The type name (`SnapshotRestore`) of a never-repeated pending create, else undefined. */
function neverRepeatedCreate(op: PendingOperation): NeverRepeatedType | undefined {
  return op.type === "creating" ? neverRepeatedType(op.resource.type) : undefined;
}

/** The type name of a never-repeated resource type token, else undefined. */
function neverRepeatedType(token: string): NeverRepeatedType | undefined {
  const name = stackwrightTypeOf(token);
  return name !== undefined && isNeverRepeated(name) ? name : undefined;
}

/** The state record of a never-repeated resource whose outcome is unknown. */
function unknownOutcome(
  resource: { urn: string; type: string } & Record<string, unknown>,
  type: NeverRepeatedType,
  inputs: Record<string, unknown>,
): Record<string, unknown> {
  return {
    ...resource,
    id: UNKNOWN_OUTCOME_ID,
    inputs,
    outputs: { ...inputs, ...UNKNOWN_OUTCOME_OUTPUTS[type] },
  };
}

/** How the engine reports a provider process that died during a call (gRPC, connection lost). */
const PROVIDER_GONE = /error reading from server: EOF|transport is closing|code = Unavailable/;

/**
 * The never-repeated creates of a failed run whose provider process died during the call, as
 * state records of unknown outcome (built from the engine's events: URN, type, parent, provider
 * and inputs, as the engine would have recorded them).
 */
export function crashedCreates(events: readonly EngineEvent[]): {
  records: Record<string, unknown>[];
  settled: SettledCreate[];
} {
  const gone = new Set(
    events.flatMap((e) => {
      const d = e.diagnosticEvent;
      return d?.urn !== undefined && d.severity === "error" && PROVIDER_GONE.test(d.message) ? [d.urn] : [];
    }),
  );
  const records: Record<string, unknown>[] = [];
  const settled: SettledCreate[] = [];
  for (const e of events) {
    const failed = e.resOpFailedEvent?.metadata;
    const state = failed?.new;
    const type = failed === undefined ? undefined : neverRepeatedType(failed.type);
    if (failed?.op !== "create" || state === undefined || type === undefined || !gone.has(failed.urn))
      continue;
    const inputs = z.record(z.string(), z.unknown()).parse(state.inputs ?? {});
    records.push(
      unknownOutcome(
        { urn: failed.urn, custom: true, type: failed.type, parent: state.parent, provider: state.provider },
        type,
        inputs,
      ),
    );
    settled.push({ urn: failed.urn, type, name: urnName(failed.urn) });
  }
  return { records, settled };
}

/**
 * After a failed `up`: records the never-repeated creates whose provider process died during the
 * call (see {@link crashedCreates}), unless the state already holds them. Returns what it recorded.
 */
export async function recordCrashedCreates(
  stack: StackState,
  stackName: string,
  events: readonly EngineEvent[],
  log: (line: string) => void,
): Promise<SettledCreate[]> {
  const { records, settled } = crashedCreates(events);
  if (records.length === 0) return [];
  const exported = await stack.exportStack();
  const deployment = Deployment.parse(exported.deployment);
  const have = new Set((deployment.resources ?? []).map((r) => r["urn"]));
  const fresh = records.filter((r) => !have.has(r["urn"]));
  if (fresh.length === 0) return [];
  await stack.importStack({
    version: exported.version,
    deployment: { ...deployment, resources: [...(deployment.resources ?? []), ...fresh] },
  });
  const done = settled.filter((s) => fresh.some((r) => r["urn"] === s.urn));
  for (const { type, name } of done) log(inFlightLine(stackName, type, name, "its provider process died"));
  return done;
}

/** The line that tells the user a never-repeated operation was recorded with an unknown outcome. */
export function inFlightLine(stackName: string, type: string, name: string, why: string): string {
  return (
    `stackwright: ${stackName}: the ${type} ${name} was in flight when ${why}, ` +
    "so it may have run: recorded with an unknown outcome and not run again. " +
    "Check the environment; to run it again, change its `trigger`."
  );
}

/** The pending creates of never-repeated types in a deployment (checkpoint or export). */
export function pendingNeverRepeated(deployment: unknown): PendingOperation[] {
  const parsed = Deployment.safeParse(deployment);
  if (!parsed.success) return [];
  return (parsed.data.pending_operations ?? []).filter((op) => neverRepeatedCreate(op) !== undefined);
}

/**
 * The deployment with each never-repeated pending create recorded as a resource of unknown
 * outcome (appended: everything it depends on was recorded before it was created, and nothing
 * recorded can depend on it), and those pending operations removed. Other pending operations stay.
 */
export function settleDeployment(deployment: unknown): {
  deployment: Record<string, unknown>;
  settled: SettledCreate[];
} {
  const parsed = Deployment.parse(deployment);
  const settled: SettledCreate[] = [];
  const recorded: Record<string, unknown>[] = [];
  const left: PendingOperation[] = [];
  for (const op of parsed.pending_operations ?? []) {
    const type = neverRepeatedCreate(op);
    if (type === undefined) {
      left.push(op);
      continue;
    }
    recorded.push(unknownOutcome(op.resource, type, op.resource.inputs ?? {}));
    settled.push({ urn: op.resource.urn, type, name: urnName(op.resource.urn) });
  }
  return {
    deployment: {
      ...parsed,
      resources: [...(parsed.resources ?? []), ...recorded],
      pending_operations: left,
    },
    settled,
  };
}

/**
 * Settles the stack's never-repeated pending creates, if any (one read of the checkpoint when
 * there are none). Runs only while no lock is held: a live run's pending creates are in flight,
 * not abandoned (and `pulumi stack import` takes the lock itself, so a run that starts meanwhile
 * makes it fail as a concurrent update). Returns what it settled.
 */
export async function settlePendingCreates(
  stack: StackState,
  target: LockTarget,
  log: (line: string) => void,
): Promise<SettledCreate[]> {
  const latest = await latestDeployment(target);
  if (latest === undefined || pendingNeverRepeated(latest).length === 0) return [];
  if ((await readLocks(target.store, target.project, target.stack)).length > 0) return [];
  const exported = await stack.exportStack();
  const { deployment, settled } = settleDeployment(exported.deployment);
  if (settled.length === 0) return [];
  await stack.importStack({ version: exported.version, deployment });
  for (const { type, name } of settled) {
    log(inFlightLine(target.stack, type, name, "an earlier run stopped"));
  }
  return settled;
}

/** A pending create cleared because the state records its resource. */
export interface ClearedCreate {
  readonly urn: string;
  /** The type name, e.g. `Deployment`. */
  readonly type: string;
  readonly name: string;
}

/**
 * The deployment without the pending creates whose outcome the state now knows: a resource of
 * the same URN is recorded (a later run created it, or found it by its marker and adopted it).
 * The engine keeps every pending create until someone clears it (Pulumi clears them only with an
 * interactive `refresh`), and warns about each on every run, so a stack that recovered from a kill
 * would never be quiet again. Pending creates of resources not recorded stay: their outcome is
 * not known. A create of a type with a marker or that may be repeated (a deployment, a snapshot,
 * a git fetch) is safe to forget once its URN is recorded: a replacement it may have been is
 * found again by its marker (or harmlessly repeated) by the next `up`.
 */
export function clearResolved(deployment: unknown): {
  deployment: Record<string, unknown>;
  cleared: ClearedCreate[];
} {
  const parsed = Deployment.parse(deployment);
  const recorded = new Set((parsed.resources ?? []).map((r) => r["urn"]));
  const cleared: ClearedCreate[] = [];
  const left: PendingOperation[] = [];
  for (const op of parsed.pending_operations ?? []) {
    // A restore's or record method's is never cleared here: settlePendingCreates records it
    // with an unknown outcome before the next `up` (a replacement may be what was in flight).
    if (op.type !== "creating" || neverRepeatedCreate(op) !== undefined || !recorded.has(op.resource.urn)) {
      left.push(op);
      continue;
    }
    const token = op.resource.type;
    cleared.push({
      urn: op.resource.urn,
      type: stackwrightTypeOf(token) ?? token,
      name: urnName(op.resource.urn),
    });
  }
  return { deployment: { ...parsed, pending_operations: left }, cleared };
}

/**
 * After an `up` or a `refresh` that succeeded: clears the pending creates an earlier run left
 * whose resource the state now records (see {@link clearResolved}), one line each. One read of
 * the checkpoint when there are none. Runs while no lock is held (`pulumi stack import` takes it).
 */
export async function clearResolvedPendingCreates(
  stack: StackState,
  target: LockTarget,
  log: (line: string) => void,
): Promise<ClearedCreate[]> {
  const latest = await latestDeployment(target);
  if (latest === undefined || clearResolved(latest).cleared.length === 0) return [];
  if ((await readLocks(target.store, target.project, target.stack)).length > 0) return [];
  const exported = await stack.exportStack();
  const { deployment, cleared } = clearResolved(exported.deployment);
  if (cleared.length === 0) return [];
  await stack.importStack({ version: exported.version, deployment });
  for (const { type, name } of cleared) {
    log(
      `stackwright: ${target.stack}: cleared the pending create of ${type} ${name} that an earlier run left: ` +
        "the state records it now (created or found by its marker)",
    );
  }
  return cleared;
}

/**
 * The latest deployment of the stack's checkpoint (read by the state backend's one reader, plain
 * or gzip), or undefined when there is none we can read.
 */
export async function latestDeployment(target: LockTarget): Promise<z.infer<typeof Deployment> | undefined> {
  const latest = (await readCheckpoint(target.store, target.project, target.stack))?.latest;
  const parsed = Deployment.safeParse(latest);
  return latest === null || latest === undefined || !parsed.success ? undefined : parsed.data;
}
