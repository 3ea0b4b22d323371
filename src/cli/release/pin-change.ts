/**
 * What `promote` and `rollback` share: the flags and checks of the environment whose
 * `deployment` they pin (its `lock:` in the file, its change windows), the title that records
 * every override, and the one way the change reaches git: written into the working tree
 * atomically with its diff printed, or committed on a new local branch (`--branch`), never
 * pushed. Several files change together or not at all: every refusal is found before anything
 * is written.
 */
import { oneLineText } from "../../safe-text";
import { readFile } from "node:fs/promises";
import * as path from "node:path";
import type { Deployment, LiveBuildProblemKind } from "../../api";
import { isCommitSha, shortSha, shownValue } from "../../api";
import {
  ConfigValidationError,
  type StackConfig,
  loadDesiredState,
  refusalText,
  windowVerdict,
  windowsOf,
} from "../../config";
import {
  EditRefusal,
  commitOnNewBranch,
  pinDeployment,
  unifiedDiff,
  validStack,
  writeFileAtomic,
  type DeploymentPin,
  type PinOutcome,
} from "../../edit";
import { flag } from "../kit/args";
import type { Io } from "../kit/context";
import { CliError } from "../kit/exit-codes";
import { overrideReason, overrideWindowFlag } from "../gates/windows";
import { targetFlags } from "../kit/flag-sets";

/** Flags of every command that pins a deployment. */
export const pinFlags = {
  ...targetFlags,
  branch: flag.string(
    "NAME: commit the change on this new local branch (not checked out, never pushed) instead of editing the working tree",
  ),
  "allow-locked": flag.switch(
    "pin an environment whose file keeps a lock: on it (recorded in the title; the preview fails while the lock stays)",
  ),
  "override-window": overrideWindowFlag(
    "REASON: pin an environment whose change windows are closed now (recorded in the title)",
  ),
};

/** The flags that let a source environment's problems through, by problem. */
export const PROBLEM_FLAGS = {
  drifted: "allow-drift",
  failed: "allow-failed",
  deploying: "allow-deploying",
  "awaiting-approval": "allow-pending",
} as const satisfies Record<LiveBuildProblemKind, string>;

/** How an override reads in the deployment's title. */
const PROBLEM_LABELS: Readonly<Record<LiveBuildProblemKind, string>> = {
  drifted: "drift",
  failed: "failed",
  deploying: "deploying",
  "awaiting-approval": "awaiting approval",
};

export function problemLabel(kind: LiveBuildProblemKind): string {
  return PROBLEM_LABELS[kind];
}

/** The stack files of the project: API stack → file; the directory must validate. */
export async function stackFiles(projectDir: string): Promise<Map<string, string>> {
  return (await stackConfigs(projectDir)).files;
}

/** The stack files of the project (API stack → file) and their parsed configurations. */
export async function stackConfigs(
  projectDir: string,
): Promise<{ files: Map<string, string>; configs: Map<string, StackConfig> }> {
  const loaded = await loadDesiredState(path.join(projectDir, "stacks-config"));
  if (!loaded.ok) throw new ConfigValidationError(loaded.errors);
  return {
    files: new Map(Object.entries(loaded.state.sourceFiles)),
    configs: new Map(loaded.state.stacks.map((s) => [s.stack, s])),
  };
}

/** A pin planned for one stack file: what to write, and what stands against it. */
export interface PlannedPin {
  readonly apiStack: string;
  readonly environment: string;
  readonly file: string;
  readonly before: string;
  readonly outcome: PinOutcome | undefined;
  /** One line each; any of them stops the whole command before anything is written. */
  readonly refusals: readonly string[];
  /** What moved and why, for the commit message (one line). */
  readonly summary: string;
  readonly sha: string;
}

/** What overrides a pin used, for its title. */
export interface TargetCheck {
  readonly refusals: string[];
  readonly overrides: string[];
}

/**
 * The checks of the environment being pinned: a `lock:` kept in the file, closed change windows
 * (at `now`, the command's clock). Each refuses unless its flag was given; a flag that let one through is
 * listed in `overrides`.
 */
export function checkTarget(
  stack: StackConfig,
  environment: string,
  file: string,
  flags: { "allow-locked"?: boolean | undefined; "override-window"?: string | undefined },
  now: Date,
): TargetCheck {
  const refusals: string[] = [];
  const overrides: string[] = [];
  const config = Object.hasOwn(stack.environments, environment) ? stack.environments[environment] : undefined;
  if (config === undefined) return { refusals, overrides };
  const where = `${stack.stack}/${environment}`;
  if (config.lock !== undefined) {
    if (flags["allow-locked"] === true) overrides.push("lock");
    else {
      const message = config.lock.message === "" ? "" : ` ("${config.lock.message}")`;
      refusals.push(
        `${where} is locked in ${file}${message}; lift the lock, or pass --allow-locked (the preview fails while the lock stays)`,
      );
    }
  }
  const verdict = windowVerdict(windowsOf(stack, config), now);
  if (!verdict.open) {
    const reason = overrideReason(flags["override-window"]);
    if (reason !== undefined) overrides.push(`window: ${reason}`);
    else
      refusals.push(
        `${refusalText(where, verdict, now)}; an on-call engineer may pass --override-window "REASON"`,
      );
  }
  return { refusals, overrides };
}

/** `Promote 8f3c2a1 from uat`, with `[override: drift; window: INC-1]` when overrides were used. */
export function titleWith(base: string, overrides: readonly string[]): string {
  return overrides.length === 0 ? base : `${base} [override: ${overrides.join("; ")}]`;
}

