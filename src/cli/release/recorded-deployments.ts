/**
 * The deployments a target's state records for one environment: what its last `up` deployed or
 * adopted (the Deployment resources of the stack's per-file checkpoint, read from the backend the
 * engine uses, without the engine). `promote` and `history` take them for Stackwright's: an `up`
 * that adopted an existing deployment took it over as it is, and the platform's record carries no
 * marker. The checkpoint keeps only what the last `up` left, so a deployment adopted and later
 * replaced is no longer among them (by then it is no environment's live build).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { RecordedDeployment, Verification } from "../../api";
import { perFileStackName } from "../../config";
import { recordedDeployments } from "../../observe";
import { engineEnv } from "../../project/engine-env";
import { openStateStore, readCheckpoint, redactUrl } from "../../state-backend";
import { projectDirOf } from "../../project/target-settings";
import { projectNameOf } from "../../project/lock-target";

/** What the state says about an environment's deployments. */
export interface RecordedDeployments {
  /** The deployments the state records (none when there is no state to read). */
  readonly deployments: readonly RecordedDeployment[];
  /** What the checks of `verify:` found after those deployments (none without `verify:`). */
  readonly verifications: readonly Verification[];
  /** The per-file Pulumi stack read (`<target>.<API stack>`), for messages. */
  readonly stack: string;
  /** Why the state could not be read, when it could not (one clause, no credentials). */
  readonly unreadable: string | undefined;
}

/**
 * The deployments `target`'s state records for `apiStack`/`environment`, in the project `project`
 * (default: this package's, as `--project` does everywhere), with the backend `env` names. A project with no Pulumi.yaml, or a
 * stack that no `up` made, records none; a backend that cannot be read records none and says why,
 * so that the caller decides as without the state and names the cause.
 */
export async function readRecordedDeployments(
  project: string | undefined,
  target: string,
  apiStack: string,
  environment: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<RecordedDeployments> {
  const named = perFileStackName(target, apiStack);
  const stack = named.ok ? named.name : `${target}.${apiStack}`;
  const none = (unreadable?: string): RecordedDeployments => ({
    deployments: [],
    verifications: [],
    stack,
    unreadable,
  });
  if (!named.ok) return none(named.problem);
  const projectDir = projectDirOf(project);
  if (!fs.existsSync(path.join(projectDir, "Pulumi.yaml"))) return none();
  const url = engineEnv({ projectDir, baseEnv: { ...env } })["PULUMI_BACKEND_URL"] ?? "";
  try {
    const checkpoint = await readCheckpoint(
      openStateStore(url, { ...env }),
      projectNameOf(projectDir),
      stack,
    );
    const here = recordedDeployments(checkpoint?.resources ?? [], apiStack).filter(
      (r) => r.environment === environment,
    );
    const deployments = here
      .filter((r) => r.applied.deployment_id !== "")
      .map((r) => ({ id: r.applied.deployment_id, sha: r.applied.sha }));
    const verifications = here.flatMap((r) => (r.verification === undefined ? [] : [r.verification]));
    return { deployments, verifications, stack, unreadable: undefined };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return none(`the state of ${stack} in ${redactUrl(url)} could not be read (${why})`);
  }
}
