import type { DeploymentRecord } from "./model";
import { formatDateTime } from "./time";

/** Deployment attributes beyond the 2.0 document: the platform's extras and the 1.0 date texts. */

/**
 * Deployment fields the platform sends beyond the spec (clients must tolerate them): the ref as
 * asked for, tags, why it was rejected, the package, whether it is a full deployment, and a
 * numeric `attributes.id`.
 */
interface PlatformExtras {
  id: number;
  ref_type: string;
  ref_name: string;
  tags: string[];
  rejected_reason: string | null;
  package_id: number | null;
  package_name: string | null;
  package_version: string | null;
  is_full_deployment: boolean;
}

export function platformExtras(d: DeploymentRecord): PlatformExtras {
  const [name, version] = (d.package ?? "").split("@");
  return {
    id: d.id,
    ref_type: d.ref_type,
    ref_name: d.ref,
    tags: d.ref_type === "tag" ? [d.ref] : [],
    rejected_reason: d.rejected_reason,
    package_id: d.package === null ? null : d.id,
    package_name: d.package === null ? null : (name ?? d.package),
    package_version: d.package === null ? null : (version ?? null),
    is_full_deployment: d.force_full,
  };
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