/**
 * Plans the pin of `environment` in `file`: reads and validates it, checks the environment,
 * and computes the edit. An edit the file refuses (no such environment, an anchor shared with
 * another place, ...) becomes a refusal line, as does every check.
 */
export async function planPin(input: {
  readonly apiStack: string;
  readonly environment: string;
  readonly file: string;
  readonly flags: { "allow-locked"?: boolean | undefined; "override-window"?: string | undefined };
  readonly sha: string;
  /** Where the platform reported the sha, e.g. `deployment 123` (named when it is refused). */
  readonly shaFrom?: string | undefined;
  /** The title without overrides, e.g. `Promote 8f3c2a1 from uat`. */
  readonly title: string;
  /** Overrides already used for the source of the sha. */
  readonly overrides: readonly string[];
  readonly refusals: readonly string[];
  readonly summary: string;
  /** The instant the change windows are judged at (the command's clock). */
  readonly now: Date;
}): Promise<PlannedPin> {
  const display = displayPath(input.file);
  const before = await readFile(input.file, "utf8");
  const refusals = [...input.refusals];
  let outcome: PinOutcome | undefined;
  try {
    const stack = validStack(display, before, "invalid-before");
    const target = checkTarget(stack, input.environment, display, input.flags, input.now);
    refusals.push(...target.refusals);
    const pin: DeploymentPin = {
      sha: input.sha,
      title: titleWith(input.title, [...input.overrides, ...target.overrides]),
    };
    if (input.sha === "") refusals.push(`there is no sha to pin ${input.apiStack}/${input.environment} to`);
    else if (!isCommitSha(input.sha)) {
      // The sha would land in the file, the commit message and the pull request as it stands.
      refusals.push(
        `${input.shaFrom ?? "the build to pin"} has the sha ${shownValue(input.sha)} on the platform, which is not ` +
          `a commit sha (7 to 40 lowercase hex digits); nothing was pinned to it`,
      );
    } else outcome = pinDeployment(display, before, input.environment, pin);
  } catch (error) {
    if (!(error instanceof EditRefusal)) throw error;
    refusals.push(error.message);
  }
  return {
    apiStack: input.apiStack,
    environment: input.environment,
    file: input.file,
    sha: input.sha,
    before,
    outcome,
    refusals,
    summary: input.summary,
  };
}

/** The file as the user knows it: relative to the current directory when inside it. */
export function displayPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative.startsWith("..") || path.isAbsolute(relative) ? file : relative;
}

/** `8f3c2a1 "Deploy main to UAT" (deployment 123)`. */
export function describeDeployment(d: Deployment | undefined, sha: string): string {
  if (d === undefined) return shortSha(sha);
  const title: string | null | undefined = d.attributes.title;
  // The platform's title goes into the summary printed, the commit message and the pull request:
  // one line, no control character.
  return `${shortSha(sha)}${title ? ` "${oneLineText(title)}"` : ""} (deployment ${d.id})`;
}

/**
 * Writes the planned pins: nothing when any was refused (one line per refusal, the last one the
 * command's failure, exit 1); the working tree (diff printed) or a commit on `--branch`. Pins
 * that change nothing are said so. Returns the files written (empty with --branch or when nothing
 * changed).
 */
export async function applyPins(
  command: string,
  planned: readonly PlannedPin[],
  options: {
    readonly branch: string | undefined;
    readonly projectDir: string;
    readonly subject: string;
    readonly io: Io;
  },
): Promise<{ readonly written: readonly PlannedPin[]; readonly commit: string | undefined }> {
  const { io } = options;
  const refusals = planned.flatMap((p) =>
    p.refusals.map((line) => `stackwright ${command}: ${line}; no file was changed`),
  );
  const lastRefusal = refusals.at(-1);
  if (lastRefusal !== undefined) {
    for (const line of refusals.slice(0, -1)) io.warn(line);
    throw new CliError("failed", lastRefusal);
  }
  const changes = planned.filter((p) => p.outcome?.changed === true);
  for (const p of planned) {
    if (p.outcome !== undefined && !p.outcome.changed) {
      io.say(
        `${p.apiStack}/${p.environment} already pins ${shortSha(p.sha)} in ${displayPath(p.file)}: nothing to change`,
      );
    }
  }
  if (changes.length === 0) return { written: [], commit: undefined };
  if (options.branch !== undefined) {
    const message = [options.subject, "", ...changes.map((p) => p.summary), ""].join("\n");
    const files = changes.map((p) => ({
      file: p.file,
      text: p.outcome?.changed === true ? p.outcome.text : p.before,
    }));
    let made: { branch: string; commit: string };
    try {
      made = commitOnNewBranch(options.projectDir, options.branch, files, message);
    } catch (error) {
      // Not a repository, a taken branch name, uncommitted changes: the user's to fix (exit 2).
      if (error instanceof EditRefusal)
        throw new CliError("usage", `stackwright ${command}: ${error.message}`);
      throw error;
    }
    for (const p of changes) io.say(p.summary);
    io.say(
      `committed ${made.commit.slice(0, 12)} on the new branch '${made.branch}' (not checked out, not pushed): ` +
        `push it and open a pull request, e.g. git push origin ${made.branch}`,
    );
    return { written: [], commit: made.commit };
  }
  for (const p of changes) {
    if (p.outcome?.changed !== true) continue;
    await writeFileAtomic(p.file, p.outcome.text);
  }
  for (const p of changes) {
    if (p.outcome?.changed !== true) continue;
    io.say(unifiedDiff(displayPath(p.file), p.before, p.outcome.text));
    io.say(p.summary);
  }
  io.say(
    `changed ${changes.map((p) => displayPath(p.file)).join(", ")}: review the diff above and commit it`,
  );
  return { written: changes, commit: undefined };
}
