import type { DeploymentInput } from "../api";
import type { DeploymentRecord } from "./model";
import { formatDateTime } from "./time";

/** Deployment attributes beyond the 2.0 document: the platform's extras and the 1.0 date texts. */

/** How the emulator answers: the spec's documented shapes, or the shapes the real platform sends. */
export const ANSWERS = ["documented", "platform"] as const;
export type Answers = (typeof ANSWERS)[number];

/** A person as deployment documents show one (`deployer`, `approver`, `bypasser`, `locked_by`). */
export interface Person {
  id: number;
  email: string;
  role: string;
  name: string;
}

/**
 * Deployment fields the platform sends beyond the spec (clients must tolerate them), with the
 * values the platform gives: the ref as asked for, the tags of the deployed commit, why it was
 * rejected, the package, who approved, bypassed or locked it, and a numeric `attributes.id`.
 */
export interface PlatformExtras {
  id: number;
  ref_type: string;
  ref_name: string | null;
  tags: string[];
  rejected_reason: string | null;
  package_link: string | null;
  package_id: number | null;
  package_name: string | null;
  package_version: string | null;
  approver: Person | null;
  bypasser: Person | null;
  locked_by: Person | null;
  dirty: boolean;
  schedule_start_unix: number | null;
  schedule_end_unix: number | null;
  is_full_deployment: boolean;
}

/** What {@link platformExtras} needs besides the record. */
export interface ExtrasContext {
  /** The stack's seeded refs (name → sha): the tags of a commit are found there. */
  refs: Readonly<Record<string, string>>;
  /** The person of an e-mail address on this stack. */
  person(email: string): Person;
  /** The absolute URL of the environment (links start there). */
  envUrl: string;
}

/** A ref name that reads as a release tag (`4.11.0`, `v2.0`). */
const TAG_NAME = /^v?\d+(\.\d+)+$/;

export function platformExtras(d: DeploymentRecord, ctx: ExtrasContext): PlatformExtras {
  const [name, version] = (d.package ?? "").split("@");
  const tags = new Set<string>(d.ref_type === "tag" && d.ref !== "" ? [d.ref] : []);
  if (d.sha !== null) {
    for (const [ref, sha] of Object.entries(ctx.refs)) if (sha === d.sha && TAG_NAME.test(ref)) tags.add(ref);
  }
  const isPackage = d.package !== null;
  return {
    id: d.id,
    ref_type: d.ref_type,
    // The platform names no ref for a package deployment (the package is the ref).
    ref_name: d.ref_type === "package" || d.ref === "" ? null : d.ref,
    tags: [...tags].sort(),
    rejected_reason: d.rejected_reason,
    package_link: isPackage ? `${ctx.envUrl}/packages/${encodeURIComponent(d.package ?? "")}` : null,
    package_id: isPackage ? d.id : null,
    package_name: isPackage ? (name ?? d.package) : null,
    package_version: isPackage ? (version ?? null) : null,
    approver: d.approver === null ? null : ctx.person(d.approver),
    bypasser: d.bypasser === null ? null : ctx.person(d.bypasser),
    locked_by: d.locked ? ctx.person(d.deployer) : null,
    dirty: false,
    schedule_start_unix: null,
    schedule_end_unix: null,
    is_full_deployment: d.force_full,
  };
}

/** Members only a create response carries: the approval decision, the options, the platform's notes. */
export function createExtras(d: DeploymentRecord): {
  decision: string;
  options: Record<string, boolean>;
  messages: { text: string; code: string }[];
} {
  const messages =
    d.package === null
      ? []
      : [{ text: `Package ${d.package} is built before it is deployed`, code: "package_build" }];
  return {
    decision: d.bypasser === null ? "approval_requested" : "bypassed",
    options: { ignore_config_changes: d.ignore_config_changes, force_full: d.force_full },
    messages,
  };
}

/** Which answer a deployment document is: a list item, a create (or start/invalidate) response, or a view. */
export type DeploymentView = "list" | "create" | "single";

/**
 * The document as the real platform sends it (its public clients recorded these): list items
 * without `date_*_unix`, `deployer`, `commit_url`, `is_current_build` and `links`, with an empty
 * `summary` as null; create responses without `commit_url`, `deployer` and `links`; a single view
 * with a numeric `data.id`. Under the documented answers the document is left as it is.
 */
export function platformShape(doc: DeploymentInput, view: DeploymentView): Record<string, unknown> {
  const attributes: Record<string, unknown> = { ...doc.attributes };
  const out: Record<string, unknown> = { ...doc, attributes };
  if (view === "list") {
    for (const key of [
      "date_created_unix",
      "date_started_unix",
      "date_requested_unix",
      "date_approved_unix",
      "date_updated_unix",
      "deployer",
      "commit_url",
      "is_current_build",
    ]) {
      delete attributes[key];
    }
    if (attributes["summary"] === "") attributes["summary"] = null;
    delete out["links"];
  } else if (view === "create") {
    for (const key of ["commit_url", "deployer"]) delete attributes[key];
    delete out["links"];
  } else {
    out["id"] = Number(doc.id);
  }
  return out;
}

/** The 1.0 `*_nice` and `*_ago` fields (removed in 2.0); the `*_unix` fields stay alongside. */
export function legacyDates(d: DeploymentRecord): Record<string, string> {
  const now = Math.floor(Date.now() / 1000);
  const fields: Record<string, string> = {};
  for (const [name, unix] of [
    ["date_created", d.created],
    ["date_started", d.started],
    ["date_requested", d.requested],
    ["date_approved", d.approved],
    ["date_updated", d.updated],
  ] as const) {
    fields[`${name}_nice`] = unix === 0 ? "" : formatDateTime(unix);
    fields[`${name}_ago`] = unix === 0 ? "" : ago(now - unix);
  }
  return fields;
}

function ago(seconds: number): string {
  const units: [number, string][] = [
    [86_400, "day"],
    [3_600, "hour"],
    [60, "minute"],
  ];
  for (const [size, unit] of units) {
    const n = Math.floor(seconds / size);
    if (n >= 1) return `${n} ${unit}${n === 1 ? "" : "s"} ago`;
  }
  return "just now";
}
