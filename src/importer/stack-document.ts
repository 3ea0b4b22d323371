/**
 * The stack file `stackwright import` writes for one API stack: every environment pinned to what
 * runs now and adopting its live deployment (so the first `up` changes nothing on the platform),
 * with comments that say where each value came from and what else could be declared. A pure
 * function of the platform's answers (live.ts); written with `yaml`'s Document API, so that the
 * comments sit next to the keys they explain.
 */
import { Document, isMap, isScalar, type Pair, type Scalar, type YAMLMap } from "yaml";
import { isCommitSha, shownValue, type Deployment, type SnapshotListItem } from "../api";
import { oneLineText } from "../safe-text";
import {
  branchHeads,
  branchesAt,
  deploymentsInProgress,
  liveDeployment,
  shaOf,
  type BranchHead,
  type ImportedEnvironment,
  type ImportedStack,
} from "./live";

/** Options of {@link importedStackFile}. */
export interface ImportOptions {
  /** The `$schema` path written in the first line, relative to the file (`./schema.json`). */
  readonly schemaPath: string;
  /** `--track BRANCH`: environments at the head of this branch deploy the branch, not a pin. */
  readonly track?: string | undefined;
}

/** What import decided for one environment. */
export type EnvironmentOutcome =
  | { readonly kind: "pinned"; readonly environment: string; readonly deployment: string }
  | { readonly kind: "tracked"; readonly environment: string; readonly deployment: string }
  | { readonly kind: "never-deployed"; readonly environment: string };

/** The file's text and what import decided, with the notes the user should read. */
export interface ImportedFile {
  readonly stack: string;
  readonly text: string;
  readonly environments: readonly EnvironmentOutcome[];
  /** Facts worth a line on the terminal (a deployment in progress, a branch nobody tracks). */
  readonly notes: readonly string[];
}

/**
 * A stack import refuses to write: a value the file would carry that is not what it claims to be
 * (a sha that is not a commit sha). The command skips the stack with this one line and goes on.
 */
export class ImportRefusal extends Error {
  override readonly name = "ImportRefusal";
}

/** The deployment's sha when it is a commit sha (the only kind written, even in a comment). */
function commitShaOf(d: Deployment): string | undefined {
  const sha = shaOf(d);
  return sha !== undefined && isCommitSha(sha) ? sha : undefined;
}

/** `sha 1a2b3c4`, or what a deployment without one is. */
function shaText(d: Deployment): string {
  const sha = commitShaOf(d);
  return sha === undefined ? "not built yet" : `sha ${sha.slice(0, 7)}`;
}

/** `deployment 12 "Release 1.4" by ops@example.com`. */
function describeDeployment(d: Deployment): string {
  const { title: text, deployer } = d.attributes;
  const title = typeof text === "string" && text !== "" ? ` "${text}"` : "";
  const email = deployer?.email;
  const by = typeof email === "string" && email !== "" ? ` by ${email}` : "";
  return `deployment ${d.id}${title}${by}`;
}

/** `branch main`, `tag v1.4.0`, or undefined when the platform did not say. */
function madeFrom(d: Deployment): string | undefined {
  const type = d.attributes.ref_type;
  const name = d.attributes.ref_name;
  if (typeof type !== "string" || type === "") return undefined;
  // A package deployment names no ref (the package is said by build_package); a sha says nothing more.
  if (type === "sha" || typeof name !== "string" || name === "")
    return type === "sha" || type === "package" ? undefined : type;
  return `${type} ${name}`;
}

/** The lines that say why `ref` is what it is, and what else could be written. */
function deploymentComment(
  env: string,
  live: Deployment,
  heads: ReadonlyMap<string, BranchHead>,
  tracked: string | undefined,
  packaged: string | null,
): string[] {
  const sha = commitShaOf(live);
  const lines = [
    ` The live build of ${env}: ${describeDeployment(live)},`,
    sha === undefined ? "   not built from a commit the platform names." : `   sha ${sha}.`,
  ];
  const from = madeFrom(live);
  if (from !== undefined) lines.push(` The platform made it from ${from}.`);
  if (packaged !== null && from !== `package ${packaged}`) lines.push(` It runs the package ${packaged}.`);
  const branches = sha === undefined ? [] : branchesAt(heads, sha).filter((b) => b !== tracked);
  for (const branch of branches) {
    lines.push(
      ` This sha is the head of branch ${branch} (its newest deployment on this stack): to deploy the`,
      `   branch from now on, write ref_type: branch and ref: ${branch} (stackwright import --track ${branch}).`,
    );
  }
  if (tracked !== undefined) {
    lines.push(
      ` Tracks branch ${tracked}: this sha is its head (its newest deployment on this stack). Change`,
      "   `trigger` to deploy the branch's new head.",
    );
  }
  lines.push(
    " `adopt` makes the first up record this deployment instead of deploying: no request changes",
    "   the platform. A change of ref_type, ref or trigger deploys.",
  );
  return lines;
}

