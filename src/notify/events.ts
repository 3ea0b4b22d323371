/**
 * The notification events of a run, built from what the run learned: a stack's engine events
 * (deployments and restores in their final state), the locks it recovered, the restores it
 * recorded with an unknown outcome, a window override, a failure; and, for `drift`, a report's
 * new and resolved entries. Building is pure: nothing here sends anything.
 */
import { createHash, randomUUID } from "node:crypto";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import {
  FAILED_DEPLOYMENT_STATES,
  NOTIFY_SCHEMA_ID,
  PENDING_DEPLOYMENT_STATES,
  typeNameOf,
  urnName,
  checkText,
  failureText,
  verificationOf,
  type NotifyEvent,
  type NotifyEventName,
} from "../api";
import { ciRunOf } from "./ci";

/** What every event of one run shares. */
export interface EventContext {
  readonly target: string;
  /** The CLI process's environment (for the CI run's link). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Identifies this run in the ids of events that have no platform id of their own. */
  readonly runId: string;
  readonly now: () => Date;
  /** Samples of `notify test`. */
  readonly test?: boolean;
}

/** A context for this process: a fresh run id and the wall clock. */
export function eventContext(
  target: string,
  env: Readonly<Record<string, string | undefined>>,
): EventContext {
  return { target, env, runId: randomUUID(), now: () => new Date() };
}

/** One stack's run, as far as notifications need it (the CLI fills it in from its outcome). */
export interface StackRunReport {
  readonly apiStack: string;
  /** The per-file Pulumi stack, `<target>.<API stack>`. */
  readonly pulumiStack: string;
  readonly exitCode: number;
  /** Why the run ended in error, in one line (none when it did not). */
  readonly failure?: string;
  /** The engine's events of the run. */
  readonly events: readonly EngineEvent[];
  /** Stale locks the run removed before it started: whose, and why they were judged stale. */
  readonly recoveredLocks?: readonly { readonly holder: string; readonly reason: string }[];
  /** Restores the run recorded with an unknown outcome (a run before it, or its provider, died). */
  readonly unknownRestores?: readonly { readonly name: string; readonly why: string }[];
  /** The --override-window reason and the environments whose windows were closed. */
  readonly override?: { readonly reason: string; readonly environments: readonly string[] };
}

type Envelope = Omit<NotifyEvent, "event" | "details">;

