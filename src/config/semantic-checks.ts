import type { PathSegment } from "./errors";
import { isCommitSha, shownValue } from "../api/commit-sha";
import { RefType, refProblem } from "../api/deployment";
import { nameProblem, shownName } from "../api/names";
import { SnapshotMode, snapshotModeCovers } from "../api/snapshot";
import { type Finding, type SourceFile, position } from "./source-file";
import { checkNotify } from "./notify-schema";
import { DURATION_BOUNDS, formatDuration, parseDuration } from "../api/duration";
import { VERIFY_WITHIN_BOUNDS } from "../api/verify";
import { DEFAULT_DEPLOYMENT_WAIT_SECONDS } from "./verify-schema";

/**
 * Rules of one stack file that involve more than one field: names used as map keys, ref vs
 * ref_type, unique snapshot names, restore references and confirmation, repeated record actions.
 *
 * They run on the raw parsed value, independently of the zod schema, so that a file with a wrong
 * type somewhere still gets all its other faults reported. Each rule looks only at fields whose
 * shape is right and leaves wrong shapes to the schema (no fault is reported twice).
 */
export function checkStackFile(source: SourceFile): Finding[] {
  const root = asMap(source.value);
  if (root === undefined) return [];
  const findings: Finding[] = [];
  const environments = asMap(root["environments"]) ?? {};
  const declared = declaredSnapshots(source, environments, findings);
  for (const [environment, rawEnvironment] of Object.entries(environments)) {
    const environmentPath: PathSegment[] = ["environments", environment];
    checkName(environmentPath, "environment name", environment, findings);
    const settings = asMap(rawEnvironment);
    if (settings === undefined) continue;
    checkDeployment([...environmentPath, "deployment"], asMap(settings["deployment"]), findings);
    checkPromotion(environmentPath, environment, asMap(settings["promotion"]), environments, findings);
    checkVerifyWithin(environment, settings, root, findings);
    const restores = asMap(settings["restores"]) ?? {};
    for (const [name, rawRestore] of Object.entries(restores)) {
      const restorePath = [...environmentPath, "restores", name];
      checkName(restorePath, "restore name", name, findings);
      const restore = asMap(rawRestore);
      if (restore !== undefined) checkRestore(restorePath, environment, restore, declared, findings);
    }
  }
  checkRecords(root["records"], findings);
  findings.push(...checkNotify(["notify"], root["notify"]));
  return findings;
}

type RawMap = Record<string, unknown>;

/**
 * `verify.within` of an environment (its own, else the file's) is at most the deployment's wait
 * bound (`deployment.timeout`, default 30m): verification is part of the deployment's wait. A
 * `verify:` of an environment with no deployment, or with one not waited for (`wait: false`), has
 * nothing finished to verify.
 */
function checkVerifyWithin(environment: string, settings: RawMap, root: RawMap, findings: Finding[]): void {
  const own = asMap(settings["verify"]);
  const deployment = asMap(settings["deployment"]);
  if (own !== undefined && deployment === undefined) {
    findings.push({
      path: ["environments", environment, "verify"],
      target: "key",
      message: "verifies a deployment, and this environment declares none: add deployment: or remove verify:",
    });
    return;
  }
  if (own !== undefined && deployment?.["wait"] === false) {
    findings.push({
      path: ["environments", environment, "deployment", "wait"],
      target: "value",
      message:
        "is false, so the deployment is not waited for and verify: would check a build that is not running yet: remove wait: false or verify:",
    });
    return;
  }
  const verify = own ?? asMap(root["verify"]);
  if (verify === undefined || deployment === undefined || typeof verify["within"] !== "string") return;
  const within = parseDuration(verify["within"], VERIFY_WITHIN_BOUNDS);
  const timeout = deployment["timeout"];
  const wait =
    timeout === undefined
      ? { ok: true as const, seconds: DEFAULT_DEPLOYMENT_WAIT_SECONDS }
      : typeof timeout === "string"
        ? parseDuration(timeout)
        : undefined;
  if (!within.ok || wait === undefined || !wait.ok || within.seconds <= wait.seconds) return;
  const withinPath: PathSegment[] =
    own === undefined ? ["verify", "within"] : ["environments", environment, "verify", "within"];
  const bound =
    timeout === undefined
      ? `the default deployment timeout of ${formatDuration(DEFAULT_DEPLOYMENT_WAIT_SECONDS)}`
      : `environments.${environment}.deployment.timeout (${formatDuration(wait.seconds)})`;
  findings.push({
    path: withinPath,
    target: "value",
    message: `${own === undefined ? `applies to ${environment} and ` : ""}is longer than ${bound}: make within at most ${formatDuration(wait.seconds)} or the timeout longer (at most ${formatDuration(DURATION_BOUNDS.maxSeconds)})`,
  });
}

function asMap(value: unknown): RawMap | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as RawMap) : undefined;
}

function checkName(path: PathSegment[], what: string, name: string, findings: Finding[]): void {
  // The YAML pass already refuses `__proto__` as a key anywhere, with its own message.
  if (name === "__proto__") return;
  const problem = nameProblem(name);
  if (problem !== undefined)
    findings.push({ path, target: "key", message: `${what} ${shownName(name)} ${problem}` });
}

