/**
 * Turns a parsed `pulumi preview --json` into the Markdown comment a reviewer reads on a pull
 * request: per stack and environment, what will deploy from which sha to which ref, locks and
 * unlocks, snapshots and restores, record actions, with counts and the preview's warnings.
 */
import type { PreviewJson, PreviewStep } from "./preview-json";

/** What one planned step means to an operator. */
export interface PlannedChange {
  readonly stack: string;
  readonly environment: string;
  readonly kind: ChangeKind;
  readonly text: string;
}

export type ChangeKind =
  | "deploy"
  | "redeploy"
  | "retire"
  | "metadata"
  | "lock"
  | "unlock"
  | "relock"
  | "snapshot"
  | "snapshot-delete"
  | "restore"
  | "fetch"
  | "record"
  | "other";

const KIND_LABELS: Record<ChangeKind, string> = {
  deploy: "deploy",
  redeploy: "redeploy",
  retire: "retire",
  metadata: "in place",
  lock: "lock",
  unlock: "unlock",
  relock: "lock message",
  snapshot: "snapshot",
  "snapshot-delete": "delete snapshot",
  restore: "restore",
  fetch: "git fetch",
  record: "record action",
  other: "other",
};

type Op = "create" | "update" | "replace" | "delete" | "same";

function normaliseOp(op: string): Op | undefined {
  switch (op) {
    case "create":
    case "update":
    case "delete":
      return op;
    case "replace":
      return "replace";
    case "same":
    case "read":
    case "refresh":
      return "same";
    default:
      // create-replacement and delete-replaced come with their `replace` step; discard, import...
      // are not API changes.
      return undefined;
  }
}

/** What the engine shows for a value that is not known until the update runs. */
const UNKNOWN_VALUE = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** A known, non-empty string, or undefined. */
function str(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" && value !== UNKNOWN_VALUE ? value : undefined;
}

/**
 * The inputs a step changes, without the engine's own bookkeeping. Dynamic providers report no
 * changed keys, so they are read off the old and new inputs when the engine gives none.
 */
function changedInputs(step: PreviewStep): string[] {
  const olds = step.oldState?.inputs ?? {};
  const news = step.newState?.inputs ?? {};
  const keys = step.diffReasons?.length
    ? step.diffReasons
    : [...new Set([...Object.keys(olds), ...Object.keys(news)])].filter(
        (k) => JSON.stringify(olds[k]) !== JSON.stringify(news[k]),
      );
  return keys.filter((k) => k !== "__provider" && k !== "marker").sort();
}

function shortSha(value: unknown): string | undefined {
  const s = str(value);
  return s === undefined ? undefined : /^[0-9a-f]{12,}$/i.test(s) ? s.slice(0, 7) : s;
}

