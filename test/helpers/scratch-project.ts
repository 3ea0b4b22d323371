/**
 * A scratch copy of the project for end-to-end tests: the real Pulumi.yaml, package.json and
 * built dist/, with node_modules and .tools linked from the repository, in a fresh temporary
 * directory with its own state backend. The engine runs it through the Automation API with
 * `workDir`, in its own Node process, as `pulumi up` would.
 */
import { execFileSync } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { engineEnv } from "../../src/project/engine-env";
import { openStack } from "../../src/cli/engine/workspace";
import { targetSecretsEnv } from "../../src/project/target-settings";
import { openStateStore } from "../../src/state-backend/store";
import { readLastRun } from "../../src/state-backend";
import type { TestKms } from "./kms";

export const repoRoot = path.resolve(__dirname, "..", "..");

export interface ScratchProject {
  readonly dir: string;
  readonly stateDir: string;
  /**
   * The engine's environment (engineEnv), with what the secrets of `secrets` need: the KMS's
   * variables, or with a fixture program and a passphrase, a passphrase of the project's own
   * (random) for the fixture's stacks. With Stackwright's program and a passphrase none, so that
   * each run decides its target's secrets as a user's run does (the demo's `dev` alone gets the
   * built-in one).
   */
  readonly env: Record<string, string>;
  /** `env` with the secrets variables of `target` (default `dev`), as `stackwright env` prints them: for plain `pulumi`. */
  pulumiEnv(target?: string): Record<string, string>;
  /** The secrets provider of the stacks the project makes (its KMS key's), or undefined for Pulumi's passphrase. */
  readonly secretsProvider: string | undefined;
  /** Creates (or selects) a stack of the scratch project; `extraEnv` adds to (or overrides) `env`. */
  stack(name: string, extraEnv?: Record<string, string>): Promise<Stack>;
  /**
   * Writes the settings file of `target` (`Pulumi.<target>.yaml`): `body` (YAML), after the lines
   * that seal its secrets as `secrets` says (none with a passphrase, which comes from the variables).
   */
  writeTargetSettings(target: string, body: string): void;
  /** The stack's checkpoint file, as the local backend writes it. */
  stateFile(stackName: string): string;
  /**
   * The result (`succeeded`, `failed`) of the stack's latest update, refresh or destroy, from the
   * history record the local backend keeps of it: what `pulumi stack history` shows first.
   */
  latestResult(stackName: string): Promise<string>;
  remove(): void;
}

export interface ScratchOptions {
  /** Replaces Pulumi.yaml's `main` with this file (copied into the scratch directory). */
  readonly program?: string;
  /** Replaces the example `stacks-config/` with exactly these files (name -> YAML text). */
  readonly stacksConfig?: Readonly<Record<string, string>>;
  /**
   * The KMS key the stacks' secrets are sealed with (test/helpers/kms.ts; the fixtures give the
   * run's), as a production target's are: the `dev` target's settings file names it, and so does
   * every stack `stack()` makes. Without one, the repository's Pulumi.dev.yaml as it is (the
   * demo's built-in passphrase) and a random passphrase for a fixture program's stacks.
   */
  readonly kms?: TestKms;
}

/**
 * Makes `to` a tree of directories of its own whose files are hard links to `from`'s (`cp -al`):
 * the paths are the copy's own without copying the data. A copy of dist/ and its removal took
 * 0.15 to 0.27 CPU-seconds of system time on this disk, the links 0.02. Writing into a linked
 * file writes into `from`'s: a test may add files to such a tree, never change one it did not
 * make. Returns false, leaving nothing at `to`, where links are refused (another file system, or
 * files this user may not link): the caller decides what stands in.
 */
export function hardLinkTree(from: string, to: string): boolean {
  try {
    execFileSync("cp", ["-al", from, to], { stdio: "ignore" });
    return true;
  } catch {
    fs.rmSync(to, { recursive: true, force: true });
    return false;
  }
}

