/**
 * The tarball `npm pack` makes of this checkout, whose `prepack` builds dist/ (a TypeScript
 * build), made once per `vitest run` and shared by the files that install the package (the
 * installed-package test, the docs test's `package` blocks). Files run in parallel workers, so the
 * first one packs under a lock (flock) and the others wait for it and read what it made. It lives
 * in the run's scratch directory (test/global-setup.ts), which the run removes at its end.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { inject } from "vitest";
import { RUN_DIR_KEY } from "../global-setup";
import { repoRoot } from "./scratch-project";

export interface PackedPackage {
  /** The tarball's path: read it, copy it, install it; never change it (other files use it). */
  readonly tarball: string;
  /** The paths the tarball holds, as `npm pack --json` lists them (without `package/`). */
  readonly files: readonly string[];
  /** How long this file waited for it (the pack itself, or another file's pack). */
  readonly seconds: number;
}

/** What npm runs with here (pack, the whole install): this process's environment less a surrounding npm's or Pulumi's settings. */
function packEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || name.startsWith("PULUMI_") || name === "INIT_CWD") continue;
    if (name.startsWith("npm_") && name !== "npm_config_cache") continue;
    env[name] = value;
  }
  return env;
}

/** How long a file waits for the lock, and how long the work under it may take (each). */
const ONCE_BOUND_SECONDS = 900;
/** flock's exit status when the lock was not had in time (-E). */
const LOCK_NOT_HAD = 75;

/**
 * Runs `script` (sh, its arguments `$1` = the directory, then `args`) under the lock of the run's
 * directory `name`, which it makes: the first file of the run does the work, the others wait for
 * it and find it done. What the script prints on stderr is shown; `what` names it in the error.
 * The call is synchronous (vitest's hook timeout cannot stop it), so both the wait for the lock
 * and the work are bounded here.
 */
function onceForTheRun(name: string, what: string, script: string, ...args: string[]): string {
  const dir = path.join(inject(RUN_DIR_KEY), name);
  fs.mkdirSync(dir, { recursive: true });
  const lock = path.join(dir, "lock");
  const bounded = ["timeout", String(ONCE_BOUND_SECONDS), "sh", "-c", script, name, dir, ...args];
  const run = spawnSync(
    "flock",
    ["-w", String(ONCE_BOUND_SECONDS), "-E", String(LOCK_NOT_HAD), lock, ...bounded],
    {
      env: packEnv(),
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  if (run.status === 0) return dir;
  const minutes = ONCE_BOUND_SECONDS / 60;
  if (run.status === LOCK_NOT_HAD) {
    throw new Error(`${what}: another test file held ${lock} for more than ${minutes} minutes`);
  }
  if (run.status === 124) throw new Error(`${what} did not finish within ${minutes} minutes in ${dir}`);
  throw new Error(`${what} failed in ${dir} (its output is above)`, { cause: run.error });
}

export function packedPackage(): PackedPackage {
  const started = performance.now();
  // Pack unless a file before this one did. npm's output goes to a file of its own first, so a
  // pack that failed half way leaves no listing for the next file to trust.
  const dir = onceForTheRun(
    "packed-package",
    `npm pack of ${repoRoot}`,
    '[ -f "$1/pack.json" ] || { cd "$2" && npm pack --json --pack-destination "$1" >"$1/pack.json.part" && mv "$1/pack.json.part" "$1/pack.json"; }',
    repoRoot,
  );
  const listing = path.join(dir, "pack.json");
  const [info] = JSON.parse(fs.readFileSync(listing, "utf8")) as {
    filename: string;
    files: { path: string }[];
  }[];
  if (info === undefined) throw new Error(`npm pack listed no package in ${listing}`);
  return {
    tarball: path.join(dir, info.filename),
    files: info.files.map((f) => f.path),
    seconds: (performance.now() - started) / 1000,
  };
}

/**
 * The run's one whole `npm install` of {@link packedPackage}'s tarball, into a directory of the
 * run's scratch directory, made under a lock by the first file that asks (the others wait and
 * read it): the directory whose `node_modules` a test copies as hard links into an ops
 * repository before its own `npm install` of the package. npm then still resolves the package
 * and its dependencies, writes `package.json` and the lockfile, links the command and adds or
 * prunes whatever differs, but does not unpack the same 300 packages again (about 8 CPU-seconds
 * each time). The install itself is the user's: the tarball, npm's cache, no scripts of ours.
 */
export function installedTree(): string {
  const { tarball } = packedPackage();
  // Whole or not at all: the install goes to a directory of its own, renamed into place at its end.
  const dir = onceForTheRun(
    "installed-tree",
    `the run's whole npm install of ${tarball}`,
    '[ -d "$1/tree" ] || { rm -rf "$1/part" && mkdir "$1/part" && cd "$1/part" && ' +
      'echo \'{ "name": "installed-tree", "private": true }\' >package.json && ' +
      'npm install --prefer-offline --no-audit --no-fund "$2" >npm.log 2>&1 && cd .. && mv part tree; } || ' +
      '{ cat "$1/part/npm.log" >&2; exit 1; }',
    tarball,
  );
  return path.join(dir, "tree");
}