function inProgressComment(env: string, running: readonly Deployment[]): string[] {
  return running.flatMap((d) => [
    ` ${describeDeployment(d)} (${d.attributes.state}, ${shaText(d)})`,
    `   was in progress on ${env} when import read it: this file pins the build that ran then. Once it`,
    "   finishes, the next preview warns that the environment drifted: import again with --force, or",
    "   pin its sha.",
  ]);
}

/** The environments a snapshot was taken from (none when the platform does not say). */
const sourcesOf = (s: SnapshotListItem): string[] =>
  (s.relationships?.source?.data ?? []).map((e) => String(e.id));

function snapshotLine(s: SnapshotListItem): string {
  const from = sourcesOf(s).join(", ");
  const { mode, snapshot_status: status, created } = s.attributes;
  return `   ${s.id}: ${mode ?? "-"}, ${status ?? "-"}, taken ${created ?? "-"}${from === "" ? "" : ` from ${from}`}`;
}

/** Comment lines for the snapshots taken from `env`: what exists, and how a restore names one. */
function snapshotsComment(env: string, snapshots: readonly SnapshotListItem[]): string[] {
  const own = snapshots.filter((s) => sourcesOf(s).includes(env));
  // The restore example needs a mode to name.
  const example = own.find(
    (s) => s.attributes.snapshot_status === "complete" && typeof s.attributes.mode === "string",
  );
  if (own.length === 0 || example === undefined) return [];
  return [
    ` Snapshots of ${env} on the platform (id: mode, status, time); a restore names one by its id:`,
    ...own.map(snapshotLine),
    "   restores:",
    `     from-${example.id}: { snapshot: ${example.id}, mode: ${example.attributes.mode}, confirm: ${env} }`,
  ];
}

const LOCK_COMMENT = [
  " No environment has `lock:`: the API has no way to read a lock, so import cannot tell which",
  " environments are locked. Without `lock:`, Stackwright never touches a lock. Declaring",
  " `lock: { message: ... }` makes the next up lock the environment (one request); on an environment",
  " that is already locked, that request keeps it locked and replaces its message with yours, and",
  " removing `lock:` later unlocks it. While it stays locked, a change of its deployment fails in preview.",
];

const OUTPUTS_COMMENT = [
  " Facts the outputs could show (each read once per run): at the top level",
  "   outputs: [manifest_release]",
  " and per environment",
  "   outputs: [deployment, url, domains, framework, modules, configuration, whitelist]",
];

function keyOf(pair: Pair): Scalar {
  if (!isScalar(pair.key)) throw new Error("import: a key of the generated document is not a scalar");
  return pair.key;
}

function mapAt(doc: Document, ...path: string[]): YAMLMap {
  const node = doc.getIn(path, true);
  if (!isMap(node)) throw new Error(`import: ${path.join(".")} of the generated document is not a map`);
  return node;
}

/** One environment's desired state and its comments (`value` before the comments are set). */
interface EnvironmentPlan {
  readonly name: string;
  readonly value: Record<string, unknown>;
  readonly before: string[];
  readonly deploymentBefore: string[];
  readonly after: string[];
  readonly outcome: EnvironmentOutcome;
}

