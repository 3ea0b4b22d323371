/**
 * Stackwright as a team gets it: the tarball `npm pack` makes (its prepack builds dist/),
 * installed with npm into an empty git repository of the team's own, and every command run there
 * as `npx stackwright`, against the emulator: `import --all`, `validate`, `preview`, `up` (no
 * write request), then an upgrade to a higher version and `up` again. The ops repository holds
 * its settings and its stacks-config/ only; the program, the providers, the provider plugin and
 * the Pulumi CLI's links come from node_modules/stackwright. The state it writes is the state a
 * checkout of this repository writes: a scratch copy of the repository, and an ops repository
 * whose node_modules/stackwright links to this checkout, preview it as unchanged.
 */
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect } from "vitest";
import { demoCredentials, type EmulatorHooks } from "../helpers/emulator";
import { fixtures, type RunningEmulator } from "../helpers/fixtures";
import { installedTree, packedPackage } from "../helpers/packed-package";
import { hardLinkTree, repoRoot } from "../helpers/scratch-project";
import { runStackwright, runToEnd, type Finished } from "../helpers/stackwright-process";
import { REVIEWED_INSTALL_SCRIPTS } from "../../src/cli/ops/files";

const SEED = path.join(repoRoot, "test", "fixtures", "import", "seed.yaml");
const STACKS = ["dev.blog", "dev.shop"];
/** npm from its cache: the packages are there after the repository's own `npm ci`. */
const NPM_INSTALL = ["install", "--prefer-offline", "--no-audit", "--no-fund"];
const MB = 1024 * 1024;

/**
 * The packages under `nodeModules` (nested ones too) that npm runs an install script of: one
 * their package.json names, or node-gyp's for a binding.gyp without one. Sorted.
 */
function packagesWithInstallScripts(nodeModules: string): string[] {
  const found = new Set<string>();
  const visit = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
      const full = path.join(dir, entry.name);
      if (entry.name.startsWith("@")) {
        visit(full);
        continue;
      }
      const manifest = path.join(full, "package.json");
      if (fs.existsSync(manifest)) {
        const { name, scripts } = JSON.parse(fs.readFileSync(manifest, "utf8")) as {
          name?: string;
          scripts?: Record<string, string>;
        };
        const declared = ["preinstall", "install", "postinstall"].some((k) => scripts?.[k] !== undefined);
        if (declared || fs.existsSync(path.join(full, "binding.gyp"))) found.add(name ?? entry.name);
      }
      const nested = path.join(full, "node_modules");
      if (fs.existsSync(nested)) visit(nested);
    }
  };
  visit(nodeModules);
  return [...found].sort();
}

/**
 * The environment of a command in the ops repository: this one's (its PATH has Node 24), less
 * what a surrounding npm script or Pulumi session set, with a `go` that refuses to build (the
 * Pulumi CLI comes from the cache the repository's toolchain filled, never from a build here).
 */
function opsEnvironment(stubs: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || name.startsWith("PULUMI_") || name === "INIT_CWD") continue;
    // A parent npm's settings (its prefix, its package) are not the ops repository's.
    if (name.startsWith("npm_") && name !== "npm_config_cache") continue;
    env[name] = value;
  }
  fs.writeFileSync(path.join(stubs, "go"), "#!/bin/sh\necho 'go: no Go build in this test' >&2\nexit 1\n", {
    mode: 0o755,
  });
  env["PATH"] = [stubs, env["PATH"] ?? ""].join(path.delimiter);
  return env;
}

/** `npm pack` of `dir` into `into` with `--ignore-scripts` (no prepack); the tarball's path. */
function pack(dir: string, into: string, env: Record<string, string>): string {
  const before = new Set(fs.readdirSync(into));
  execFileSync("npm", ["pack", "--pack-destination", into, "--ignore-scripts"], {
    cwd: dir,
    env,
    stdio: "pipe",
  });
  const made = fs.readdirSync(into).filter((f) => f.endsWith(".tgz") && !before.has(f));
  if (made.length !== 1) throw new Error(`npm pack in ${dir} made ${made.join(", ") || "nothing"}`);
  return path.join(into, made[0] ?? "");
}

/** A copy of the package `tarball` at another version, packed into `into`. */
function repackAs(tarball: string, version: string, into: string, env: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(into, "repack-"));
  execFileSync("tar", ["-xzf", tarball, "-C", dir]);
  const manifest = path.join(dir, "package", "package.json");
  const pkg = JSON.parse(fs.readFileSync(manifest, "utf8")) as Record<string, unknown>;
  fs.writeFileSync(manifest, `${JSON.stringify({ ...pkg, version }, null, 2)}\n`);
  return pack(path.join(dir, "package"), into, env);
}

