/**
 * Synthetic plans for the summary's tests: engine events of one per-file stack, as the engine
 * sends them to `preview --summary` and writes them to `pulumi preview --event-log`.
 */
import type { EngineEvent, OpType } from "@pulumi/pulumi/automation";

export const TYPE = (name: string) => `pulumi-nodejs:dynamic/stackwright:${name}`;

export type ResourceType =
  | "Deployment"
  | "EnvironmentLock"
  | "Snapshot"
  | "SnapshotRestore"
  | "GitFetch"
  | "RecordAction";

export interface PlannedStep {
  readonly op: OpType;
  readonly type: ResourceType;
  /** `<stack>/<environment>[/<logical>]`, or `<stack>/<Class>/<id>/<method>` for a record. */
  readonly name: string;
  readonly inputs: Record<string, unknown>;
  readonly oldInputs?: Record<string, unknown>;
  readonly oldOutputs?: Record<string, unknown>;
  readonly retain?: boolean;
  readonly keys?: string[];
}

let sequence = 0;
const event = (body: Omit<EngineEvent, "sequence" | "timestamp">): EngineEvent => ({
  sequence: sequence++,
  timestamp: 0,
  ...body,
});

export function urnOf(stackName: string, type: string, name: string): string {
  return `urn:pulumi:${stackName}::stackwright::stackwright:index:Stack$${type}::${name}`;
}

/** The engine's events for `steps` of `stackName`, with `facts` as the stack's outputs. */
export function planEvents(
  stackName: string,
  steps: readonly PlannedStep[],
  extra: { diagnostics?: { message: string; severity: string }[]; facts?: unknown } = {},
): EngineEvent[] {
  const events: EngineEvent[] = [];
  for (const s of steps) {
    const type = TYPE(s.type);
    const urn = urnOf(stackName, type, s.name);
    const state = (inputs: Record<string, unknown>, outputs: Record<string, unknown>, retain?: boolean) => ({
      urn,
      type,
      id: "",
      parent: "",
      provider: "",
      inputs,
      outputs,
      ...(retain === true ? { retainOnDelete: true } : {}),
    });
    const hasOld = s.op !== "create" && s.op !== "read" && s.op !== "import";
    const hasNew = s.op !== "delete";
    events.push(
      event({
        resourcePreEvent: {
          metadata: {
            op: s.op,
            urn,
            type,
            provider: "",
            ...(hasOld ? { old: state(s.oldInputs ?? s.inputs, s.oldOutputs ?? {}, s.retain) } : {}),
            ...(hasNew ? { new: state(s.inputs, {}) } : {}),
            ...(s.keys === undefined ? {} : { keys: s.keys }),
          },
        },
      }),
    );
  }
  for (const d of extra.diagnostics ?? []) {
    events.push(
      event({
        diagnosticEvent: {
          message: d.message,
          severity: d.severity as "info",
          color: "never",
          urn: urnOf(stackName, TYPE("Deployment"), "x"),
        },
      }),
    );
  }
  if (extra.facts !== undefined) {
    const stackUrn = `urn:pulumi:${stackName}::stackwright::pulumi:pulumi:Stack::stackwright-${stackName}`;
    events.push(
      event({
        resOutputsEvent: {
          metadata: {
            op: "same",
            urn: stackUrn,
            type: "pulumi:pulumi:Stack",
            provider: "",
            new: {
              urn: stackUrn,
              type: "pulumi:pulumi:Stack",
              id: "",
              parent: "",
              provider: "",
              inputs: {},
              outputs: { facts: extra.facts },
            },
          },
        },
      }),
    );
  }
  return events;
}

/** The event log `pulumi preview --event-log FILE` writes: one event per line. */
export function eventLogText(events: readonly EngineEvent[]): string {
  return events.map((e) => JSON.stringify(e)).join("\n") + "\n";
}