function planEnvironment(
  env: ImportedEnvironment,
  stack: ImportedStack,
  heads: ReadonlyMap<string, BranchHead>,
  options: ImportOptions,
  notes: string[],
): EnvironmentPlan {
  const a = env.environment.attributes;
  const name = a.name;
  const where = `${stack.stack.attributes.name}/${name}`;
  const before = [
    ` ${name} (${a.usage ?? "-"})${a.url === "" || typeof a.url !== "string" ? "" : `: ${a.url}`}, framework ${a.framework_version ?? "-"}.`,
  ];
  const running = deploymentsInProgress(env);
  for (const d of running) {
    notes.push(
      `${where}: ${describeDeployment(d)} is ${d.attributes.state}; the file pins the build that ran before it (import again once it finishes)`,
    );
  }
  const after = snapshotsComment(name, stack.snapshots);
  const live = liveDeployment(env);
  if (live === undefined) {
    const built = a.build_sha ?? "";
    const sha = isCommitSha(built) ? built : "";
    before.push(
      " Never deployed through the platform's deployments (or its history is gone): there is no",
      " deployment to adopt, so none is declared and Stackwright leaves its deployments alone.",
      ...(sha === ""
        ? []
        : [
            ` Its build is ${sha}; declaring a deployment makes the next up deploy`,
            " (a new deployment):",
            `   deployment: { ref_type: sha, ref: ${sha} }`,
          ]),
      ...inProgressComment(name, running),
      ...after,
    );
    return {
      name,
      value: {},
      before,
      deploymentBefore: [],
      after: [],
      outcome: { kind: "never-deployed", environment: name },
    };
  }
  const packaged = typeof a.build_package === "string" && a.build_package !== "" ? a.build_package : null;
  // liveDeployment finds a deployment without a sha only for a package, pinned by the package.
  const sha = shaOf(live) ?? a.build_sha ?? "";
  const tracked =
    options.track !== undefined && heads.get(options.track)?.sha === sha && packaged === null
      ? options.track
      : undefined;
  if (tracked === undefined && packaged === null && !isCommitSha(sha)) {
    // Pinned as it stands, it would reach the file and every later commit and pull request.
    throw new ImportRefusal(
      `${where}: deployment ${live.id} has the sha ${shownValue(sha)} on the platform, which is not a commit ` +
        "sha (7 to 40 lowercase hex digits); nothing is pinned to it",
    );
  }
  const deployment: Record<string, unknown> =
    tracked !== undefined
      ? { ref_type: "branch", ref: tracked }
      : packaged !== null
        ? { ref_type: "package", ref: packaged }
        : { ref_type: "sha", ref: sha };
  deployment["adopt"] = Number(live.id);
  return {
    name,
    value: { deployment },
    before: [...before, ...inProgressComment(name, running)],
    deploymentBefore: deploymentComment(name, live, heads, tracked, packaged),
    after,
    outcome: { kind: tracked === undefined ? "pinned" : "tracked", environment: name, deployment: live.id },
  };
}

/**
 * The stack file of `stack`: valid against `schema.json`, with the `$schema` line first. Every
 * environment with a live deployment gets `deployment` pinned to it (`ref_type: sha` and its sha,
 * or `package` and the package it runs; with `track`, `branch` where the live sha is the branch's
 * head) and `adopt:` its id; an environment never deployed gets an empty map and a commented
 * example. No `lock:` (a comment says why).
 */
export function importedStackFile(stack: ImportedStack, options: ImportOptions): ImportedFile {
  const name = stack.stack.attributes.name;
  const heads = branchHeads(stack);
  const notes: string[] = [];
  if (options.track !== undefined && !heads.has(options.track)) {
    notes.push(
      `${name}: no deployment of branch ${options.track} on this stack, so no environment tracks it (every one is pinned)`,
    );
  }
  const plans = stack.environments.map((env) => planEnvironment(env, stack, heads, options, notes));
  // Titles, names, branches and deployers in the comments are the platform's: each line stays one
  // line with no control character, so no escape sequence lands in the file (which every later
  // `cat` or `git diff` would replay) and nothing ends the comment.
  const comment = (lines: readonly string[]) => lines.map(oneLineText).join("\n");
  const doc = new Document({
    stack: name,
    environments: Object.fromEntries(plans.map((p) => [p.name, p.value])),
  });
  const title = stack.stack.attributes.title ?? "";
  const repo = stack.stack.attributes.repository_url ?? "";
  doc.commentBefore = comment([
    ` yaml-language-server: $schema=${options.schemaPath}`,
    ` ${name}${title === "" ? "" : `: ${title}`}${repo === "" ? "" : ` (${repo})`}.`,
    " Written by `stackwright import` from what the platform ran. Review it and commit it: the first",
    " up adopts each live deployment and changes nothing on the platform.",
    " Every key: docs/stacks-config.md.",
  ]);
  const environments = mapAt(doc, "environments");
  const envPair = environments.items[0];
  if (envPair === undefined) {
    doc.comment = " The platform lists no environment for this stack.";
  }
  const environmentsKey = doc.contents !== null && isMap(doc.contents) ? doc.contents.items[1] : undefined;
  if (environmentsKey !== undefined) {
    keyOf(environmentsKey).commentBefore = comment([...LOCK_COMMENT, ...OUTPUTS_COMMENT]);
  }
  plans.forEach((plan, i) => {
    const pair = environments.items[i];
    if (pair === undefined) return;
    const key = keyOf(pair);
    key.commentBefore = comment(plan.before);
    if (i > 0) key.spaceBefore = true;
    const value = mapAt(doc, "environments", plan.name);
    if (value.items.length === 0) {
      value.flow = true;
      return;
    }
    const deploymentPair = value.items[0];
    if (deploymentPair !== undefined && plan.deploymentBefore.length > 0) {
      keyOf(deploymentPair).commentBefore = comment(plan.deploymentBefore);
    }
    if (plan.after.length > 0) value.comment = comment(plan.after);
  });
  return {
    stack: name,
    text: doc.toString({ lineWidth: 0 }),
    environments: plans.map((p) => p.outcome),
    notes,
  };
}
