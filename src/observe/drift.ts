/**
 * The drift report of an observation: every environment whose platform state differs from what
 * the desired state and the last `up` say, compared with what the previous report said of it
 * (the drift memory of each stack), so that each entry is new, still there, or resolved. Pure:
 * the memories are read and written by the caller.
 */
import type { DriftEntry, DriftMemory, DriftReport, EnvironmentStatus, FleetStatus } from "./model";

/** The outcome of one stack's check, before it is compared with the memory. */
interface Finding {
  readonly env: EnvironmentStatus;
  readonly drift: NonNullable<EnvironmentStatus["drift"]>;
}

const describeDesired = (env: EnvironmentStatus) =>
  env.desired === null
    ? null
    : `${env.desired.ref_type}${env.desired.ref === "" ? "" : ` ${env.desired.ref}`}`;

/** The report and the memory each stack keeps for the next run (unchanged for a stack that could not be checked). */
export function driftReport(
  status: FleetStatus,
  memories: ReadonlyMap<string, DriftMemory | undefined>,
): { report: DriftReport; memories: Map<string, DriftMemory> } {
  const now = status.generated_at;
  const drift: DriftEntry[] = [];
  const errors: DriftReport["errors"] = [];
  const next = new Map<string, DriftMemory>();
  for (const stack of status.stacks) {
    const previous = memories.get(stack.stack)?.reported ?? [];
    if (stack.error !== null) {
      errors.push({ stack: stack.stack, environment: null, reason: stack.error });
      continue; // nothing is known: the memory stays as it was
    }
    const findings: Finding[] = [];
    const unknown = new Set<string>();
    for (const env of stack.environments) {
      if (env.sync === "unknown") {
        unknown.add(env.environment);
        errors.push({ stack: stack.stack, environment: env.environment, reason: env.reason ?? "unknown" });
      } else if (env.drift !== null) {
        findings.push({ env, drift: env.drift });
      }
    }
    const reported: DriftMemory["reported"] = [];
    for (const { env, drift: d } of findings) {
      const before = previous.find((p) => p.environment === env.environment && p.kind === d.kind);
      const firstReported = before?.first_reported ?? now;
      reported.push({
        environment: env.environment,
        kind: d.kind,
        live_sha: env.live?.sha ?? null,
        first_reported: firstReported,
      });
      drift.push({
        stack: stack.stack,
        environment: env.environment,
        status: before === undefined ? "new" : "still",
        kind: d.kind,
        desired: describeDesired(env),
        applied_sha: env.applied?.sha ?? null,
        live_sha: env.live?.sha ?? null,
        since: d.since,
        by: d.by,
        first_reported: firstReported,
      });
    }
    for (const p of previous) {
      if (reported.some((r) => r.environment === p.environment && r.kind === p.kind)) continue;
      if (unknown.has(p.environment)) {
        reported.push(p); // could not be checked: neither still nor resolved
        continue;
      }
      const env = stack.environments.find((e) => e.environment === p.environment);
      drift.push({
        stack: stack.stack,
        environment: p.environment,
        status: "resolved",
        kind: p.kind,
        desired: env === undefined ? null : describeDesired(env),
        applied_sha: env?.applied?.sha ?? null,
        live_sha: env?.live?.sha ?? null,
        since: null,
        by: null,
        first_reported: p.first_reported,
      });
    }
    next.set(stack.stack, { version: 1, stack: stack.stack, reported });
  }
  const count = (s: DriftEntry["status"]) => drift.filter((d) => d.status === s).length;
  const active = count("new") + count("still");
  return {
    report: {
      kind: "stackwright.drift",
      version: 1,
      target: status.target,
      generated_at: now,
      result: errors.length > 0 ? "error" : active > 0 ? "drift" : "clean",
      counts: {
        new: count("new"),
        still: count("still"),
        resolved: count("resolved"),
        errors: errors.length,
      },
      drift,
      errors,
    },
    memories: next,
  };
}