function code(value: string): string {
  return "`" + value.replace(/`/g, "'") + "`";
}

/** The resource's type name (`Deployment`) from its token (`pulumi-nodejs:dynamic/stackwright:Deployment`). */
function typeName(step: PreviewStep): string {
  const token = step.newState?.type ?? step.oldState?.type ?? step.urn.split("::")[2] ?? "";
  const last = token.split("$").pop() ?? token;
  return last.slice(last.lastIndexOf(":") + 1);
}

/** What a step means to an operator; undefined for a step that changes nothing on the platform. */
function describe(
  step: PreviewStep,
  op: Exclude<Op, "same">,
): { kind: ChangeKind; text: string } | undefined {
  const inputs = step.newState?.inputs ?? step.oldState?.inputs ?? {};
  const oldOutputs = step.oldState?.outputs ?? {};
  const name = step.urn.slice(step.urn.lastIndexOf("::") + 2);
  // Snapshots and restores are named `<stack>/<environment>/<logical name>`.
  const logical = name.slice(name.lastIndexOf("/") + 1);
  switch (typeName(step)) {
    case "Deployment": {
      if (op === "delete") return { kind: "retire", text: "stop managing the deployment (history kept)" };
      if (op === "update") {
        const changed = changedInputs(step);
        if (changed.length === 1 && changed[0] === "environment_lock") {
          return { kind: "metadata", text: "records the environment's lock; nothing deploys" };
        }
        const what = changed.length === 0 ? "" : ` (${changed.join(", ")})`;
        return { kind: "metadata", text: `in place${what}; nothing redeploys` };
      }
      const refType = str(inputs["ref_type"]) ?? "ref";
      const ref = str(inputs["ref"]);
      const to = ref === undefined ? refType.replace(/_/g, " ") : `${refType} ${code(ref)}`;
      const from = shortSha(oldOutputs["sha"]) ?? shortSha(inputs["observed_sha"]);
      const reasons = step.replaceReasons?.length ? ` (changed: ${step.replaceReasons.join(", ")})` : "";
      return {
        kind: op === "replace" ? "redeploy" : "deploy",
        text: `${from === undefined ? "" : `from ${code(from)} `}to ${to}${reasons}`,
      };
    }
    case "EnvironmentLock": {
      // One per environment; `locked: false` keeps it unlocked (see providers/environment-lock).
      const message = str(inputs["message"]) ?? str(inputs["lock_message"]);
      const text = message === undefined ? "lock the environment" : `"${message}"`;
      // A lock that only records the environment's work (its `holds`) changes nothing.
      if (op === "update" && changedInputs(step).every((k) => k === "holds")) return undefined;
      const wasLocked = step.oldState !== undefined && step.oldState.outputs?.["locked"] !== false;
      const wantsLock = op !== "delete" && step.newState?.inputs?.["locked"] !== false;
      if (wantsLock) return { kind: wasLocked && op !== "create" ? "relock" : "lock", text };
      if (wasLocked) return { kind: "unlock", text: "remove the lock" };
      return undefined;
    }
    case "Snapshot": {
      // New notes or a new wait bound are recorded in place; the platform's snapshot stays.
      if (op === "update") {
        const what = changedInputs(step).includes("notes")
          ? "new notes apply to the next snapshot taken"
          : "in place";
        return { kind: "metadata", text: `${code(logical)}: ${what}; nothing is taken` };
      }
      const mode = str(inputs["mode"]) ?? "all";
      const reasons =
        op === "replace" && step.replaceReasons?.length ? `, changed: ${step.replaceReasons.join(", ")}` : "";
      return {
        kind: op === "delete" ? "snapshot-delete" : "snapshot",
        text: `${code(logical)} (${mode}${reasons})`,
      };
    }
    case "SnapshotRestore": {
      const from = str(inputs["snapshot"]) ?? str(inputs["snapshot_id"]);
      const mode = str(inputs["mode"]) ?? "all";
      if (op === "delete")
        return { kind: "other", text: `forget restore ${code(logical)} (nothing is undone)` };
      // Its snapshot taken anew (or a new wait bound): recorded in place, the restore does not run.
      if (op === "update") {
        const restored = str(oldOutputs["restored_snapshot_id"]) ?? str(oldOutputs["snapshot_id"]);
        const kept = restored === undefined ? "" : ` (restored from snapshot ${code(restored)})`;
        const what = changedInputs(step).includes("snapshot_id")
          ? `records ${from === undefined ? "its snapshot" : code(from)} taken anew`
          : "in place";
        return { kind: "metadata", text: `${code(logical)} ${what}; nothing is restored${kept}` };
      }
      const source = from === undefined ? "a snapshot taken in this run" : `snapshot ${code(from)}`;
      return { kind: "restore", text: `${code(logical)} from ${source} (${mode})` };
    }
    case "GitFetch":
      return { kind: "fetch", text: op === "delete" ? "forget the fetch" : "fetch the repository" };
    case "RecordAction": {
      const cls = str(inputs["class_name"]) ?? "?";
      const id = inputs["record_id"] === undefined ? "?" : String(inputs["record_id"]);
      const method = str(inputs["method"]) ?? "?";
      return { kind: "record", text: code(`${cls}#${id}.${method}`) };
    }
    default:
      return { kind: "other", text: `${op} ${code(name)}` };
  }
}

/** Interprets every step of a preview as planned changes, and counts the unchanged ones. */
export function plannedChanges(preview: PreviewJson): { changes: PlannedChange[]; unchanged: number } {
  const changes: PlannedChange[] = [];
  let unchanged = 0;
  for (const step of preview.steps) {
    const op = normaliseOp(step.op);
    if (op === undefined) continue;
    const custom = step.newState?.urn ?? step.oldState?.urn;
    // Component resources and the stack itself make no API call.
    const type = step.newState?.type ?? step.oldState?.type ?? "";
    if (!type.startsWith("pulumi-nodejs:dynamic/") || custom === undefined) continue;
    if (op === "same") {
      unchanged++;
      continue;
    }
    const inputs = step.newState?.inputs ?? step.oldState?.inputs ?? {};
    const described = describe(step, op);
    if (described === undefined) {
      unchanged++;
      continue;
    }
    const { kind, text } = described;
    // Every resource the program declares is named `<stack>/...`; records carry no stack input.
    const name = step.urn.slice(step.urn.lastIndexOf("::") + 2);
    changes.push({
      stack: str(inputs["stack"]) ?? name.split("/")[0] ?? name,
      environment: str(inputs["environment"]) ?? "—",
      kind,
      text,
    });
  }
  return { changes, unchanged };
}

function countLine(changes: readonly PlannedChange[], unchanged: number): string {
  const counts = new Map<ChangeKind, number>();
  for (const c of changes) counts.set(c.kind, (counts.get(c.kind) ?? 0) + 1);
  const parts = [...counts.entries()].map(([kind, n]) => `${n} ${KIND_LABELS[kind]}`);
  const planned = parts.length === 0 ? "No changes" : parts.join(" · ");
  return `**${planned}** (${unchanged} unchanged)`;
}

/** Renders the Markdown comment for a pull request. */
export function renderSummary(preview: PreviewJson, options: { title?: string } = {}): string {
  const { changes, unchanged } = plannedChanges(preview);
  const lines: string[] = [
    `## ${options.title ?? "Stackwright preview"}`,
    "",
    countLine(changes, unchanged),
    "",
  ];
  const stacks = [...new Set(changes.map((c) => c.stack))].sort();
  for (const stack of stacks) {
    lines.push(`### ${stack}`, "", "| environment | change | details |", "|---|---|---|");
    const rows = changes
      .filter((c) => c.stack === stack)
      .sort((a, b) => a.environment.localeCompare(b.environment));
    for (const row of rows) {
      lines.push(`| ${row.environment} | ${KIND_LABELS[row.kind]} | ${row.text.replace(/\|/g, "\\|")} |`);
    }
    lines.push("");
  }
  const notes = preview.diagnostics.filter((d) => d.severity === "warning" || d.severity === "error");
  if (notes.length > 0) {
    lines.push("### Warnings and errors", "");
    for (const d of notes) {
      lines.push(`- **${d.severity}**: ${d.message.trim().replace(/\s*\n\s*/g, " ")}`);
    }
    lines.push("");
  }
  return lines.join("\n");
}
