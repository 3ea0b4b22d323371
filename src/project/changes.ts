/**
 * `--changed-since GIT_REF`: the files of the project that differ from GIT_REF (committed or not,
 * untracked included), turned into a ChangeSet. A stack file's API stack is read from the file as
 * it is now and as it was at the ref, so a file deleted, or whose `stack:` was renamed, names the
 * API stack that no file declares any more.
 */
import { execFileSync } from "node:child_process";
import * as path from "node:path";
import { parse } from "yaml";
import { isStackFileName } from "../config";
import { CliError, UsageError } from "./errors";
import type { ChangeSet } from "./selection";

/** Files outside stacks-config/ that every stack's run depends on. */
export function isSharedPath(relative: string, target: string): boolean {
  const shared = ["Pulumi.yaml", `Pulumi.${target}.yaml`, "package.json", "package-lock.json"];
  return shared.includes(relative) || /^(src|providers|bin)\//.test(relative);
}

function git(projectDir: string, args: string[]): string {
  try {
    return execFileSync("git", args, {
      cwd: projectDir,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (err) {
    const stderr = err instanceof Error && "stderr" in err ? String(err.stderr).trim() : "";
    throw new CliError("usage", `git ${args.join(" ")} failed in ${projectDir}: ${stderr || String(err)}`);
  }
}

/** The `stack:` a stack file declares, or undefined when it declares none readable. */
export function declaredStack(text: string): string | undefined {
  try {
    const value: unknown = parse(text);
    if (typeof value !== "object" || value === null || !("stack" in value)) return undefined;
    return typeof value.stack === "string" ? value.stack : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The change set of the project directory against `ref`. `currentStackOf` maps a stack file
 * (path relative to the project) to the API stack it declares now.
 */
export function changesSince(
  projectDir: string,
  ref: string,
  target: string,
  currentStackOf: (relative: string) => string | undefined,
): ChangeSet {
  if (ref.startsWith("-")) throw new UsageError(`--changed-since takes a git ref, not '${ref}'`);
  git(projectDir, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]);
  const diff = git(projectDir, ["diff", "--name-only", "--no-renames", "--relative", "-z", ref, "--"]);
  const untracked = git(projectDir, ["ls-files", "--others", "--exclude-standard", "-z"]);
  const paths = [...new Set([...diff.split("\0"), ...untracked.split("\0")].filter((p) => p !== ""))];
  const shared: string[] = [];
  const changed: string[] = [];
  const deleted: string[] = [];
  for (const relative of paths) {
    if (isSharedPath(relative, target)) {
      shared.push(relative);
      continue;
    }
    if (path.dirname(relative) !== "stacks-config" || !isStackFileName(path.basename(relative))) continue;
    const now = currentStackOf(relative);
    if (now !== undefined) changed.push(now);
    let before: string | undefined;
    try {
      before = declaredStack(git(projectDir, ["show", `${ref}:./${relative}`]));
    } catch {
      before = undefined; // added since the ref
    }
    if (before !== undefined && before !== now) deleted.push(before);
  }
  return { shared, changed, deleted };
}
