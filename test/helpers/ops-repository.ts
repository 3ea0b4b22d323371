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
  const pkg: unknown = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8"));
  const version = typeof pkg === "object" && pkg !== null && "version" in pkg ? pkg.version : undefined;
  if (typeof version !== "string") throw new Error("package.json has no version");
  return version;
}

/** A template of templates/ with its placeholders replaced (templates/README.md). */
export function renderTemplate(text: string, version: string, target: string): string {
  return text.replaceAll("__STACKWRIGHT_VERSION__", version).replaceAll("__TARGET__", target);
}

/**
 * Makes the ops repository for `target` with `stacksConfig` (file name → YAML) and one commit on
 * main, pushed to origin. The target's settings are this checkout's Pulumi.dev.yaml (the API URL
 * and credentials then come from the variables, as in CI).
 */
export function createOpsRepository(
  stacksConfig: Readonly<Record<string, string>>,
  target = "dev",
): OpsRepository {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-ops-"));
  const dir = path.join(base, "sites");
  const origin = path.join(base, "origin.git");
  const version = packageVersion();
  const write = (relative: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, relative)), { recursive: true });
    fs.writeFileSync(path.join(dir, relative), text);
  };
  write(
    "package.json",
    `${JSON.stringify({ name: "acme-sites", private: true, devDependencies: { stackwright: version } }, null, 2)}\n`,
  );
  write(
    "package-lock.json",
    `${JSON.stringify(
      {
        name: "acme-sites",
        lockfileVersion: 3,
        requires: true,
        packages: {
          "": { name: "acme-sites", devDependencies: { stackwright: version } },
          "node_modules/stackwright": { version, dev: true },
        },
      },
      null,
      2,
    )}\n`,
  );
  write(
    "Pulumi.yaml",
    "name: stackwright\nruntime: nodejs\nmain: node_modules/stackwright/dist/src/program/main.js\n",
  );
  write(`Pulumi.${target}.yaml`, fs.readFileSync(path.join(repoRoot, "Pulumi.dev.yaml"), "utf8"));
  for (const [name, text] of Object.entries(stacksConfig)) write(path.join("stacks-config", name), text);
  write(".gitignore", "node_modules/\n.stackwright/\n");
  const templates = path.join(repoRoot, "templates", "workflows");
  for (const name of fs.readdirSync(templates)) {
    write(
      path.join(".github", "workflows", name),
      renderTemplate(fs.readFileSync(path.join(templates, name), "utf8"), version, target),
    );
  }
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
