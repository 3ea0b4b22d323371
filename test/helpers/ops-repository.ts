/**
 * A team's ops repository as `stackwright init` makes it (design.md §10): package.json depending
 * on stackwright, Pulumi.yaml whose program is the package's, the target's Pulumi.<target>.yaml,
 * stacks-config/ and the rendered workflows, in a git repository with a bare `origin` beside it.
 * `node_modules/stackwright` is a link to this checkout, so `npx stackwright` there runs it.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { packageVersion as versionOf } from "../../src/cli/ops/package";
import { repoRoot } from "./scratch-project";

export interface OpsRepository {
  /** The working tree (GITHUB_WORKSPACE). */
  readonly dir: string;
  /** The bare repository `origin` points at. */
  readonly origin: string;
  git(...args: string[]): string;
  remove(): void;
}

/** The version of this checkout's package.json, as init writes it into the templates. */
export function packageVersion(): string {
  return versionOf(repoRoot);
}

/** This process's environment without Stackwright's or Pulumi's settings: init reads them. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(STACKWRIGHT_|PULUMI_)/.test(name)),
  );
}

/**
 * Makes the ops repository for `target` with `stacksConfig` (file name → YAML) and one commit on
 * main, pushed to origin, its files written by this checkout's `stackwright init` (the API URL and
 * credentials then come from the variables, as in CI).
 */
export function createOpsRepository(
  stacksConfig: Readonly<Record<string, string>>,
  target = "dev",
): OpsRepository {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-ops-"));
  const dir = path.join(base, "sites");
  const origin = path.join(base, "origin.git");
  const write = (relative: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, relative)), { recursive: true });
    fs.writeFileSync(path.join(dir, relative), text);
  };
  // What a team's repository holds comes from init itself: package.json, Pulumi.yaml, the target's
  // settings (API URL and e-mail; the token and the rest come from the variables, as in CI),
  // .gitignore and the rendered workflows.
  execFileSync(
    process.execPath,
    [
      path.join(repoRoot, "bin", "stackwright.js"),
      "init",
      dir,
      "--target",
      target,
      "--api-url",
      "http://127.0.0.1:9",
      "--email",
      "release@example.com",
      "--ci",
      "github",
    ],
    // A sealed token gives the file its salt, so no later run adds one (a change of the target's
    // file would make every stack "changed" for --changed-since).
    { env: { ...cleanEnv(), STACKWRIGHT_API_TOKEN: "release-token" }, stdio: ["ignore", "pipe", "pipe"] },
  );
  // The lock `npm ci` would want, for the linked package below (the test's npm ci stand-in checks it).
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as {
    name: string;
    dependencies: Record<string, string>;
  };
  const version = manifest.dependencies["stackwright"] ?? "";
  write(
    "package-lock.json",
    `${JSON.stringify(
      {
        name: manifest.name,
        lockfileVersion: 3,
        requires: true,
        packages: {
          "": { name: manifest.name, dependencies: manifest.dependencies },
          "node_modules/stackwright": { version },
        },
      },
      null,
      2,
    )}\n`,
  );
  for (const [name, text] of Object.entries(stacksConfig)) write(path.join("stacks-config", name), text);
  fs.mkdirSync(path.join(dir, "node_modules", ".bin"), { recursive: true });
  fs.symlinkSync(repoRoot, path.join(dir, "node_modules", "stackwright"));
  fs.symlinkSync("../stackwright/bin/stackwright.js", path.join(dir, "node_modules", ".bin", "stackwright"));

  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=Ops Person", "-c", "user.email=ops@example.com", ...args], {
      cwd: dir,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    }).trim();
  execFileSync("git", ["init", "-q", "--bare", "-b", "main", origin]);
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-q", "-m", "stackwright init");
  git("remote", "add", "origin", origin);
  git("push", "-q", "origin", "main");
  return { dir, origin, git, remove: () => fs.rmSync(base, { recursive: true, force: true }) };
}
