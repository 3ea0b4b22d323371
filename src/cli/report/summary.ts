/**
 * Turns a parsed `pulumi preview --json` into the Markdown comment a reviewer reads on a pull
 * request: per stack and environment, what will deploy from which sha to which ref, locks and
 * unlocks, snapshots and restores, record actions, with counts and the preview's warnings.
 */
import { markdownCode, markdownText } from "../../safe-text";
import { shortSha, typeNameOf, urnName, urnType, verificationText, type Verification } from "../../api";
import { recordedInputs } from "../../../providers/shared/contract";
import { deploymentContract } from "../../../providers/shared/deployment";
import { environmentLockContract } from "../../../providers/shared/environment-lock";
import { recordActionContract } from "../../../providers/shared/record-action";
import { snapshotContract } from "../../../providers/shared/snapshot";
import { snapshotRestoreContract } from "../../../providers/shared/snapshot-restore";
import type { PreviewJson, PreviewStep } from "../engine/preview-json";

/**
 * The engine's operation of a step, as the summary tells them apart: a delete of a resource with
 * `retainOnDelete` (`delete[retain]` in the engine's display) leaves the object on the platform.
 */
export type StepOp = "create" | "update" | "replace" | "delete" | "delete-retain" | "read" | "import";

/** What one planned step means to an operator. */
export interface PlannedChange {
  readonly stack: string;
  readonly environment: string;
  /** The engine's operation this row comes from. */
  readonly op: StepOp;
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
  /** Removed from the desired state, kept on the platform (`retain: true`). */
  | "keep"
  /** Removed from the desired state; nothing runs and nothing is undone. */
  | "unmanage"
  | "read"
  | "adopt"
  | "other";

/** The words of the summary's "change" column (docs/guide.md, "Reading the summary"). */
export const KIND_LABELS: Record<ChangeKind, string> = {
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
  keep: "no longer managed",
  unmanage: "no longer managed",
  read: "read",
  adopt: "adopt",
  other: "other",
};

/** The operation of a step; "same" for no change; undefined for a step that is part of another. */
export function stepOp(step: PreviewStep): StepOp | "same" | undefined {
  switch (step.op) {
    case "create":
    case "update":
    case "replace":
    case "read":
    case "import":
      return step.op;
    case "delete":
      return step.oldState?.retainOnDelete === true ? "delete-retain" : "delete";
    case "same":
    case "refresh":
      return "same";
    default:
      // create-replacement and delete-replaced come with their `replace` step; discard (a read
      // resource dropped from the state), read-replacement and import-replacement with theirs.
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

/** A full sha shortened as the platform shows it; any other value (a tag, a short sha) as it is. */
function shaShown(value: unknown): string | undefined {
  const s = str(value);
  return s === undefined ? undefined : /^[0-9a-f]{12,}$/i.test(s) ? shortSha(s) : s;
}

/** A value in a code span (refs, shas, names: some are the platform's); `cell` makes it table-safe. */
function code(value: string): string {
  return markdownCode(value);
}

/** The resource's type name (`Deployment`) from its token (`pulumi-nodejs:dynamic/stackwright:Deployment`). */
function typeName(step: PreviewStep): string {
  return typeNameOf(step.newState?.type ?? step.oldState?.type ?? urnType(step.urn));
}

/** What a step means to an operator; undefined for a step that changes nothing on the platform. */
function describe(step: PreviewStep, op: StepOp): { kind: ChangeKind; text: string } | undefined {
  const inputs = step.newState?.inputs ?? step.oldState?.inputs ?? {};
  const oldOutputs = step.oldState?.outputs ?? {};
  const name = urnName(step.urn);
  // Snapshots and restores are named `<stack>/<environment>/<logical name>`.
  const logical = name.slice(name.lastIndexOf("/") + 1);
  const type = typeName(step);
  if (op === "read")
    return { kind: "read", text: `${code(logical)} read from the platform; nothing changes` };
  if (op === "import")
    return { kind: "adopt", text: `${code(logical)}: an existing object comes under management` };
  if (op === "delete-retain") {
    return { kind: "keep", text: `${type} ${code(logical)}: no longer managed; it stays on the platform` };
  }
  switch (type) {
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
      const deployment = recordedInputs(deploymentContract, inputs);
      const refType = deployment.ref_type ?? "ref";
      const ref = deployment.ref === "" ? undefined : deployment.ref;
      const to = ref === undefined ? refType.replace(/_/g, " ") : `${refType} ${code(ref)}`;
      // `adopt:` (as `stackwright import` writes it): the create records a deployment that exists.
      const adopt = deployment.adopt;
      if (op === "create" && adopt !== undefined) {
        return {
          kind: "adopt",
          text: `record deployment ${code(String(adopt))} (${to}) as it is; nothing deploys`,
        };
      }
      // The live sha read in this run (the drift check's), which is what the deployment replaces;
      // the sha recorded at the last run only when the live one is not known.
      const from = shaShown(step.newState?.inputs?.["observed_sha"]) ?? shaShown(oldOutputs["sha"]);
      const reasons = step.replaceReasons?.length ? ` (changed: ${step.replaceReasons.join(", ")})` : "";
      return {
        kind: op === "replace" ? "redeploy" : "deploy",
        text: `${from === undefined ? "" : `from ${code(from)} `}to ${to}${reasons}`,
      };
    }
    case "EnvironmentLock": {
      // One per environment; `locked: false` keeps it unlocked (see providers/environment-lock).
      const message = recordedInputs(environmentLockContract, inputs).message || undefined;
      const text = message === undefined ? "lock the environment" : `"${markdownText(message)}"`;
      // A lock that only records the environment's work (its `holds`) changes nothing.
      if (op === "update" && changedInputs(step).every((k) => k === "holds")) return undefined;
      const wasLocked = step.oldState !== undefined && step.oldState.outputs?.["locked"] !== false;
      const wantsLock = op !== "delete" && step.newState?.inputs?.["locked"] !== false;
      if (wantsLock) return { kind: wasLocked && op !== "create" ? "relock" : "lock", text };
      if (wasLocked) return { kind: "unlock", text: "remove the lock" };
      return undefined;
    }
    case "Snapshot": {
      const mode = recordedInputs(snapshotContract, inputs).mode ?? "all";
      // New notes or a new wait bound are recorded in place; the platform's snapshot stays.
      if (op === "update") {
        const what = changedInputs(step).includes("notes")
          ? "new notes apply to the next snapshot taken"
          : "in place";
        return { kind: "metadata", text: `${code(logical)}: ${what}; nothing is taken` };
      }
      const reasons =
        op === "replace" && step.replaceReasons?.length ? `, changed: ${step.replaceReasons.join(", ")}` : "";
      return {
        kind: op === "delete" ? "snapshot-delete" : "snapshot",
        text: `${code(logical)} (${mode}${reasons})`,
      };
    }
    case "SnapshotRestore": {
      const restore = recordedInputs(snapshotRestoreContract, inputs);
      const from =
        restore.snapshot ?? (restore.snapshot_id === undefined ? undefined : String(restore.snapshot_id));
      const mode = restore.mode ?? "all";
      if (op === "delete") {
        return { kind: "unmanage", text: `restore ${code(logical)}: no longer managed (nothing is undone)` };
      }
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
      if (op === "delete") return { kind: "unmanage", text: "git fetch: no longer managed (nothing runs)" };
      if (op === "update") return { kind: "metadata", text: "git fetch: in place; nothing is fetched" };
      return { kind: "fetch", text: "fetch the repository" };
    case "RecordAction": {
      const record = recordedInputs(recordActionContract, inputs);
      const cls = record.class_name ?? "?";
      const id = record.record_id === undefined ? "?" : String(record.record_id);
      const method = record.method ?? "?";
      const action = code(`${cls}#${id}.${method}`);
      if (op === "delete") return { kind: "unmanage", text: `${action}: no longer managed (nothing runs)` };
      if (op === "update") return { kind: "metadata", text: `${action}: in place; nothing runs` };
      return { kind: "record", text: action };
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
    const op = stepOp(step);
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
    const name = urnName(step.urn);
    changes.push({
      stack: str(inputs["stack"]) ?? name.split("/")[0] ?? name,
      environment: str(inputs["environment"]) ?? "—",
      op,
      kind,
      text,
    });
  }
  return { changes, unchanged };
}

/** A stack that did not run to its end, as the summary names it. */
export interface SummaryFailure {
  /** The Pulumi stack (`dev.acme-web`) or API stack. */
  readonly stack: string;
  /** `failed`, `locked`, `interrupted`. */
  readonly result: string;
  /** Why, in one line (the engine's own error for an engine failure). */
  readonly line?: string;
}

/** What the checks of `verify:` found after a deployment of the run. */
export interface VerifiedDeployment {
  readonly stack: string;
  readonly environment: string;
  readonly verification: Verification;
}

/** Everything one comment says: the plan (steps, diagnostics) and how each stack's run ended. */
export interface SummaryInput {
  readonly title?: string;
  readonly preview: PreviewJson;
  /** Stacks that failed, were locked or interrupted; a summary with any never says "No changes". */
  readonly failures?: readonly SummaryFailure[];
  /** Notes that need a person (a deleted file whose stack is kept), after the failures. */
  readonly attention?: readonly string[];
  /** Stacks confirmed unchanged without the engine. */
  readonly confirmed?: readonly string[];
  /** The verifications of the run's deployments: a `verify` row each, after the deployment's. */
  readonly verifications?: readonly VerifiedDeployment[];
  /** Sections after the stacks' tables (change windows overridden, the Facts table). */
  readonly trailer?: string;
}

/**
 * The size above which a summary is cut: GitHub refuses a comment over 65,536 characters; the
 * margin leaves room for what a workflow adds around the file (a header, a link).
 */
export const SUMMARY_MAX_CHARS = 60_000;

export interface SummaryLimit {
  /** Characters the comment may take (default {@link SUMMARY_MAX_CHARS}). */
  readonly maxChars?: number;
  /** Where the full text is, named in the last line of a cut comment. */
  readonly fullText?: string;
}

/** The rendered comment, and the full text when it had to be cut. */
export interface RenderedSummary {
  readonly text: string;
  readonly full: string;
  /** Stacks whose tables were left out to fit (0: nothing was cut). */
  readonly omitted: number;
}

function countLine(changes: readonly PlannedChange[], unchanged: number, failures: number): string {
  const counts = new Map<string, number>();
  for (const c of changes) counts.set(KIND_LABELS[c.kind], (counts.get(KIND_LABELS[c.kind]) ?? 0) + 1);
  const parts = [...counts.entries()].map(([label, n]) => `${n} ${label}`);
  if (failures > 0) {
    const failed = `${failures} ${failures === 1 ? "stack" : "stacks"} failed`;
    const rest = parts.length === 0 ? "no change planned in the others" : parts.join(" · ");
    return `**${failed}** · ${rest} (${unchanged} unchanged)`;
  }
  return `**${parts.length === 0 ? "No changes" : parts.join(" · ")}** (${unchanged} unchanged)`;
}

/**
 * A row's details in a table cell: GFM ends a cell at any `|` not escaped, even in a code span
 * (one escaped as text already stays as it is).
 */
function cell(text: string): string {
  return text.replace(/(?<!\\)\|/g, "\\|").replace(/\s*\n\s*/g, " ");
}

/** The `verify` row of a deployment: the verdict, and the check and the site's answer as text. */
function verifyRow(v: VerifiedDeployment): string {
  const sign = v.verification.result === "passed" ? "✅" : "❌";
  return `| ${markdownText(v.environment)} | verify | ${sign} ${cell(markdownText(verificationText(v.verification)))} |`;
}

/** One stack's table. */
function stackSection(
  stack: string,
  changes: readonly PlannedChange[],
  verifications: readonly VerifiedDeployment[] = [],
): string {
  const byEnvironment = (a: { environment: string }, b: { environment: string }) =>
    a.environment.localeCompare(b.environment);
  const verified = verifications.filter((v) => v.stack === stack);
  const environments = [
    ...new Set([...changes.filter((c) => c.stack === stack), ...verified].map((r) => r.environment)),
  ];
  const rows = environments.sort().flatMap((environment) => [
    ...changes
      .filter((c) => c.stack === stack && c.environment === environment)
      .sort(byEnvironment)
      .map((row) => `| ${row.environment} | ${KIND_LABELS[row.kind]} | ${cell(row.text)} |`),
    ...verified.filter((v) => v.environment === environment).map(verifyRow),
  ]);
  return [`### ${stack}`, "", "| environment | change | details |", "|---|---|---|", ...rows, ""].join("\n");
}

/**
 * The Markdown comment for a pull request: counts, then what needs a person (failures, errors,
 * warnings, drift among them), then one table per stack in order, then the trailer. Above
 * `limit.maxChars` the stacks' tables that do not fit are left out (those first in order stay)
 * and one last line says how many and where the full text is. The one renderer of both
 * `preview --summary` and `stackwright summary`.
 */
export function renderComment(input: SummaryInput, limit: SummaryLimit = {}): RenderedSummary {
  const { changes, unchanged } = plannedChanges(input.preview);
  const failures = input.failures ?? [];
  const head: string[] = [
    `## ${input.title ?? "Stackwright preview"}`,
    "",
    countLine(changes, unchanged, failures.length),
    "",
  ];
  const attention = [
    // The engine's and the platform's words (a failure's line, a diagnostic) are text, never Markdown.
    ...failures.map(
      (f) =>
        `- **${markdownText(f.stack)}** ${f.result}${f.line === undefined ? "" : `: ${markdownText(f.line)}`}`,
    ),
    ...(input.attention ?? []).map((a) => `- ${a}`),
  ];
  if (attention.length > 0) head.push("### Needs attention", "", ...attention, "");
  const notes = input.preview.diagnostics.filter((d) => d.severity === "error" || d.severity === "warning");
  // Errors first, then warnings (drift is a warning), each in the engine's order.
  const ordered = [
    ...notes.filter((d) => d.severity === "error"),
    ...notes.filter((d) => d.severity === "warning"),
  ];
  if (ordered.length > 0) {
    head.push("### Warnings and errors", "");
    for (const d of ordered) head.push(`- **${d.severity}**: ${markdownText(d.message)}`);
    head.push("");
  }
  if ((input.confirmed ?? []).length > 0) {
    head.push(
      `No change, confirmed without the engine (same inputs, state and live reads as at their last no-change run): ${(input.confirmed ?? []).map((s) => `\`${s}\``).join(", ")}`,
      "",
    );
  }
  const verifications = input.verifications ?? [];
  const stacks = [...new Set([...changes, ...verifications].map((c) => c.stack))].sort();
  const sections = stacks.map((stack) => stackSection(stack, changes, verifications));
  const trailer = input.trailer ?? "";
  const full = `${[...head, ...sections].join("\n")}${trailer}`;
  const maxChars = limit.maxChars ?? SUMMARY_MAX_CHARS;
  if (full.length <= maxChars) return { text: full, full, omitted: 0 };

  const where =
    limit.fullText === undefined
      ? "run with --summary-full FILE to keep the full text"
      : `the full text is in ${limit.fullText}`;
  const under = `to stay under ${maxChars} characters (GitHub's comment limit is 65,536); ${where}`;
  const closing = (left: number) =>
    left === 0
      ? `\n_The sections after the stacks' tables were left out ${under}._\n`
      : `\n_${left} of ${stacks.length} ${stacks.length === 1 ? "stack" : "stacks"} left out ${under}._\n`;
  let text = head.join("\n");
  let kept = 0;
  for (const section of sections) {
    const next = `${text}\n${section}`;
    if (next.length + closing(stacks.length - kept - 1).length > maxChars) break;
    text = next;
    kept++;
  }
  // The trailer (windows, facts) goes only where it still fits whole.
  if (kept === stacks.length && `${text}${trailer}`.length + closing(0).length <= maxChars) text += trailer;
  return { text: `${text}${closing(stacks.length - kept)}`, full, omitted: stacks.length - kept };
}

/** Renders the Markdown comment for a pull request (no failures, no size limit). */
export function renderSummary(preview: PreviewJson, options: { title?: string } = {}): string {
  return renderComment(
    { preview, ...(options.title === undefined ? {} : { title: options.title }) },
    {
      maxChars: Number.POSITIVE_INFINITY,
    },
  ).text;
}