/** The stack's closing-table row: `result | changes`. */
function row(out: string, stack: string): string | undefined {
  return new RegExp(`^${stack.replace(".", "\\.")}\\s+(\\S+)\\s+(.+?)\\s{2,}[\\d.]+ s(?:\\s{2,}.*)?$`, "m")
    .exec(out)
    ?.slice(1, 3)
    .join(" | ");
}

/** The emulator in its own process (the commands run to their end while this one waits), and a work directory. */
// The checkout's scratch project reads what the ops repository's runs wrote, so its `dev` is
// sealed as that repository's is (the demo's passphrase).
const test = fixtures({ seed: SEED, project: { secrets: "passphrase" } });

describe("stackwright installed from its package into an ops repository of its own", () => {
  let work: string;
  let packs: string;
  let ops: string;
  let env: Record<string, string>;
  let emulator: RunningEmulator;
  let hooks: EmulatorHooks;
  let tarball: string;
  /** What the first command that needed the Pulumi CLI (init, which seals the token) printed. */
  let firstUse = "";
  /** A figure worth seeing in the run's output (a size, a time). */
  const figure = (name: string, value: string) => console.info(`installed package: ${name} ${value}`);

  /** Runs `npx stackwright ARGS` in `cwd` (the ops repository unless said). */
  const npx = (args: readonly string[], cwd = ops): Finished => {
    // --no: never from the registry; `--` ends npx's own flags (`--version` is npm's too).
    const result = runToEnd(cwd, "npx", ["--no", "--", "stackwright", ...args], env, 300_000);
    expect(result.out).not.toContain("demo-token");
    return result;
  };
  const timed = <T>(name: string, fn: () => T): T => {
    const started = performance.now();
    try {
      return fn();
    } finally {
      figure(name, `${((performance.now() - started) / 1000).toFixed(2)} s`);
    }
  };
  const writes = async () =>
    (await hooks.requests())
      .filter((r) => !r.path.startsWith("/_emulator") && r.method !== "GET")
      .map((r) => `${r.method} ${r.path}`);

  test.beforeAll(({ fileScratchDir, emulator: started }) => {
    [work, emulator, hooks] = [fileScratchDir, started, started.hooks];
    packs = path.join(work, "packs");
    ops = path.join(work, "ops");
    const stubs = path.join(work, "stubs");
    for (const dir of [packs, ops, stubs]) fs.mkdirSync(dir);
    env = { ...opsEnvironment(stubs), ...demoCredentials(emulator.url) };

    // The run's one pack of this checkout (its prepack builds dist/), shared with the docs test.
    tarball = timed(
      "npm pack (prepack builds dist/; or waiting for another file's)",
      () => packedPackage().tarball,
    );
    figure("tarball", `${(fs.statSync(tarball).size / MB).toFixed(2)} MB`);
    execFileSync("git", ["init", "--quiet", "--initial-branch=main"], { cwd: ops });
    fs.writeFileSync(path.join(ops, "package.json"), '{ "name": "ops", "private": true }\n');
    // From the run's one whole install of the tarball (hard links), as the docs test's installs start.
    const tree = timed(
      "the run's installed tree (its one whole npm install, or waiting for another file's)",
      () => installedTree(),
    );
    if (!hardLinkTree(path.join(tree, "node_modules"), path.join(ops, "node_modules"))) {
      throw new Error(
        `cannot hard-link ${tree}/node_modules into ${ops}: the installed tree needs the same file system`,
      );
    }
    timed("npm install (first, over the run's installed tree)", () =>
      execFileSync("npm", [...NPM_INSTALL, tarball], { cwd: ops, env, stdio: "pipe" }),
    );
    // The ops repository's own files, as a team makes them: init from the installed package.
    const init = timed("npx stackwright init", () =>
      npx(["init", "--target", "dev", "--api-url", emulator.url, "--email", "ops@example.com"]),
    );
    expect(init.status, init.out).toBe(0);
    firstUse = init.out;
  }, 600_000);

  test("packs a tarball under 5 MB with the built program, the scripts and the schema, and no tests or benches", () => {
    expect(fs.statSync(tarball).size).toBeLessThanOrEqual(5 * MB);
    const files = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" })
      .split("\n")
      .filter((f) => f !== "")
      .map((f) => f.replace(/^package\//, ""));
    for (const file of [
      "package.json",
      "LICENSE",
      "README.md",
      "bin/stackwright.js",
      "dist/src/cli/main.js",
      "dist/src/program/main.js",
      "dist/providers/plugin-host/main.js",
      "dist/providers/provider-process/index.js",
      "stacks-config/schema.json",
      "scripts/ensure-toolchain.sh",
      "scripts/lib.sh",
      "scripts/pulumi-build/go.mod",
      "scripts/pulumi-resource-pulumi-nodejs",
    ]) {
      expect(files, file).toContain(file);
    }
    expect(
      files.filter((f) => /^(test|bench|src\/(?!emulator\/seeds\/)|dist\/(bench|test)\/)/.test(f)),
    ).toEqual([]);
    expect(
      files.filter((f) => f.includes("fixtures") || f.endsWith(".ts") || f.endsWith(".tsbuildinfo")),
    ).toEqual([]);
  });

  test("prints its version from the ops repository", () => {
    const ours = (
      JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string }
    ).version;
    const version = timed("npx stackwright --version", () => npx(["--version"]));
    expect(version.status, version.out).toBe(0);
    expect(version.out.trim()).toBe(ours);
    const bin = path.join(ops, "node_modules", ".bin", "stackwright");
    const direct = timed("node_modules/.bin/stackwright -V", () => runToEnd(ops, bin, ["-V"], env));
    expect(direct.out.trim()).toBe(ours);
  });

  test("imports every stack into the ops repository and validates them from any directory inside it", () => {
    const imported = npx(["import", "--all"]);
    expect(imported.status, imported.out).toBe(0);
    expect(fs.readdirSync(path.join(ops, "stacks-config")).sort()).toEqual([
      "blog.yaml",
      "schema.json",
      "shop.yaml",
    ]);
    // The project is the first directory up with a Pulumi.yaml, as git and pulumi find theirs.
    const validated = npx(["validate"], path.join(ops, "stacks-config"));
    expect(validated.status, validated.out).toBe(0);
  }, 300_000);

  test("previews adoptions only, with the Pulumi CLI the package's own script provided on first use", async () => {
    const toolRoot = path.join(ops, "node_modules", "stackwright");
    expect(firstUse).toContain(
      `stackwright: no Pulumi CLI in ${path.join(toolRoot, ".tools", "bin")} yet; providing it with ${path.join(toolRoot, "scripts", "ensure-toolchain.sh")}`,
    );
    expect(firstUse).toMatch(/toolchain: using .*pulumi v3\.\d+\.\d+/);
    await hooks.clearRequests();
    const preview = npx(["preview"]);
    expect(preview.status, preview.out).toBe(0);
    expect(preview.out).not.toContain("no Pulumi CLI in");
    expect(fs.existsSync(path.join(toolRoot, ".tools", "bin", "pulumi"))).toBe(true);
    expect(fs.existsSync(path.join(ops, ".tools"))).toBe(false);
    expect(await writes()).toEqual([]);
  }, 300_000);

  test("adopts everything on the first up with zero write requests", async () => {
    await hooks.clearRequests();
    const up = npx(["up"]);
    expect(up.status, up.out).toBe(0);
    for (const stack of STACKS) expect(row(up.out, stack), up.out).toMatch(/^ok \| \d+ adopt$/);
    expect(await writes()).toEqual([]);
    // The serialized provider names the provider module relative to the program directory: the
    // same text as from a checkout of this repository (dist/src/program → dist/providers).
    const checkpoint = fs.readFileSync(
      path.join(ops, ".stackwright", "state", ".pulumi", "stacks", "stackwright", "dev.shop.json"),
      "utf8",
    );
    expect(checkpoint).toContain('entry: \\"../../providers/provider-process/index.js\\"');
    expect(checkpoint).not.toContain(work);
  }, 300_000);

  test("reads the state an installed package wrote from a checkout of this repository, planning no change", async ({
    project: scratch,
  }) => {
    const config = path.join(ops, "stacks-config");
    // The checkout's scratch copy with the ops repository's stacks-config/ in place of its own.
    fs.rmSync(path.join(scratch.dir, "stacks-config"), { recursive: true });
    fs.cpSync(config, path.join(scratch.dir, "stacks-config"), { recursive: true });
    fs.rmSync(scratch.stateDir, { recursive: true });
    fs.cpSync(path.join(ops, ".stackwright", "state"), scratch.stateDir, { recursive: true });
    await hooks.clearRequests();
    const preview = runStackwright(scratch.dir, ["preview"], {
      ...scratch.env,
      ...demoCredentials(emulator.url),
    });
    expect(preview.status, preview.out).toBe(0);
    for (const stack of STACKS) expect(row(preview.out, stack), preview.out).toBe("ok | none");
    expect(await writes()).toEqual([]);
  }, 300_000);

  test("reads that state from a package linked into an ops repository (a file: dependency), planning no change", async () => {
    const linked = path.join(work, "linked");
    fs.mkdirSync(path.join(linked, "node_modules"), { recursive: true });
    for (const entry of [
      "Pulumi.yaml",
      "Pulumi.dev.yaml",
      "stacks-config",
      path.join(".stackwright", "state"),
    ]) {
      fs.cpSync(path.join(ops, entry), path.join(linked, entry), { recursive: true });
    }
    fs.symlinkSync(repoRoot, path.join(linked, "node_modules", "stackwright"));
    await hooks.clearRequests();
    const bin = path.join(linked, "node_modules", "stackwright", "bin", "stackwright.js");
    const preview = runToEnd(linked, process.execPath, [bin, "preview"], env);
    expect(preview.status, preview.out).toBe(0);
    for (const stack of STACKS) expect(row(preview.out, stack), preview.out).toBe("ok | none");
    expect(await writes()).toEqual([]);
  }, 300_000);

  test("after an upgrade to a higher version, up runs the new tool once with no write, and then confirms", async () => {
    const next = repackAs(tarball, "0.99.0", packs, env);
    const upgrade = timed("npm install (upgrade)", () =>
      spawnSync("npm", [...NPM_INSTALL, next], { cwd: ops, env, encoding: "utf8" }),
    );
    expect(upgrade.status, upgrade.stderr).toBe(0);
    // init recorded the review of the dependencies' install scripts: npm (11.16 and later, which
    // warn about a script allowScripts does not cover) has none to warn about. The next test
    // checks the review against the installed tree whatever npm this machine has.
    expect(upgrade.stderr).not.toContain("allowScripts");
    expect(npx(["--version"]).out.trim()).toBe("0.99.0");

    await hooks.clearRequests();
    // The tool is an input of every stack: the first up of a new version runs its engine.
    const first = npx(["up"]);
    expect(first.status, first.out).toBe(0);
    for (const stack of STACKS) expect(row(first.out, stack), first.out).toMatch(/^ok \| none$/);
    expect(first.out).toContain("inputs changed: tool");
    const again = npx(["up"]);
    expect(again.status, again.out).toBe(0);
    for (const stack of STACKS) expect(row(again.out, stack), again.out).toBe("ok | no change (confirmed)");
    expect(await writes()).toEqual([]);

    // The workflows init wrote name the version they were made for: doctor brings them to the new one.
    const behind = npx(["doctor"]);
    expect(behind.status, behind.out).toBe(1);
    expect(npx(["doctor", "--write"]).status).toBe(0);
    const clean = npx(["doctor"]);
    expect(clean.status, clean.out).toBe(0);
  }, 600_000);

  test("reviews in package.json exactly the install scripts of the installed dependencies", () => {
    expect(packagesWithInstallScripts(path.join(ops, "node_modules"))).toEqual(
      Object.keys(REVIEWED_INSTALL_SCRIPTS).sort(),
    );
    const manifest = JSON.parse(fs.readFileSync(path.join(ops, "package.json"), "utf8")) as Record<
      string,
      unknown
    >;
    expect(manifest["allowScripts"]).toEqual(REVIEWED_INSTALL_SCRIPTS);
  });

  test("holds none of the tool's files in the ops repository's git", () => {
    execFileSync("git", ["add", "--all"], { cwd: ops });
    const tracked = execFileSync("git", ["ls-files"], { cwd: ops, encoding: "utf8" })
      .split("\n")
      .filter(Boolean);
    expect(tracked).toEqual([
      ".github/workflows/stackwright-drift.yml",
      ".github/workflows/stackwright-preview.yml",
      ".github/workflows/stackwright-promote-ready.yml",
      ".github/workflows/stackwright-promote.yml",
      ".github/workflows/stackwright-up.yml",
      ".gitignore",
      "Pulumi.dev.yaml",
      "Pulumi.yaml",
      "README.md",
      "package-lock.json",
      "package.json",
      "stacks-config/blog.yaml",
      "stacks-config/schema.json",
      "stacks-config/shop.yaml",
    ]);
  });
});
