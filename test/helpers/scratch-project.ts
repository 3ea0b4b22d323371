/**
 * A scratch copy of the project for end-to-end tests: the real Pulumi.yaml, package.json and
 * built dist/, with node_modules and .tools linked from the repository, in a fresh temporary
 * directory with its own state backend. The engine runs it through the Automation API with
 * `workDir`, in its own Node process, as `pulumi up` would.
 */
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

export const repoRoot = path.resolve(__dirname, "..", "..");

export interface ScratchProject {
  readonly dir: string;
  readonly stateDir: string;
  /**
   * The engine's environment (engineEnv). With a fixture program it holds a passphrase of the
   * project's own (random) for the fixture's stacks; with Stackwright's program none, so that each
   * run decides its target's secrets as a user's run does (the demo's `dev` alone gets the
   * built-in one).
   */
  readonly env: Record<string, string>;
  /** `env` with the secrets variables of `target` (default `dev`), as `stackwright env` prints them: for plain `pulumi`. */
  pulumiEnv(target?: string): Record<string, string>;
  /** Creates (or selects) a stack of the scratch project. */
  stack(name: string): Promise<Stack>;
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
  if (fs.existsSync(path.join(repoRoot, "dist"))) {
    fs.cpSync(path.join(repoRoot, "dist"), path.join(dir, "dist"), { recursive: true });
  }
  fs.symlinkSync(path.join(repoRoot, "node_modules"), path.join(dir, "node_modules"));
  fs.symlinkSync(path.join(repoRoot, ".tools"), path.join(dir, ".tools"));
  if (options.program !== undefined) {
    fs.copyFileSync(options.program, path.join(dir, "program.js"));
    const project = fs.readFileSync(path.join(dir, "Pulumi.yaml"), "utf8");
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), project.replace(/^main: .*$/m, "main: program.js"));
  }
  if (options.stacksConfig !== undefined) {
    const config = path.join(dir, "stacks-config");
    fs.rmSync(config, { recursive: true, force: true });
    fs.mkdirSync(config);
    for (const [name, text] of Object.entries(options.stacksConfig)) {
      fs.writeFileSync(path.join(config, name), text);
    }
  }
  const stateDir = path.join(dir, ".stackwright", "state");
  fs.mkdirSync(stateDir, { recursive: true });
  const baseEnv = { ...process.env };
  delete baseEnv["PULUMI_BACKEND_URL"];
  delete baseEnv["PULUMI_CONFIG_PASSPHRASE"];
  // The copy is its own tool root too: its bin/ and dist/ run from it, its .tools links to ours.
  const env = engineEnv({ projectDir: dir, toolRoot: dir, stateDir, baseEnv });
  if (options.program !== undefined) {
    // A fixture program is not Stackwright's: the preflight checks what Stackwright's program needs.
    env["STACKWRIGHT_PREFLIGHT"] = "off";
    // Its stacks are no demo target: they bring their own passphrase, as a user's would.
    env["PULUMI_CONFIG_PASSPHRASE"] = crypto.randomBytes(18).toString("base64url");
  }
  return {
    dir,
    stateDir,
    env,
    pulumiEnv(target = "dev") {
      return { ...env, ...targetSecretsEnv(dir, target, env) };
    },
    stack(name) {
      return openStack({ projectDir: dir, stackName: name, given: process.env, env });
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