/** `promotion.from` names another environment of the same file. */
function checkPromotion(
  path: PathSegment[],
  environment: string,
  promotion: RawMap | undefined,
  environments: RawMap,
  findings: Finding[],
): void {
  const from = promotion?.["from"];
  if (typeof from !== "string" || nameProblem(from) !== undefined) return;
  const others = Object.keys(environments).filter((name) => name !== environment);
  if (from === environment) {
    findings.push({
      path: [...path, "promotion", "from"],
      target: "value",
      message: `names ${shownName(from)} itself; name the environment whose builds are promoted here (${others.join(", ") || "none in this file"})`,
    });
  } else if (!Object.hasOwn(environments, from)) {
    findings.push({
      path: [...path, "promotion", "from"],
      target: "value",
      message: `names ${shownName(from)}, which is not an environment of this file (${others.join(", ") || "none"})`,
    });
  }
}

function checkDeployment(path: PathSegment[], deployment: RawMap | undefined, findings: Finding[]): void {
  if (deployment === undefined) return;
  const refType = RefType.safeParse(deployment["ref_type"]);
  const ref = deployment["ref"];
  if (!refType.success || (ref !== undefined && typeof ref !== "string")) return;
  // A sha ref goes to the platform as it stands: anything but a commit sha is its 400 after a green preview.
  const message =
    refProblem(refType.data, ref) ??
    (refType.data === "sha" && ref !== undefined && ref !== "" && !isCommitSha(ref)
      ? `must be a commit sha (7 to 40 lowercase hex digits) when ref_type is 'sha', not ${shownValue(ref)}`
      : undefined);
  if (message === undefined) return;
  findings.push({
    path: [...path, "ref"],
    target: "value",
    message,
    // A missing ref is best shown next to the ref_type that asks for it.
    ...(ref === undefined ? { at: { path: [...path, "ref_type"], target: "value" as const } } : {}),
  });
}

interface DeclaredSnapshot {
  readonly environment: string;
  readonly mode: SnapshotMode | undefined;
  readonly line: number;
}

/** Snapshot logical names of the file (unique across its environments), checking their names. */
function declaredSnapshots(
  source: SourceFile,
  environments: RawMap,
  findings: Finding[],
): Map<string, DeclaredSnapshot> {
  const declared = new Map<string, DeclaredSnapshot>();
  for (const [environment, rawEnvironment] of Object.entries(environments)) {
    const snapshots = asMap(asMap(rawEnvironment)?.["snapshots"]) ?? {};
    for (const [name, rawSnapshot] of Object.entries(snapshots)) {
      const path: PathSegment[] = ["environments", environment, "snapshots", name];
      checkName(path, "snapshot name", name, findings);
      if (/^\d+$/.test(name)) {
        findings.push({
          path,
          target: "key",
          message: `snapshot name '${name}' must not be only digits: a restore would read it as a snapshot id`,
        });
      }
      const first = declared.get(name);
      if (first !== undefined) {
        findings.push({
          path,
          target: "key",
          message: `snapshot name '${name}' is already declared in environment '${first.environment}' (line ${first.line}); snapshot names are unique per file because restores refer to them by name`,
        });
        continue;
      }
      const mode = asMap(rawSnapshot)?.["mode"] ?? "all";
      declared.set(name, {
        environment,
        mode: SnapshotMode.safeParse(mode).data,
        line: position(source, path, "key").line,
      });
    }
  }
  return declared;
}

function checkRestore(
  path: PathSegment[],
  environment: string,
  restore: RawMap,
  declared: ReadonlyMap<string, DeclaredSnapshot>,
  findings: Finding[],
): void {
  const confirm = restore["confirm"];
  if (typeof confirm === "string" && confirm !== environment) {
    findings.push({
      path: [...path, "confirm"],
      target: "value",
      message: `must equal the environment name '${environment}' to confirm that the restore overwrites its data; got '${confirm}'`,
    });
  }
  const reference = restore["snapshot"];
  // Digits are a snapshot id; the schema checks them with the id rule.
  if (typeof reference !== "string" || /^\d+$/.test(reference)) return;
  const snapshot = declared.get(reference);
  if (snapshot === undefined) {
    const names = [...declared.keys()];
    const known = names.length === 0 ? "none are declared" : `declared: ${names.join(", ")}`;
    findings.push({
      path: [...path, "snapshot"],
      target: "value",
      message: `'${reference}' is not a snapshot declared in this file (${known}); name one declared under environments.<name>.snapshots, or give a numeric snapshot id`,
    });
    return;
  }
  const mode = SnapshotMode.safeParse(restore["mode"]).data;
  if (snapshot.mode !== undefined && mode !== undefined && !snapshotModeCovers(snapshot.mode, mode)) {
    findings.push({
      path: [...path, "mode"],
      target: "value",
      message: `'${mode}' needs a snapshot that holds it, but snapshot '${reference}' is taken with mode '${snapshot.mode}'; restore with mode '${snapshot.mode}' or take the snapshot with mode 'all'`,
    });
  }
}

function checkRecords(records: unknown, findings: Finding[]): void {
  if (!Array.isArray(records)) return;
  const seen = new Map<string, number>();
  records.forEach((record: unknown, index) => {
    const fields = asMap(record);
    if (fields === undefined) return;
    const key = JSON.stringify(["class", "id", "method", "trigger"].map((name) => String(fields[name])));
    const first = seen.get(key);
    if (first === undefined) {
      seen.set(key, index);
      return;
    }
    findings.push({
      path: ["records", index],
      target: "value",
      message: `repeats records[${first}] (same class, id, method and trigger); change its trigger to run the method again`,
    });
  });
}
