/**
 * Verification records as the Deployment provider writes them into a Deployment resource's
 * outputs (src/api/verification.ts), and checkpoints that hold them: for the tests of what
 * status, history, drift, promote, the summary and the notifications show of them.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Verification } from "../../src/api";

export const DEPLOYMENT_TYPE = "pulumi-nodejs:dynamic/stackwright:Deployment";

/** A verification of `sha` (deployment `id`): passed unless `over` says otherwise. */
export function verification(sha: string, id: string, over: Partial<Verification> = {}): Verification {
  return {
    result: "passed",
    deployment_id: id,
    sha,
    started_at: "2026-11-25T09:00:00.000Z",
    finished_at: "2026-11-25T09:00:02.000Z",
    attempts: 1,
    failed_check: null,
    answer: null,
    rolled_back_to: null,
    ...over,
  };
}

/** A failed verification of `sha`: `/health` answered 503 with a maintenance page. */
export function failedVerification(sha: string, id: string, over: Partial<Verification> = {}): Verification {
  return verification(sha, id, {
    result: "failed",
    attempts: 30,
    failed_check: { index: 0, target: "/health", expected: "status 200" },
    answer: {
      url: "http://127.0.0.1:4000/health",
      status: 503,
      latency_ms: 12,
      body_excerpt: "Down for maintenance",
      error: null,
    },
    ...over,
  });
}

/** One Deployment resource of a checkpoint, as an `up` leaves it. */
export function deploymentResource(
  stack: string,
  environment: string,
  recorded: { sha: string; id: string; ref_type?: string; ref?: string; verification?: Verification },
): { urn: string; type: string; outputs: Record<string, unknown> } {
  return {
    urn: `urn:pulumi:dev.${stack}::stackwright::stackwright:index:Environment$${DEPLOYMENT_TYPE}::${stack}/${environment}`,
    type: DEPLOYMENT_TYPE,
    outputs: {
      stack,
      environment,
      ref_type: recorded.ref_type ?? "sha",
      ref: recorded.ref ?? recorded.sha,
      sha: recorded.sha,
      deployment_id: recorded.id,
      ...(recorded.verification === undefined ? {} : { verification: recorded.verification }),
    },
  };
}

/**
 * Writes the checkpoint of `pulumiStack` into a project's local state backend
 * (`<project>/.stackwright/state`), as the engine does, with these resources; and a Pulumi.yaml
 * when the project has none, so that commands read the state there.
 */
export function writeCheckpoint(
  projectDir: string,
  pulumiStack: string,
  resources: readonly { urn: string; type: string; outputs: Record<string, unknown> }[],
): void {
  const pulumiYaml = path.join(projectDir, "Pulumi.yaml");
  if (!fs.existsSync(pulumiYaml)) fs.writeFileSync(pulumiYaml, "name: stackwright\nruntime: nodejs\n");
  const dir = path.join(projectDir, ".stackwright", "state", ".pulumi", "stacks", "stackwright");
  fs.mkdirSync(dir, { recursive: true });
  const checkpoint = {
    version: 3,
    checkpoint: {
      stack: `organization/stackwright/${pulumiStack}`,
      latest: {
        manifest: { time: "2026-11-25T09:00:00Z", magic: "", version: "v3" },
        resources: resources.map((r) => ({
          ...r,
          custom: true,
          id: String(r.outputs["deployment_id"]),
          inputs: {},
        })),
      },
    },
  };
  fs.writeFileSync(path.join(dir, `${pulumiStack}.json`), JSON.stringify(checkpoint, null, 2));
}
