/**
 * The tarball `npm pack` makes of this checkout, whose `prepack` builds dist/ (a TypeScript
 * build), made once per `vitest run` and shared by the files that install the package (the
 * installed-package test, the docs test's `package` blocks). Files run in parallel workers, so the
 * first one packs under a lock (flock) and the others wait for it and read what it made. It lives
 * in the run's scratch directory (test/global-setup.ts), which the run removes at its end.
 */
import { execFileSync } from "node:child_process";
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

/** What `npm pack` runs with: this process's environment less a surrounding npm's or Pulumi's settings. */
function packEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || name.startsWith("PULUMI_") || name === "INIT_CWD") continue;
    if (name.startsWith("npm_") && name !== "npm_config_cache") continue;
    env[name] = value;
  }
  return env;
}

export function packedPackage(): PackedPackage {
  const started = performance.now();
  const dir = path.join(inject(RUN_DIR_KEY), "packed-package");
  fs.mkdirSync(dir, { recursive: true });
  const listing = path.join(dir, "pack.json");
  // Under the lock: pack unless a file before this one did. npm's output goes to a file of its
  // own first, so a pack that failed half way leaves no listing for the next file to trust.
  execFileSync(
    "flock",
    [
      path.join(dir, "lock"),
      "sh",
      "-c",
      '[ -f "$1/pack.json" ] || { cd "$2" && npm pack --json --pack-destination "$1" >"$1/pack.json.part" && mv "$1/pack.json.part" "$1/pack.json"; }',
      "pack",
      dir,
      repoRoot,
    ],
    { env: packEnv(), stdio: ["ignore", "ignore", "inherit"] },
  );
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
