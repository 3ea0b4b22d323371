/**
 * Every shell block of README.md, CONTRIBUTING.md and docs/*.md that a user is told to run, run as written: in a
 * scratch copy of the repository (a git checkout of its own, with `origin/main`), document by
 * document, blocks in the order written, each in bash with `set -e` and its own process group.
 * Background jobs (`cmd &`) are stopped when their block is done (SIGTERM to its group), so a
 * server a block starts never answers the next block's commands. How each block is run, or why
 * it is not, is said by the `doc-test:` comments above it (test/helpers/doc-blocks.ts). The blocks use the ports the docs name (8787, 4000, 4566), which
 * no other test binds, so this file runs beside the others (vitest.config.mts).
 */
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { documents, packageShim, runnableScript, shellBlocks, type DocBlock } from "../helpers/doc-blocks";
import { demoCredentials, startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { installedTree, packedPackage } from "../helpers/packed-package";
import { hardLinkTree, repoRoot } from "../helpers/scratch-project";

const BLOCK_BOUND_MS = 300_000;

/**
 * The installed packages, as `npm ci` leaves them: a tree of hard links to ours (no copy of the
 * data), so paths in it are the checkout's own and TypeScript's incremental build (`npm start`
 * builds first) finds the copied dist/.tsbuildinfo up to date, as after a build in that checkout.
 * Through a symbolic link TypeScript sees every package at our path, takes all of them for new
 * files and checks the whole project again (13 CPU-seconds instead of 4). Where the temporary
 * directory is on another file system (no hard links), the link it is.
 */
function linkNodeModules(dir: string): void {
  const from = path.join(repoRoot, "node_modules");
  const to = path.join(dir, "node_modules");
  if (!hardLinkTree(from, to)) fs.symlinkSync(from, to);
}

/** A copy of what git tracks (plus the build), node_modules and .tools linked, as its own repo. */
function scratchCheckout(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-docs-"));
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: repoRoot,
    encoding: "utf8",
  })
    .split("\0")
    .filter((f) => f !== "" && fs.existsSync(path.join(repoRoot, f)));
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.copyFileSync(path.join(repoRoot, f), path.join(dir, f));
  }
  fs.cpSync(path.join(repoRoot, "dist"), path.join(dir, "dist"), { recursive: true });
  linkNodeModules(dir);
  fs.symlinkSync(path.join(repoRoot, ".tools"), path.join(dir, ".tools"));
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, stdio: "ignore" });
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("-c", "user.name=docs test", "-c", "user.email=docs@example.com", "commit", "-q", "-m", "docs test");
  git("update-ref", "refs/remotes/origin/main", "HEAD");
  return dir;
}

/** The environment of a user's shell: none of our settings, Pulumi's or the test run's. */
function userEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || /^(STACKWRIGHT_|PULUMI_|VITEST|npm_)/.test(k) || k === "NODE_OPTIONS") continue;
    env[k] = v;
  }
  // The Node the project installs first, as after `npm ci` with the README's Node.
  env["PATH"] = `${path.join(repoRoot, "node_modules", ".bin")}:${env["PATH"] ?? ""}`;
  env["NO_COLOR"] = "1";
  return env;
}

interface Ran {
  readonly status: number | null;
  readonly out: string;
}

/** Runs one block; returns when the block's shell ends (its background jobs keep running). */
function runBlock(dir: string, script: string, env: Record<string, string>, groups: number[]): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-e", "-o", "pipefail", "-c", script], {
      cwd: dir,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    if (child.pid !== undefined) groups.push(child.pid);
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (out += c.toString()));
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      reject(new Error(`the block ran longer than ${BLOCK_BOUND_MS} ms; output so far:\n${out}`));
    }, BLOCK_BOUND_MS);
    // "exit", not "close": a background job still holds the pipes open.
    child.once("exit", (code) => {
      clearTimeout(timer);
      // What is already in the pipes arrives within the turn; background jobs may add more later.
      setImmediate(() => resolve({ status: code, out }));
    });
  });
}

