/**
 * What a run of one stack did or plans, read from the engine's events in the summary's words
 * (report/summary.ts, plain text): the display's lines, the closing table's counts and `--json`
 * all come from here, so they say the same thing for the same step (an adopt is an adopt, never
 * a create).
 */
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { stripVTControlCharacters } from "node:util";
import { stackwrightTypeOf, urnName } from "../../api";
import { previewFromEvents } from "../engine/preview-events";
import { KIND_LABELS, PLAIN_WORDS, plannedChanges, type PlannedChange } from "../report/summary";

/** A deployment's states that wait for a person before it runs. */
const AWAITING = new Set(["Submitted", "New"]);

/** One change of a step, as a line says it: `acme-web/uat  deploy from 8f3c2a1 to tag v1.4.0`. */
export interface ChangeLine {
  readonly urn: string;
  /** `acme-web/uat`, or the API stack for a change of no environment. */
  readonly where: string;
  readonly change: PlannedChange;
  /** The change column's word (`deploy`, `adopt`, `lock`, ...). */
  readonly label: string;
}

/** The change a step event plans (undefined for one that changes nothing on the platform). */
export function changeOfStep(event: EngineEvent): ChangeLine | undefined {
  const urn = event.resourcePreEvent?.metadata.urn;
  if (urn === undefined) return undefined;
  const change = plannedChanges(previewFromEvents([event]), PLAIN_WORDS).changes[0];
  if (change === undefined) return undefined;
  return { urn, where: whereOf(change), change, label: KIND_LABELS[change.kind] };
}

function whereOf(change: PlannedChange): string {
  return change.environment === "—" ? change.stack : `${change.stack}/${change.environment}`;
}

/** A line's text: where, then the change in the summary's words. */
export function changeText(line: ChangeLine): string {
  return `${line.where}  ${line.label} ${line.change.text}`;
}

/** A deployment as a run leaves it (from its resource's outputs). */
export interface DeploymentSeen {
  readonly urn: string;
  readonly where: string;
  readonly id: string;
  readonly state: string;
  readonly link?: string;
  readonly sha?: string;
  /** Made (created, replaced or started) by this run, not only read. */
  readonly made: boolean;
}

function stringOf(value: unknown): string | undefined {
  return typeof value === "string" && value !== ""
    ? value
    : typeof value === "number"
      ? String(value)
      : undefined;
}

/** The deployment a `Deployment` resource's outputs event records, if any. */
export function deploymentOfOutputs(event: EngineEvent): DeploymentSeen | undefined {
  const meta = event.resOutputsEvent?.metadata;
  if (meta === undefined || stackwrightTypeOf(meta.type) !== "Deployment") return undefined;
  const outputs = meta.new?.outputs ?? {};
  const id = stringOf(outputs["deployment_id"]);
  const state = stringOf(outputs["state"]);
  if (id === undefined || state === undefined) return undefined;
  const stack = stringOf(outputs["stack"]) ?? stringOf(meta.new?.inputs?.["stack"]);
  const environment = stringOf(outputs["environment"]) ?? stringOf(meta.new?.inputs?.["environment"]);
  const name = urnName(meta.urn);
  const link = stringOf(outputs["link"]);
  const sha = stringOf(outputs["sha"]);
  return {
    urn: meta.urn,
    where: stack !== undefined && environment !== undefined ? `${stack}/${environment}` : name,
    id,
    state,
    ...(link === undefined ? {} : { link }),
    ...(sha === undefined ? {} : { sha }),
    made: meta.op !== "same" && meta.op !== "refresh" && meta.op !== "read",
  };
}

/** Whether a deployment waits for a person's approval before it runs. */
export function awaitsApproval(deployment: { readonly state: string }): boolean {
  return AWAITING.has(deployment.state);
}

/** What one stack's run amounted to, from all of its events. */
export interface RunChanges {
  readonly changes: readonly ChangeLine[];
  readonly unchanged: number;
  /** Every deployment the run left recorded, the last word per resource. */
  readonly deployments: readonly DeploymentSeen[];
  /** The stack's outputs (its `pulumi:pulumi:Stack` resource's), when the run reported them. */
  readonly outputs?: Readonly<Record<string, unknown>>;
}

export function runChanges(events: readonly EngineEvent[]): RunChanges {
  const changes = events.flatMap((e) => changeOfStep(e) ?? []);
  const { unchanged } = plannedChanges(previewFromEvents(events), PLAIN_WORDS);
  const byUrn = new Map<string, DeploymentSeen>();
  let outputs: Record<string, unknown> | undefined;
  for (const event of events) {
    const d = deploymentOfOutputs(event);
    if (d !== undefined) byUrn.set(d.urn, { ...d, made: d.made || byUrn.get(d.urn)?.made === true });
    const meta = event.resOutputsEvent?.metadata;
    if (meta?.type === "pulumi:pulumi:Stack" && meta.new?.outputs !== undefined) outputs = meta.new.outputs;
  }
  return {
    changes,
    unchanged,
    deployments: [...byUrn.values()],
    ...(outputs === undefined ? {} : { outputs }),
  };
}

/** The words in the summary's order (deploy first), so counts read the same whatever ran first. */
const LABEL_ORDER = [...new Set(Object.values(KIND_LABELS))];

/** Counts per word, in the summary's order of words: `2 deploy · 1 adopt`. */
export function countsOf(changes: readonly ChangeLine[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const c of changes) counts.set(c.label, (counts.get(c.label) ?? 0) + 1);
  return new Map([...counts].sort((a, b) => LABEL_ORDER.indexOf(a[0]) - LABEL_ORDER.indexOf(b[0])));
}

export function countsText(counts: ReadonlyMap<string, number>, separator = " · "): string {
  return [...counts.entries()].map(([label, n]) => `${n} ${label}`).join(separator);
}

/** The engine's `<{%reset%}>`-style colour markup. */
const MARKUP = /<\{%[a-z-]+%\}>/g;

/** The engine's own summaries of a failure, which name no cause (the resource's error does). */
const GENERIC = /^(update|preview|refresh|destroy) failed$|^\d+ errors? occurred/i;

/**
 * A diagnostic's message as plain text, without the engine's markup and its `error:` or
 * `warning:` word; undefined for an empty one or the engine's generic "update failed".
 */
export function diagnosticText(message: string): string | undefined {
  const text = stripVTControlCharacters(message.replace(MARKUP, ""))
    .replace(/^(error|warning):\s*/i, "")
    // The engine's wrapper of one error ("1 error occurred:\n\t* <the error>").
    .replace(/^1 error occurred:\s*\n\s*\* /, "")
    .trimEnd();
  return text.trim() === "" || GENERIC.test(text.trim()) ? undefined : text;
}
