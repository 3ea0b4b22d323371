/**
 * What runs on an environment, read from the platform's answers: the live deployment (the one
 * the environment's build came from), the deployments still in progress, and what the platform
 * last resolved each branch to. Pure functions of the API's documents; no request is made here.
 */
import {
  isDeploymentInProgress,
  type Deployment,
  type Environment,
  type SnapshotListItem,
  type Stack,
  type StatedDeployment,
} from "../api";

/**
 * A stack and an environment whose names are known: the file is keyed by them. The command that
 * reads the documents states these needs (and the deployments' states) where it reads them.
 */
export type NamedStack = Stack & { attributes: { name: string } };
export type NamedEnvironment = Environment & { attributes: { name: string } };

/** One environment as import reads it: its document and every deployment it has had. */
export interface ImportedEnvironment {
  readonly environment: NamedEnvironment;
  readonly deployments: readonly StatedDeployment[];
}

/** One API stack as import reads it. */
export interface ImportedStack {
  readonly stack: NamedStack;
  /** In the platform's order (the stack document's `relationships.environments`). */
  readonly environments: readonly ImportedEnvironment[];
  readonly snapshots: readonly SnapshotListItem[];
}

/** What the platform last resolved a branch to: the newest deployment made from it. */
export interface BranchHead {
  readonly branch: string;
  readonly sha: string;
  /** The deployment that says so, and its environment. */
  readonly deployment: string;
  readonly environment: string;
}

// List items of the real platform may come without dates: the higher id is the later one then.
const newestFirst = (a: Deployment, b: Deployment): number =>
  (b.attributes.date_created_unix ?? 0) - (a.attributes.date_created_unix ?? 0) ||
  Number(b.id) - Number(a.id);

/** A text the platform may leave out, send as null or empty: undefined then. */
const given = (text: string | null | undefined): string | undefined =>
  typeof text === "string" && text !== "" ? text : undefined;

/**
 * The deployment's sha, or undefined when it has none yet: the platform sends `null` (or an empty
 * text) for a package deployment that is not built.
 */
export function shaOf(d: Deployment): string | undefined {
  const sha: unknown = d.attributes.sha;
  return typeof sha === "string" && sha !== "" ? sha : undefined;
}

const hasSha = (d: Deployment): boolean => shaOf(d) !== undefined;

/**
 * The deployment the environment's live build came from: the Completed one the platform marks
 * as the current build, else (list items of the real platform may come without the mark) the
 * newest Completed one whose sha is the environment's `build_sha`. Undefined for an environment
 * that was never deployed (or whose build came from outside the deployment history). An
 * environment that runs a package (`build_package`) is pinned by the package, not the sha: its
 * marked deployment counts even without a sha.
 */
export function liveDeployment(env: ImportedEnvironment): StatedDeployment | undefined {
  const a = env.environment.attributes;
  const buildSha = given(a.build_sha);
  const completed = env.deployments.filter((d) => d.attributes.state === "Completed");
  const marked = completed.filter((d) => d.attributes.is_current_build === true).sort(newestFirst)[0];
  if (
    marked !== undefined &&
    ((buildSha !== undefined && shaOf(marked) === buildSha) ||
      (given(a.build_package) !== undefined && !hasSha(marked)))
  ) {
    return marked;
  }
  // A deployment without a sha (a package not built yet) is never the live build by its sha.
  if (buildSha === undefined) return undefined;
  return completed.filter((d) => hasSha(d) && shaOf(d) === buildSha).sort(newestFirst)[0];
}

/** Deployments of the environment that are Queued, Deploying or Aborting, newest first. */
export function deploymentsInProgress(env: ImportedEnvironment): StatedDeployment[] {
  return env.deployments.filter((d) => isDeploymentInProgress(d.attributes.state)).sort(newestFirst);
}

/**
 * Each branch's head as the platform last resolved it: the sha of the newest deployment made
 * from the branch (`ref_type: branch`) on any environment of the stack, Completed or in
 * progress. The API has no endpoint that reads a branch, so this is the best it can tell: a
 * commit pushed since that was never deployed is not seen.
 */
export function branchHeads(stack: ImportedStack): Map<string, BranchHead> {
  const candidates = stack.environments
    .flatMap((env) => env.deployments.map((d) => ({ d, environment: env.environment.attributes.name })))
    .filter(
      ({ d }) =>
        d.attributes.ref_type === "branch" &&
        typeof d.attributes.ref_name === "string" &&
        d.attributes.ref_name !== "" &&
        hasSha(d) &&
        (d.attributes.state === "Completed" || isDeploymentInProgress(d.attributes.state)),
    )
    .sort((a, b) => newestFirst(a.d, b.d));
  const heads = new Map<string, BranchHead>();
  for (const { d, environment } of candidates) {
    const branch = d.attributes.ref_name ?? "";
    const sha = shaOf(d);
    if (!heads.has(branch) && sha !== undefined) {
      heads.set(branch, { branch, sha, deployment: d.id, environment });
    }
  }
  return heads;
}

/** The branches whose head (as {@link branchHeads} tells it) is `sha`, sorted by name. */
export function branchesAt(heads: ReadonlyMap<string, BranchHead>, sha: string): string[] {
  return [...heads.values()]
    .filter((head) => head.sha === sha)
    .map((head) => head.branch)
    .sort();
}
