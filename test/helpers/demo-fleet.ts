/**
 * A fleet status in every sync state, made without a platform: for the fleet page's browser
 * tests (the operator guide's screenshot is of the real demo fleet: scripts/screenshot-fleet-page.sh).
 * Deterministic: site `i` always gets the same states, shas and deployers.
 */
import {
  SYNC_STATES,
  countSync,
  type EnvironmentStatus,
  type FleetStatus,
  type ObservedDeployment,
  type SyncState,
} from "../../src/observe";

const ENVIRONMENTS = ["dev", "uat", "prod"] as const;
const SHAS = [
  "8f3c2a1d9e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a",
  "2b7e151628aed2a6abf7158809cf4f3c762e7160",
  "3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f",
];
const PEOPLE = ["ops@example.com", "release@example.com", "dev@example.com"];
const BASE = Date.parse("2026-11-25T09:00:00Z");

function deployment(i: number, k: number, state: string): ObservedDeployment {
  const sha = SHAS[(i + k) % SHAS.length] ?? "";
  const email = PEOPLE[(i + k) % PEOPLE.length] ?? "";
  return {
    id: String(1000 + i * 10 + k),
    sha,
    short_sha: sha.slice(0, 7),
    title: `Deploy ${sha.slice(0, 7)}`,
    state,
    deployer: { name: email.split("@")[0] ?? "", email },
    at: new Date(BASE - (i * 7 + k * 3600) * 60_000).toISOString(),
    link: `https://deploy.example.com/site-${i}/deploys/${1000 + i * 10 + k}`,
  };
}

/** The hand deployment that drifted site `i`. */
function hand(i: number): ObservedDeployment {
  return {
    ...deployment(i, 0, "Completed"),
    title: "Hotfix by hand",
    deployer: { name: "dev", email: "dev@example.com" },
  };
}

/** Which state site `i`'s environment `e` is in: mostly in sync, every state present. */
function stateOf(i: number, e: number): SyncState {
  const special: Record<number, SyncState> = {
    1: "verify failed",
    2: "rolled back",
    3: "drifted",
    5: "deploying",
    7: "awaiting approval",
    9: "failed",
    11: "not yet deployed",
    13: "not managed",
    15: "unknown",
  };
  return e === 2 ? (special[i % 17] ?? "in sync") : i % 17 === 3 && e === 1 ? "drifted" : "in sync";
}

function environment(i: number, e: number): EnvironmentStatus {
  const stack = siteName(i);
  const name = ENVIRONMENTS[e] ?? "dev";
  const sync = stateOf(i, e);
  const recent = [0, 1, 2].map((k) =>
    deployment(
      i,
      k,
      k === 0
        ? ((
            { deploying: "Deploying", "awaiting approval": "Submitted", failed: "Failed" } as Partial<
              Record<SyncState, string>
            >
          )[sync] ?? "Completed")
        : "Completed",
    ),
  );
  const applied = { ref_type: "branch", ref: "main", sha: SHAS[0] ?? "", deployment_id: recent[1]?.id ?? "" };
  const liveSha = sync === "drifted" ? (SHAS[1] ?? "") : (SHAS[0] ?? "");
  const reasons: Partial<Record<SyncState, string>> = {
    drifted: `the environment runs ${liveSha.slice(0, 7)}, the last up deployed ${applied.sha.slice(0, 7)} (deployed by dev@example.com)`,
    deploying: `deployment ${recent[0]?.id} is Deploying`,
    "awaiting approval": `deployment ${recent[0]?.id} is Submitted: it waits for an approval`,
    failed: `deployment ${recent[0]?.id} failed`,
    "verify failed": `${SHAS[0]?.slice(0, 7)} failed verification: check 1 (/health): expected status 200; got 503 "Service Unavailable"`,
    "rolled back": `${SHAS[0]?.slice(0, 7)} failed verification; rolled back to ${SHAS[2]?.slice(0, 7)}`,
    "not yet deployed": "no up has deployed branch main here yet",
    "not managed": "the file asks for no deployment here",
    unknown: `environment ${stack}/${name} could not be read: the API answered 503`,
  };
  return {
    stack,
    environment: name,
    desired: sync === "not managed" ? null : { ref_type: "branch", ref: "main" },
    applied: sync === "not yet deployed" ? null : applied,
    verification:
      sync === "verify failed" || sync === "rolled back"
        ? {
            result: sync === "verify failed" ? "failed" : "rolled_back",
            deployment_id: applied.deployment_id,
            sha: applied.sha,
            started_at: new Date(BASE - 600_000).toISOString(),
            finished_at: new Date(BASE - 300_000).toISOString(),
            attempts: 30,
            failed_check: { index: 0, target: "/health", expected: "status 200" },
            answer: {
              url: `https://${stack}.example.com/health`,
              status: 503,
              latency_ms: 12,
              body_excerpt: "Service Unavailable",
              error: null,
            },
            rolled_back_to:
              sync === "rolled back"
                ? { deployment_id: recent[2]?.id ?? "", sha: SHAS[2] ?? "", result: "passed" }
                : null,
          }
        : null,
    live:
      sync === "unknown"
        ? null
        : {
            sha: liveSha,
            short_sha: liveSha.slice(0, 7),
            deployment:
              sync === "drifted"
                ? { ...hand(i), sha: liveSha, short_sha: liveSha.slice(0, 7) }
                : (recent[1] ?? null),
          },
    sync,
    reason: reasons[sync] ?? null,
    drift:
      sync === "drifted"
        ? { kind: "hand deployment", since: recent[1]?.at ?? null, by: "dev@example.com" }
        : sync === "failed"
          ? { kind: "failed", since: recent[0]?.at ?? null, by: recent[0]?.deployer?.email ?? null }
          : null,
    lock: name === "prod" ? { message: "Change freeze until 2026-12-01" } : null,
    window:
      name === "prod"
        ? {
            open: false,
            reason: "outside every allow window",
            next_open: "2026-11-26T21:00:00.000Z",
            searched_until: null,
          }
        : null,
    newest: sync === "unknown" ? null : (recent[0] ?? null),
    recent: sync === "unknown" ? [] : recent,
    failure_log:
      sync === "failed" ? ["Running composer install", "Error: composer install failed (exit 2)"] : null,
  };
}

export const siteName = (i: number) => `site-${String(i).padStart(4, "0")}`;

/** `sites` sites × dev, uat, prod. */
export function demoFleet(sites: number): FleetStatus {
  const stacks = Array.from({ length: sites }, (_, i) => ({
    stack: siteName(i),
    pulumi_stack: `production.${siteName(i)}`,
    file: `stacks-config/${siteName(i)}.yaml`,
    last_up: { at: new Date(BASE - i * 60_000).toISOString(), result: "succeeded" },
    confirmed_at: null,
    error: null,
    environments: ENVIRONMENTS.map((_, e) => environment(i, e)),
  }));
  return {
    kind: "stackwright.status",
    version: 1,
    target: "production",
    generated_at: new Date(BASE).toISOString(),
    counts: countSync(stacks),
    stacks,
  };
}

/** Every state occurs in a fleet of at least this many sites. */
export const EVERY_STATE_SITES = 17;
export { SYNC_STATES };
