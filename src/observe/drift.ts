/**
 * The drift report of an observation: every environment whose platform state differs from what
 * the desired state and the last `up` say, compared with what the previous report said of it
 * (the drift memory of each stack), so that each entry is new, still there, or resolved. Pure:
 * the memories are read and written by the caller.
 */
import { verdictFor } from "../api";
import type { ProofVerdict } from "./proof";
import {
  countSync,
  type CurrentVerification,
  type DriftCheck,
  type DriftEntry,
  type DriftMemory,
  type DriftReport,
  type EnvironmentStatus,
  type FleetStatus,
} from "./model";

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
  /**
   * How each stack was checked ({@link driftChecks}); a stack not in it was checked by the reads
   * alone. A planned change can be resolved only on a stack whose engine ran this time.
   */
  checks: ReadonlyMap<string, DriftCheck> = new Map(),
): { report: DriftReport; memories: Map<string, DriftMemory> } {
  const now = status.generated_at;
  const drift: DriftEntry[] = [];
  const errors: DriftReport["errors"] = [];
  const next = new Map<string, DriftMemory>();
  const checked: DriftCheck[] = [];
  for (const stack of status.stacks) {
    const check = checks.get(stack.stack) ?? { stack: stack.stack, checked_by: "reads", reason: null };
    checked.push(check);
    const engineChecked = check.checked_by === "engine";
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
      if (unknown.has(p.environment) || (p.kind === "planned change" && !engineChecked)) {
        reported.push(p); // could not be checked (this time): neither still nor resolved
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
      stacks: checked,
      verifications: status.stacks.flatMap((stack) => stack.environments.flatMap(currentVerification)),
    },
    memories: next,
  };
}

/** What the checks say about the build `env` runs now (none when it runs no known build). */
function currentVerification(env: EnvironmentStatus): CurrentVerification[] {
  if (env.live === null || env.live.sha === "") return [];
  const verdict = env.verification === null ? undefined : verdictFor(env.verification, env.live.sha);
  return [
    {
      stack: env.stack,
      environment: env.environment,
      live_sha: env.live.sha,
      result: verdict ?? "unverified",
      verification: env.verification,
    },
  ];
}

/** Why every stack's engine ran under `drift --full`. */
export const FULL_CHECK_REASON = "--full runs every engine";
/** Why a stack whose reads failed was not previewed (its errors say what failed). */
export const NOT_PREVIEWED_REASON = "not previewed: its reads failed";

/**
 * How `drift` checks each stack beyond the reads. With `full`, the engine's preview with refresh
 * runs on every stack that was observed. Otherwise the proof decides (./proof.ts): where the last
 * no-change `up` still proves the stack, the engine would change nothing and does not run; where
 * it does not, the engine runs for that stack, unless every environment drifted already (what the
 * preview plans counts only where the reads found nothing, so it could add nothing). A stack with a
 * `planned change` remembered runs it too, since only the engine tells whether it still plans it.
 * A stack whose observation failed (the stack or one of its environments unknown) is not previewed.
 */
export function driftChecks(
  status: FleetStatus,
  proofs: ReadonlyMap<string, ProofVerdict>,
  memories: ReadonlyMap<string, DriftMemory | undefined>,
  full: boolean,
): Map<string, DriftCheck> {
  const checks = new Map<string, DriftCheck>();
  for (const s of status.stacks) {
    const check = (checked_by: DriftCheck["checked_by"], reason: string | null) =>
      checks.set(s.stack, { stack: s.stack, checked_by, reason });
    if (s.error !== null || s.environments.some((e) => e.sync === "unknown")) {
      check("reads", NOT_PREVIEWED_REASON);
      continue;
    }
    if (full) {
      check("engine", FULL_CHECK_REASON);
      continue;
    }
    const verdict = proofs.get(s.stack) ?? { confirmed: false, reason: "not proven (no proof was asked)" };
    const planned = (memories.get(s.stack)?.reported ?? []).some((r) => r.kind === "planned change");
    const engineCanAdd = s.environments.some((e) => e.drift === null);
    if (!engineCanAdd) {
      check(
        verdict.confirmed ? "proof" : "reads",
        verdict.confirmed
          ? null
          : `no proof: ${verdict.reason}; every environment drifted already, so the engine could add nothing`,
      );
    } else if (!verdict.confirmed) check("engine", `no proof: ${verdict.reason}`);
    else if (planned)
      check("engine", "a planned change was reported: only the engine tells whether it still is");
    else check("proof", null);
  }
  return checks;
}

/** What the engine's preview (with refresh) of one stack found, where `drift` ran it. */
export type EngineCheck =
  | {
      readonly ok: true;
      readonly planned: readonly { readonly environment: string; readonly text: string }[];
    }
  | { readonly ok: false; readonly reason: string };

/**
 * The observation with the engine's findings added: an environment where the preview plans a
 * change, and that the reads found nothing wrong with, drifted (`planned change`); a stack whose
 * preview failed could not be checked.
 */
export function withEngineChecks(status: FleetStatus, checks: ReadonlyMap<string, EngineCheck>): FleetStatus {
  const stacks = status.stacks.map((stack) => {
    const check = checks.get(stack.stack);
    if (check === undefined || stack.error !== null) return stack;
    if (!check.ok) return { ...stack, error: `the engine's preview failed: ${check.reason}` };
    const environments = stack.environments.map((env) => {
      const planned = check.planned.filter((p) => p.environment === env.environment);
      if (planned.length === 0 || env.drift !== null || env.sync === "unknown") return env;
      return {
        ...env,
        sync: "drifted" as const,
        reason: `the engine plans: ${planned.map((p) => p.text).join("; ")}`,
        drift: { kind: "planned change" as const, since: null, by: null },
      };
    });
    return { ...stack, environments };
  });
  return { ...status, stacks, counts: countSync(stacks) };
}
