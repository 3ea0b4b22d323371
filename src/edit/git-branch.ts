/**
 * A change to files of a git repository as one commit on a new local branch, made without
 * touching the working tree, the index or the branch that is checked out: the files' new content
 * goes into git's object store, a tree is built from HEAD's in a temporary index, and the commit
 * (author and committer from git's own configuration) becomes the new branch. Nothing is pushed.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { EditRefusal } from "./errors";

/** One file of the change: its path (absolute or relative to the current directory) and new text. */
export interface ChangedFile {
  readonly file: string;
  readonly text: string;
}

/** The commit made: the branch and the commit's full id. */
export interface BranchCommit {
  readonly branch: string;
  readonly commit: string;
}

function git(
  cwd: string,
  args: readonly string[],
  options: { input?: string; env?: NodeJS.ProcessEnv } = {},
): string {
  try {
    return execFileSync("git", args, {
      cwd,
      encoding: "utf8",
      stdio: ["pipe", "pipe", "pipe"],
      ...(options.input === undefined ? {} : { input: options.input }),
      env: { ...process.env, ...options.env },
    }).trim();
  } catch (error) {
    const stderr = error instanceof Error && "stderr" in error ? String(error.stderr).trim() : "";
    const first = stderr.split("\n").find((line) => line.trim() !== "") ?? String(error);
    const hint = /tell me who you are|empty ident/i.test(stderr)
      ? "git knows no author here; set git config user.name and user.email"
      : first;
    throw new EditRefusal("git", cwd, "", `git ${args[0] ?? ""} failed in ${cwd}: ${hint}`);
  }
}

/** True when `git` succeeds (for questions such as "does this branch exist?"). */
function gitOk(cwd: string, args: readonly string[]): boolean {
  try {
    execFileSync("git", args, { cwd, stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/**
 * Why `branch` cannot name the new branch in the repository at `top`, or undefined. Beyond git's
 * own rule (`git check-ref-format --branch`): not `@` or `HEAD` (a `git push origin @` pushes
 * HEAD), not a `refs/…` path (it would become `refs/heads/refs/…`), and not a name that starts
 * with an existing remote's name and `/` (`origin/main` beside the remote `origin` makes every
 * `origin/main` in that checkout ambiguous, `--changed-since origin/main` included).
 */
export function branchNameProblem(top: string, branch: string): string | undefined {
  const shown = JSON.stringify(branch.length > 80 ? `${branch.slice(0, 80)}…` : branch);
  if (branch.startsWith("-") || !gitOk(top, ["check-ref-format", "--branch", branch])) {
    return `${shown} is not a valid git branch name (git check-ref-format --branch)`;
  }
  if (branch === "@" || branch === "HEAD")
    return `${shown} names what is checked out, not a new branch; name one`;
  if (branch.startsWith("refs/")) {
    return `${shown} is a ref path; name the branch without refs/ (e.g. ${JSON.stringify(branch.replace(/^refs\/(heads\/)?/, ""))})`;
  }
  const remotes = git(top, ["remote"])
    .split("\n")
    .filter((r) => r !== "");
  const remote = remotes.find((r) => branch.startsWith(`${r}/`));
  if (remote !== undefined) {
    return `${shown} starts with the remote '${remote}/', so it would be ambiguous with ${remote}'s branches; name it without it`;
  }
  return undefined;
}

/**
 * Commits `files` on top of HEAD as the new branch `branch` of the repository that holds `dir`.
 * Refuses (EditRefusal "git") when the branch exists, its name is not a valid branch name, or a
 * file has uncommitted changes (the commit would silently include them).
 */
export function commitOnNewBranch(
  dir: string,
  branch: string,
  files: readonly ChangedFile[],
  message: string,
): BranchCommit {
  const top = git(dir, ["rev-parse", "--show-toplevel"]);
  const refuse = (text: string): never => {
    throw new EditRefusal("git", top, "", text);
  };
  const problem = branchNameProblem(top, branch);
  if (problem !== undefined) refuse(problem);
  if (gitOk(top, ["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`])) {
    refuse(`branch '${branch}' already exists; name a new one`);
  }
  const head = git(top, ["rev-parse", "--verify", "HEAD^{commit}"]);
  const entries = files.map(({ file, text }) => {
    const path = relative(top, resolve(file)).split("\\").join("/");
    if (!gitOk(top, ["diff", "--quiet", "HEAD", "--", path])) {
      refuse(`${path} has changes that are not committed; commit or stash them first`);
    }
    const listed = git(top, ["ls-files", "-s", "--", path]);
    const mode = /^(\d{6}) /.exec(listed)?.[1] ?? "100644";
    const blob = git(top, ["hash-object", "-w", "--stdin"], { input: text });
    return { path, mode, blob };
  });
  const scratch = mkdtempSync(join(tmpdir(), "stackwright-index-"));
  try {
    const env = { GIT_INDEX_FILE: join(scratch, "index") };
    git(top, ["read-tree", head], { env });
    for (const entry of entries) {
      git(top, ["update-index", "--add", "--cacheinfo", `${entry.mode},${entry.blob},${entry.path}`], {
        env,
      });
    }
    const tree = git(top, ["write-tree"], { env });
    const commit = git(top, ["commit-tree", tree, "-p", head, "-F", "-"], { input: message });
    git(top, ["branch", branch, commit]);
    return { branch, commit };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