export function createScratchProject(options: ScratchOptions = {}): ScratchProject {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-e2e-"));
  const entries = [
    "package.json",
    "Pulumi.yaml",
    "Pulumi.dev.yaml",
    "stacks-config",
    "bin",
    "src/emulator/seeds",
  ];
  for (const entry of entries) {
    const from = path.join(repoRoot, entry);
    if (fs.existsSync(from)) fs.cpSync(from, path.join(dir, entry), { recursive: true });
  }
  // Linked, so that a run's scratch project per engine file costs no copy of the build.
  const dist = path.join(repoRoot, "dist");
  if (fs.existsSync(dist) && !hardLinkTree(dist, path.join(dir, "dist"))) {
    fs.cpSync(dist, path.join(dir, "dist"), { recursive: true });
  }
  fs.symlinkSync(path.join(repoRoot, "node_modules"), path.join(dir, "node_modules"));
  fs.symlinkSync(path.join(repoRoot, ".tools"), path.join(dir, ".tools"));
  if (options.program !== undefined) {
    fs.copyFileSync(options.program, path.join(dir, "program.js"));
    // The language host runs a fixture program, in a Node process that loads the SDK: with the
    // deferral of src/lazy-sdk preloaded (Pulumi.yaml's `nodeargs`), that costs 0.22 CPU-seconds
    // instead of 0.69 (the serializer is loaded only by a program that serializes a function).
    const preload = path.join(dir, "preload.cjs");
    fs.writeFileSync(preload, 'require("./dist/src/lazy-sdk/register.js").deferClosureSerializer();\n');
    const project = fs
      .readFileSync(path.join(dir, "Pulumi.yaml"), "utf8")
      .replace(/^main: .*$/m, "main: program.js")
      .replace(
        /^runtime: nodejs$/m,
        `runtime:\n  name: nodejs\n  options:\n    nodeargs: --require ${preload}`,
      );
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), project);
  }
  if (options.stacksConfig !== undefined) {
    const config = path.join(dir, "stacks-config");
    fs.rmSync(config, { recursive: true, force: true });
    fs.mkdirSync(config);
    for (const [name, text] of Object.entries(options.stacksConfig)) {
      fs.writeFileSync(path.join(config, name), text);
    }
  }
  const kms = options.kms;
  if (kms !== undefined) fs.writeFileSync(path.join(dir, "Pulumi.dev.yaml"), kms.devSettings);
  const stateDir = path.join(dir, ".stackwright", "state");
  fs.mkdirSync(stateDir, { recursive: true });
  const baseEnv = { ...process.env };
  delete baseEnv["PULUMI_BACKEND_URL"];
  delete baseEnv["PULUMI_CONFIG_PASSPHRASE"];
  // The copy is its own tool root too: its bin/ and dist/ run from it, its .tools links to ours.
  const env = engineEnv({ projectDir: dir, toolRoot: dir, stateDir, baseEnv });
  if (kms !== undefined) Object.assign(env, kms.env);
  if (options.program !== undefined) {
    // A fixture program is not Stackwright's: the preflight checks what Stackwright's program needs.
    env["STACKWRIGHT_PREFLIGHT"] = "off";
    // Its stacks are no demo target: they bring their own passphrase, as a user's would.
    if (kms === undefined) env["PULUMI_CONFIG_PASSPHRASE"] = crypto.randomBytes(18).toString("base64url");
  }
  const sealing =
    kms === undefined ? "" : `secretsprovider: ${kms.providerUrl}\nencryptedkey: ${kms.encryptedKey}\n`;
  const writeTargetSettings = (target: string, body: string) =>
    fs.writeFileSync(path.join(dir, `Pulumi.${target}.yaml`), sealing + body);
  return {
    dir,
    stateDir,
    env,
    writeTargetSettings,
    pulumiEnv(target = "dev") {
      return { ...env, ...targetSecretsEnv(dir, target, env) };
    },
    secretsProvider: kms?.providerUrl,
    stack(name, extraEnv = {}) {
      // With a key, the stack's settings file names it before the stack exists, as an operator's
      // would: Stackwright then asks for no passphrase, and Pulumi makes the stack with that key.
      if (kms !== undefined && !fs.existsSync(path.join(dir, `Pulumi.${name}.yaml`))) {
        writeTargetSettings(name, "");
      }
      return openStack({
        projectDir: dir,
        stackName: name,
        given: process.env,
        env: { ...env, ...extraEnv },
        ...(kms === undefined ? {} : { secretsProvider: kms.providerUrl }),
      });
    },
    stateFile(stackName) {
      return path.join(stateDir, ".pulumi", "stacks", "stackwright", `${stackName}.json`);
    },
    async latestResult(stackName) {
      const run = await readLastRun(
        openStateStore(env["PULUMI_BACKEND_URL"] ?? ""),
        "stackwright",
        stackName,
        ["update", "refresh", "destroy"],
      );
      if (run === undefined) throw new Error(`no history record of ${stackName} in ${stateDir}`);
      return run.result;
    },
    remove() {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