/** A stable id: the same inputs give the same id (and so the same Idempotency-Key). */
function stableId(parts: readonly string[]): string {
  const hex = createHash("sha256").update(parts.join("\u0000")).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

function envelope(
  ctx: EventContext,
  event: NotifyEventName,
  where: { stack: string; pulumiStack: string; environment: string | null },
  identity: readonly string[],
  summary: string,
  deploymentLink: string | null = null,
): Envelope & { event: NotifyEventName } {
  const ci = ciRunOf(ctx.env);
  return {
    schema: NOTIFY_SCHEMA_ID,
    id: stableId([event, ctx.target, where.stack, where.environment ?? "", ...identity]),
    event,
    time: ctx.now().toISOString(),
    target: ctx.target,
    stack: where.stack,
    pulumi_stack: where.pulumiStack,
    environment: where.environment,
    summary,
    links: { deployment: deploymentLink, ci_run: ci?.url ?? null },
    ci: ci ?? null,
    test: ctx.test === true,
  };
}

function typeName(type: string): string {
  return typeNameOf(type.slice(type.lastIndexOf("$") + 1));
}

function str(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : typeof value === "number" ? String(value) : null;
}

/** The resource's own name: the last URN segment (`acme-web/uat/refresh-uat` → `refresh-uat`). */
function logicalName(urn: string): string {
  const name = urnName(urn);
  return name.split("/").pop() ?? name;
}

const FAILED: readonly string[] = FAILED_DEPLOYMENT_STATES;
const PENDING: readonly string[] = PENDING_DEPLOYMENT_STATES;
const CHANGING_OPS = new Set(["create", "update", "replace", "create-replacement"]);

/** The diagnostic lines the engine reported for a resource (its error messages). */
function errorsOf(events: readonly EngineEvent[], urn: string): string[] {
  return events.flatMap((e) => {
    const d = e.diagnosticEvent;
    return d?.urn === urn && d.severity === "error" ? [d.message] : [];
  });
}

/** `message` split into its first line and the log tail the provider appended (log-follower.ts). */
function splitTail(message: string): { line: string; tail: string[] } {
  const [head, ...rest] = message.split(/\nLast \d+ lines of its log:\n/);
  const tail =
    rest.length === 0
      ? []
      : rest
          .join("\n")
          .split("\n")
          .map((l) => l.replace(/^ {2}/, ""));
  const line = causeLine(head ?? "") ?? "";
  return { line, tail: tail.filter((l) => l.trim() !== "") };
}

/** The first line of an engine error that says something: not its "1 error occurred:" wrapper. */
function causeLine(message: string): string | undefined {
  return message
    .split("\n")
    .map((l) => l.trim().replace(/^\* /, ""))
    .find((l) => l !== "" && !/^\d+ errors? occurred:?$/.test(l));
}

/**
 * The first line of the first error the engine reported about one of our resources, without the
 * "1 error occurred:" wrapper: the cause of a failed run, in one line.
 */
function firstResourceError(events: readonly EngineEvent[]): string | undefined {
  for (const e of events) {
    const d = e.diagnosticEvent;
    if (
      d === undefined ||
      d.severity !== "error" ||
      d.urn === undefined ||
      d.urn.includes("::pulumi:pulumi:Stack::")
    )
      continue;
    const line = causeLine(d.message);
    if (line !== undefined) return line;
  }
  return undefined;
}

/** Every event one stack's run produced, in a stable order. */
export function stackRunEvents(run: StackRunReport, ctx: EventContext): NotifyEvent[] {
  const out: NotifyEvent[] = [];
  const at = (environment: string | null) => ({
    stack: run.apiStack,
    pulumiStack: run.pulumiStack,
    environment,
  });
  for (const lock of run.recoveredLocks ?? []) {
    out.push({
      ...envelope(
        ctx,
        "lock.recovered",
        at(null),
        [ctx.runId, lock.holder],
        `${run.pulumiStack}: removed a stale lock (${lock.holder})`,
      ),
      event: "lock.recovered",
      details: { holder: lock.holder, reason: lock.reason },
    });
  }
  if (run.override !== undefined && run.override.environments.length > 0) {
    const { reason, environments } = run.override;
    out.push({
      ...envelope(
        ctx,
        "window.overridden",
        at(environments.length === 1 ? (environments[0] ?? null) : null),
        [ctx.runId],
        `${run.apiStack}: change windows overridden for ${environments.join(", ")}: "${reason}"`,
      ),
      event: "window.overridden",
      details: { reason, environments: [...environments] },
    });
  }
  for (const restore of run.unknownRestores ?? []) {
    out.push(unknownRestore(run, ctx, restore.name, null, restore.why));
  }
  // The last word about each resource: its final outputs, or its failure.
  const last = new Map<string, EngineEvent>();
  for (const e of run.events) {
    const meta = e.resOutputsEvent?.metadata ?? e.resOpFailedEvent?.metadata;
    if (meta === undefined || !CHANGING_OPS.has(meta.op)) continue;
    const kind = typeName(meta.type);
    if (kind === "Deployment" || kind === "SnapshotRestore") last.set(meta.urn, e);
  }
  for (const [urn, e] of last) {
    const failedEvent = e.resOpFailedEvent !== undefined;
    const meta = e.resOutputsEvent?.metadata ?? e.resOpFailedEvent?.metadata;
    if (meta === undefined) continue;
    const state = meta.new;
    const values: Record<string, unknown> = { ...(state?.inputs ?? {}), ...(state?.outputs ?? {}) };
    const environment = str(values["environment"]);
    const message = errorsOf(run.events, urn).join("\n");
    if (typeName(meta.type) === "Deployment") {
      out.push(...deploymentEvent(run, ctx, at(environment), values, failedEvent, message));
      out.push(...verificationEvents(run, ctx, at(environment), values));
    } else {
      const status = str(values["status"]);
      const name = logicalName(urn);
      if (status === "unknown") {
        out.push(unknownRestore(run, ctx, name, environment, "its answer was lost"));
        continue;
      }
      const ok = !failedEvent && status === "Finished";
      if (!ok && !failedEvent && status !== "Failed") continue; // still running: not certain yet
      const event = ok ? "restore.succeeded" : "restore.failed";
      const line = splitTail(message).line;
      const transfer = str(values["transfer_id"]);
      out.push({
        ...envelope(
          ctx,
          event,
          at(environment),
          [transfer ?? `${ctx.runId}:${name}`],
          ok
            ? `${run.apiStack}/${environment ?? "?"}: restore ${name} finished`
            : `${run.apiStack}/${environment ?? "?"}: restore ${name} failed${line === "" ? "" : `: ${line}`}`,
        ),
        event,
        details: { transfer_id: transfer, restore: name, status, message: line === "" ? null : line },
      });
    }
  }
  if (run.exitCode !== 0 && run.failure !== undefined) {
    // The engine's own report names the cause better than the run's line ("the engine's report above").
    const reason = firstResourceError(run.events) ?? run.failure.split("\n")[0] ?? run.failure;
    out.push({
      ...envelope(ctx, "run.failed", at(null), [ctx.runId], `${run.pulumiStack} failed: ${reason}`),
      event: "run.failed",
      details: { reason, exit_code: run.exitCode },
    });
  }
  return out;
}

function unknownRestore(
  run: StackRunReport,
  ctx: EventContext,
  name: string,
  environment: string | null,
  why: string,
): NotifyEvent {
  const line = `restore ${name} may have run (${why}): recorded with an unknown outcome and not run again; check the environment`;
  return {
    ...envelope(
      ctx,
      "restore.outcome_unknown",
      { stack: run.apiStack, pulumiStack: run.pulumiStack, environment },
      [ctx.runId, name],
      `${run.apiStack}${environment === null ? "" : `/${environment}`}: ${line}`,
    ),
    event: "restore.outcome_unknown",
    details: { transfer_id: null, restore: name, status: "unknown", message: line },
  };
}

function deploymentEvent(
  run: StackRunReport,
  ctx: EventContext,
  where: { stack: string; pulumiStack: string; environment: string | null },
  values: Record<string, unknown>,
  failedEvent: boolean,
  message: string,
): NotifyEvent[] {
  const { line, tail } = splitTail(message);
  // The provider's message names the deployment and its link when the outputs do not.
  const id = str(values["deployment_id"]) ?? /Deployment (\d+)/.exec(line)?.[1] ?? null;
  const link = str(values["link"]) ?? /(https?:\/\/\S+?)\.?(?:\s|$)/.exec(line)?.[1] ?? null;
  const state = str(values["state"]) ?? /ended (\w+)/.exec(line)?.[1] ?? null;
  const env = where.environment ?? "?";
  const deployment = `${run.apiStack}/${env}: deployment${id === null ? "" : ` ${id}`}`;
  let event: NotifyEventName;
  let summary: string;
  if (failedEvent || (state !== null && FAILED.includes(state))) {
    event = "deployment.failed";
    summary = `${deployment} failed${state === null ? "" : ` (${state})`}`;
  } else if (state === "Completed") {
    event = "deployment.succeeded";
    summary = `${deployment} completed`;
  } else if (state !== null && PENDING.includes(state) && state !== "Approved") {
    event = "deployment.awaiting_approval";
    summary = `${deployment} waits for approval`;
  } else return []; // queued or running (wait: false): not certain yet
  return [
    {
      ...envelope(
        ctx,
        event,
        where,
        [id === null ? `${ctx.runId}:${env}` : `deployment:${id}`],
        summary,
        link,
      ),
      event,
      details: {
        deployment_id: id,
        state,
        sha: str(values["sha"]),
        ref: str(values["ref"]),
        message: line === "" ? null : line,
        log_tail: event === "deployment.failed" ? tail : [],
      },
    } as NotifyEvent,
  ];
}

/**
 * `verification.failed` or `verification.rolled_back` when the deployment's checks (`verify:`)
 * failed in this run, from the verification the Deployment resource recorded in its outputs.
 */
function verificationEvents(
  run: StackRunReport,
  ctx: EventContext,
  where: { stack: string; pulumiStack: string; environment: string | null },
  values: Record<string, unknown>,
): NotifyEvent[] {
  const v = verificationOf(values);
  if (v === undefined || v.result === "passed") return [];
  const env = where.environment ?? "?";
  const short = (sha: string) => sha.slice(0, 7);
  const message = failureText(v);
  const to = v.rolled_back_to;
  const rollbackCommand =
    v.result === "rolled_back" && to !== null
      ? `stackwright rollback ${run.apiStack} ${env} --to ${to.deployment_id} --target ${ctx.target} ` +
        `--branch rollback/${run.apiStack}-${env}-${short(to.sha)}`
      : null;
  const event = v.result === "rolled_back" ? "verification.rolled_back" : "verification.failed";
  const summary =
    event === "verification.failed"
      ? `${run.apiStack}/${env}: deployment ${v.deployment_id} (${short(v.sha)}) failed verification: ${message}`
      : `${run.apiStack}/${env}: ${short(v.sha)} failed verification (${message}); rolled back to ` +
        `${short(to?.sha ?? "")}${rollbackCommand === null ? "" : `; make the file match: ${rollbackCommand}`}`;
  return [
    {
      ...envelope(
        ctx,
        event,
        where,
        [`verification:${v.deployment_id}:${v.finished_at}`],
        summary,
        str(values["link"]),
      ),
      event,
      details: {
        checked_deployment_id: v.deployment_id,
        sha: v.sha,
        check: v.failed_check === null ? null : checkText(v.failed_check),
        answer: v.answer,
        message,
        rolled_back_to: to,
        rollback_command: rollbackCommand,
      },
    },
  ];
}

/** One entry of a drift report, as much as an event needs. */
export interface DriftEntry {
  readonly apiStack: string;
  readonly environment: string;
  /** What drifted (e.g. `deployment`). */
  readonly kind: string;
  readonly desired?: string | null;
  readonly live?: string | null;
  /** The drift in one line. */
  readonly message: string;
}

/** What `stackwright drift` learned compared with its memory: only new and resolved entries notify. */
export interface DriftChanges {
  readonly new: readonly DriftEntry[];
  readonly resolved: readonly DriftEntry[];
}

/**
 * `drift.detected` for each new entry and `drift.resolved` for each resolved one; an entry still
 * drifted is never in `changes` and so never repeated. The id is the same for the same drift
 * (stack, environment, kind, desired, live), so a receiver can drop a second report of it.
 */
export function driftEvents(changes: DriftChanges, ctx: EventContext): NotifyEvent[] {
  const one = (entry: DriftEntry, event: "drift.detected" | "drift.resolved"): NotifyEvent => ({
    ...envelope(
      ctx,
      event,
      {
        stack: entry.apiStack,
        pulumiStack: `${ctx.target}.${entry.apiStack}`,
        environment: entry.environment,
      },
      [entry.kind, entry.desired ?? "", entry.live ?? ""],
      `${entry.apiStack}/${entry.environment}: ${event === "drift.detected" ? "drift" : "drift resolved"}: ${entry.message}`,
    ),
    event,
    details: {
      kind: entry.kind,
      desired: entry.desired ?? null,
      live: entry.live ?? null,
      message: entry.message,
    },
  });
  return [
    ...changes.new.map((entry) => one(entry, "drift.detected")),
    ...changes.resolved.map((entry) => one(entry, "drift.resolved")),
  ];
}
