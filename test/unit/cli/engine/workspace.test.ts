import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { engineEnv, isInstalledPackage, toolRoot } from "../../../../src/project/engine-env";
import { defaultProjectDir } from "../../../../src/cli/engine/workspace";
import { CliError } from "../../../../src/cli/kit/exit-codes";
import { repoRoot } from "../../../helpers/scratch-project";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
function scratchDir(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-dirs-")));
  made.push(dir);
  return dir;
}

describe("the tool root", () => {
  it("is the package root when the CLI runs from its sources", () => {
    expect(toolRoot()).toBe(repoRoot);
  });

  it("is the package root when the CLI runs compiled from dist/, wherever it is started", () => {
    const compiled = path.join(repoRoot, "dist", "src", "project", "engine-env.js");
    const dir = execFileSync(
      process.execPath,
      ["-e", `process.stdout.write(require(${JSON.stringify(compiled)}).toolRoot())`],
      { encoding: "utf8", cwd: os.tmpdir() },
    );
    expect(dir).toBe(repoRoot);
  });

  it("counts as an installed package inside a node_modules only, by its real path", () => {
    const ops = scratchDir();
    fs.mkdirSync(path.join(ops, "node_modules"));
    fs.symlinkSync(repoRoot, path.join(ops, "node_modules", "stackwright"));
    fs.mkdirSync(path.join(ops, "node_modules", "copied"));
    expect(isInstalledPackage(path.join(ops, "node_modules", "copied"))).toBe(true);
    // `npm link` or a `file:` dependency: still this checkout, whose developer runs the toolchain.
    expect(isInstalledPackage(path.join(ops, "node_modules", "stackwright"))).toBe(false);
    expect(isInstalledPackage(repoRoot)).toBe(false);
  });
});

describe("the default project directory", () => {
  it("is the package root in this repository, where the tests run", () => {
    expect(defaultProjectDir()).toBe(repoRoot);
  });

  it("is the first directory up from the working directory that holds a Pulumi.yaml", () => {
    const ops = scratchDir();
    fs.writeFileSync(path.join(ops, "Pulumi.yaml"), "name: stackwright\n");
    fs.mkdirSync(path.join(ops, "stacks-config", "deeper"), { recursive: true });
    expect(defaultProjectDir(path.join(ops, "stacks-config", "deeper"))).toBe(ops);
    expect(defaultProjectDir(ops)).toBe(ops);
  });

  it("is refused in one line that says what to do when no directory up has a Pulumi.yaml", () => {
    const nowhere = scratchDir();
    let error: unknown;
    try {
      defaultProjectDir(nowhere);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).kind).toBe("environment");
    expect((error as CliError).message).toBe(
      `No Pulumi.yaml in ${nowhere} or any directory above it: run this in your ops repository (make one with 'npm run stackwright -- init'), or pass --project DIR.`,
    );
  });
});

describe("the engine's PATH", () => {
  it("puts the tool root's Pulumi CLI first, then the project's and the tool root's node_modules/.bin", () => {
    const env = engineEnv({
      projectDir: "/ops",
      toolRoot: "/ops/node_modules/stackwright",
      baseEnv: { PATH: "/usr/bin" },
    });
    expect(env["PATH"]).toBe(
      [
        "/ops/node_modules/stackwright/.tools/bin",
        "/ops/node_modules/.bin",
        "/ops/node_modules/stackwright/node_modules/.bin",
        "/usr/bin",
      ].join(path.delimiter),
    );
    // Local state and the CLI's home stay the project's.
    expect(env["PULUMI_BACKEND_URL"]).toBe("file:///ops/.stackwright/state");
    expect(env["PULUMI_HOME"]).toBe("/ops/.stackwright/pulumi-home");
  });
});

describe("bin/stackwright.js", () => {
  it("prints the package's version for --version and -V", () => {
    const version = (
      JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string }
    ).version;
    for (const flag of ["--version", "-V"]) {
      const out = execFileSync(process.execPath, [path.join(repoRoot, "bin", "stackwright.js"), flag], {
        encoding: "utf8",
      });
      expect(out).toBe(`${version}\n`);
    }
  });

  it("says in one line, installed in an ops repository, to install a newer Node.js", () => {
    // The system's Node 20, as test/e2e/exit-codes.test.ts runs it.
    const old = "/usr/bin/node";
    expect(spawnSync(old, ["--version"], { encoding: "utf8" }).stdout).toMatch(/^v(1\d|2[01])\./);
    const installed = path.join(scratchDir(), "node_modules", "stackwright");
    fs.mkdirSync(path.join(installed, "bin"), { recursive: true });
    fs.copyFileSync(
      path.join(repoRoot, "bin", "stackwright.js"),
      path.join(installed, "bin", "stackwright.js"),
    );
    const run = spawnSync(old, [path.join(installed, "bin", "stackwright.js"), "validate"], {
      encoding: "utf8",
    });
    expect(run.status).toBe(4);
    expect(run.stderr).toMatch(
      /^stackwright needs Node.js 22 or later; this is Node.js \d+\.\d+\.\d+\. Install Node.js 22 or later \(24 is the one it is tested with\) and run it again.\n$/,
    );
  });

  it("says in one line to build a checkout that has no dist/", () => {
    const checkout = scratchDir();
    fs.mkdirSync(path.join(checkout, "bin"));
    fs.copyFileSync(
      path.join(repoRoot, "bin", "stackwright.js"),
      path.join(checkout, "bin", "stackwright.js"),
    );
    fs.copyFileSync(path.join(repoRoot, "package.json"), path.join(checkout, "package.json"));
    const run = spawnSync(process.execPath, [path.join(checkout, "bin", "stackwright.js"), "validate"], {
      encoding: "utf8",
    });
    expect(run.status).toBe(4);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(
      `stackwright: ${path.join(checkout, "dist")} is missing (a checkout not built yet): run 'npm run build' in ${checkout}\n`,
    );
  });
});