/** Runs a server block until it prints `ready`, then stops it as a person does: Ctrl-C (SIGINT to its group). */
function runServerBlock(
  dir: string,
  script: string,
  env: Record<string, string>,
  ready: string,
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-e", "-o", "pipefail", "-c", `exec ${script.trim()}`], {
      cwd: dir,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let stopped = false;
    const onData = (c: Buffer) => {
      out += c.toString();
      if (!stopped && out.includes(ready) && child.pid !== undefined) {
        stopped = true;
        process.kill(-child.pid, "SIGINT");
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      reject(new Error(`the server did not print "${ready}" within ${BLOCK_BOUND_MS} ms; output:\n${out}`));
    }, BLOCK_BOUND_MS);
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      // As a shell reports it: 128 + the signal's number for a process a signal ended.
      const bySignal = signal === null ? null : 128 + (os.constants.signals[signal] ?? 0);
      resolve({ status: code ?? bySignal, out });
    });
  });
}

/** Whether any process of the group still runs. */
function groupAlive(group: number): boolean {
  try {
    process.kill(-group, 0);
    return true;
  } catch {
    return false;
  }
}

const STOP_BOUND_MS = 15_000;

/**
 * Sends SIGTERM to each process group a block left and waits until they are gone (at most
 * STOP_BOUND_MS, then SIGKILL), so that the next block finds its ports free.
 */
async function stopGroups(groups: number[]): Promise<void> {
  const stopping = groups.splice(0).filter(groupAlive);
  for (const g of stopping) process.kill(-g, "SIGTERM");
  const deadline = Date.now() + STOP_BOUND_MS;
  while (stopping.some(groupAlive)) {
    if (Date.now() > deadline) {
      for (const g of stopping.filter(groupAlive)) process.kill(-g, "SIGKILL");
      break;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The tarball of this checkout that `package` blocks install: the real `npm pack` (whose `prepack`
 * builds what the package ships), shared with the other files of the run that install it. A
 * package without its compiled command would install and then fail in ways that say nothing of
 * the docs, so that is said here instead.
 */
function packedTarball(): string {
  const { tarball, files } = packedPackage();
  if (!files.includes("dist/src/cli/main.js")) {
    throw new Error(
      `npm pack made ${path.basename(tarball)} without dist/src/cli/main.js: the package does not ship its compiled command, so the blocks that install it cannot run`,
    );
  }
  return tarball;
}

function describeBlock(b: DocBlock): string {
  const first = b.text.split("\n")[0] ?? "";
  return `${b.file}:${b.line} (${first.length > 60 ? `${first.slice(0, 57)}...` : first})`;
}

for (const file of documents(repoRoot)) {
  const blocks = shellBlocks(repoRoot, file);
  // A document whose every block says why it is not run here has nothing to run.
  if (blocks.every((b) => b.notRun !== undefined)) continue;
  describe(`the shell blocks of ${file}, run as written`, () => {
    let dir = "";
    // Where the document's package blocks run: a user's ops repository is not inside a clone of
    // Stackwright (npm, looking up for a package.json, would install into the clone).
    let opsHome = "";
    let emulator: TestEmulator | undefined;
    const groups: number[] = [];

    beforeAll(async () => {
      dir = scratchCheckout();
      if (blocks.some((b) => b.api && b.notRun === undefined)) {
        emulator = await startTestEmulator({ seed: path.join(repoRoot, "src/emulator/seeds/default.yaml") });
      }
    });
    afterAll(async () => {
      await stopGroups(groups);
      await emulator?.close();
      if (dir !== "") fs.rmSync(dir, { recursive: true, force: true });
      if (opsHome !== "") fs.rmSync(opsHome, { recursive: true, force: true });
    });

    for (const b of blocks) {
      // A block not run here has its reason in the docs; doc-blocks.test.ts checks that it says one.
      if (b.notRun !== undefined) continue;
      it(
        `${describeBlock(b)} exits ${b.exit}${b.expects.length > 0 ? " and prints what the docs say" : ""}`,
        async () => {
          const env = {
            ...userEnv(),
            ...(b.api && emulator !== undefined ? demoCredentials(emulator.url) : {}),
          };
          const script = (b.package ? packageShim(packedTarball(), installedTree()) : "") + runnableScript(b);
          if (b.package && opsHome === "")
            opsHome = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-docs-ops-"));
          const cwd = b.package ? opsHome : dir;
          const ran =
            b.server !== undefined
              ? await runServerBlock(cwd, script, env, b.server)
              : await runBlock(cwd, script, env, groups);
          await stopGroups(groups);
          expect(ran.status, ran.out).toBe(b.exit);
          for (const text of b.expects) expect(ran.out).toContain(text);
        },
        BLOCK_BOUND_MS + 10_000,
      );
    }
  });
}
