import type { SnapshotMode, TransferLogStatus, TransferStatus } from "../../api";
import type { DeploymentRecord, TransferRecord } from "../model";

/**
 * The words of the platform's logs, one function per event, so the state machine and the seed
 * write the same lines. A log follows its deployment or transfer: queued, fetching, building the
 * sha, deploying, finished (or failed with the reason).
 */

const MODE_TEXT: Record<SnapshotMode, string> = {
  all: "database and assets",
  db: "database",
  assets: "assets",
};

function refText(d: Pick<DeploymentRecord, "ref_type" | "ref">): string {
  return d.ref === "" ? d.ref_type : `${d.ref_type} ${d.ref}`;
}

function shaText(d: Pick<DeploymentRecord, "sha">): string {
  return d.sha ?? "(not built yet)";
}

function shortSha(d: Pick<DeploymentRecord, "sha">): string {
  return d.sha === null ? "(not built yet)" : d.sha.slice(0, 7);
}

export const deploymentLog = {
  created: (d: DeploymentRecord) =>
    `Deployment ${d.id} created by ${d.deployer}: ${refText(d)} (${d.sha === null ? "package not built yet" : d.sha.slice(0, 7)})`,
  waiting: () => "Waiting for approval",
  approved: () => "Approved",
  rejected: (reason: string) => `Rejected: ${reason}`,
  invalidated: () => "Invalidated",
  queued: (d: DeploymentRecord) =>
    `Queued on ${d.stack}/${d.env}${d.force_full ? " (full deployment)" : ""}${
      d.ignore_config_changes ? " (configuration changes ignored)" : ""
    }`,
  fetching: (d: DeploymentRecord, repository: string) =>
    `Fetching ${refText(d)} from ${repository === "" ? "the repository" : repository}`,
  building: (d: DeploymentRecord) =>
    d.package === null ? `Building ${shaText(d)}` : `Building package ${d.package}: ${shaText(d)}`,
  deploying: (d: DeploymentRecord) => `Deploying ${shortSha(d)} to ${d.stack}/${d.env}`,
  finished: (d: DeploymentRecord) => `Deployment finished: ${d.stack}/${d.env} runs ${shortSha(d)}`,
  failed: (reason: string) => `Deployment failed: ${reason}`,
  byHand: (d: DeploymentRecord) => `Deployed by hand in the dashboard: ${shortSha(d)}`,
};

export const transferLog = {
  queued: (t: TransferRecord, snapshot: number | null) =>
    t.direction === "create"
      ? `Queued: snapshot of the ${MODE_TEXT[t.mode]} of ${t.stack}/${t.env}`
      : `Queued: restore of the ${MODE_TEXT[t.mode]} of snapshot ${snapshot ?? "?"} into ${t.stack}/${t.env}`,
  started: (t: TransferRecord) =>
    t.direction === "create"
      ? `Running: exporting the ${MODE_TEXT[t.mode]}`
      : t.pending_snapshot === null
        ? "Running: no backup of the existing data (not asked for)"
        : `Running: backing up the existing data to snapshot ${t.pending_snapshot}`,
  running: (t: TransferRecord) =>
    t.direction === "create" ? "Packing the snapshot archive" : `Importing the ${MODE_TEXT[t.mode]}`,
  complete: (t: TransferRecord, size: number | null) =>
    t.direction === "create"
      ? `Complete: snapshot ${t.pending_snapshot ?? "?"} (${size ?? 0} bytes)`
      : `Complete: ${t.stack}/${t.env} restored${t.skip_build ? " (build skipped)" : ""}`,
  failed: (reason: string) => `Failed: ${reason}`,
};

/** The platform's word for a transfer in its log, which differs from the transfer's `status`. */
export function transferLogStatus(status: TransferStatus): TransferLogStatus {
  switch (status) {
    case "n/a":
      return "Queued";
    case "Started":
    case "Running":
      return "Running";
    case "Finished":
      return "Complete";
    case "Failed":
      return "Failed";
  }
}

/** The log a deployment in `d.state` has by then (seed deployments start with theirs). */
export function logUpTo(d: DeploymentRecord, repository: string): string[] {
  const created = [deploymentLog.created(d)];
  const ran = [
    ...created,
    deploymentLog.approved(),
    deploymentLog.queued(d),
    deploymentLog.fetching(d, repository),
    deploymentLog.building(d),
    deploymentLog.deploying(d),
  ];
  switch (d.state) {
    case "New":
    case "Submitted":
      return [...created, deploymentLog.waiting()];
    case "Approved":
      return [...created, deploymentLog.approved()];
    case "Rejected":
      return [...created, deploymentLog.rejected(d.rejected_reason ?? "rejected in the dashboard")];
    case "Invalid":
    case "Deleted":
      return [...created, deploymentLog.invalidated()];
    case "Queued":
      return ran.slice(0, 3);
    case "Deploying":
    case "Aborting":
      return ran.slice(0, 4);
    case "Completed":
      return [...ran, deploymentLog.finished(d)];
    case "Failed":
      return [...ran, deploymentLog.failed(d.failure ?? "failed")];
  }
}
