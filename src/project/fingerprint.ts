/**
 * The inputs of one engine run of a per-file stack, as digests: everything that can change what
 * the engine would do, other than the checkpoint and the platform (those are compared by
 * shortcut.ts). Any part that cannot be read makes a digest no record will ever match.
 */
import { createHash, randomUUID } from "node:crypto";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { DATA_READS_DIR_ENV } from "../api";
import { API_CONCURRENCY_VARIABLE, CREDENTIAL_SOURCES } from "../client";
import { toolRoot } from "./engine-env";
import type { InputDigests } from "../state-backend";

/**
 * Environment variables that do not reach what the program declares: per-run plumbing (where
 * the program reports its reads, how many requests may be in flight: `--api-concurrency`, which
 * `drift` may be given where `up` was not), and the settings of the project's own scripts (where
 * they cache the tools they build, which Python and which Chromium they use), which a CI job
 * sets for some steps and not others.
 */
const IGNORED_VARIABLES: ReadonlySet<string> = new Set([
  DATA_READS_DIR_ENV,
  API_CONCURRENCY_VARIABLE,
  "STACKWRIGHT_CACHE_DIR",
  "STACKWRIGHT_PYTHON",
  "STACKWRIGHT_CHROMIUM",
]);

/** The variables that say where the API is and who reads it. */
const CREDENTIAL_VARIABLES: ReadonlySet<string> = new Set(CREDENTIAL_SOURCES.map((s) => s.env));

function sha256(...parts: ReadonlyArray<string | Uint8Array>): string {
  const hash = createHash("sha256");
  for (const part of parts) {
    // Length-prefixed, so that no two lists of parts hash alike.
    const bytes = typeof part === "string" ? Buffer.from(part, "utf8") : part;
    hash.update(`${bytes.length}:`);
    hash.update(bytes);
  }
  return hash.digest("hex");
}

/**
 * The file's bytes; "(missing)" when there is none; a value that matches nothing when it cannot
 * be read (so that a record never matches what could not be read).
 */
function bytesOf(file: string | undefined): Uint8Array | string {
  if (file === undefined) return "(none)";
  try {
    return fs.readFileSync(file);
  } catch (err) {
    return err instanceof Error && "code" in err && err.code === "ENOENT"
      ? "(missing)"
      : `(unreadable ${randomUUID()})`;
  }
}

/** What the TypeScript build writes beside the code it emits: source maps and its build info. */
const BUILD_RECORDS = /\.(map|tsbuildinfo)$/;

/**
 * Every file under `dir` but the build's source maps and its `.tsbuildinfo`, by relative path and
 * bytes, in a stable order. Those two change nothing that runs, and were half the bytes read and
 * hashed (dist/ of this repository: 34 -> 23 ms of CPU in every `up` or `preview`, medians of 15).
 */
function treeDigest(dir: string): string {
  const hash = createHash("sha256");
  const walk = (rel: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(dir, rel), { withFileTypes: true });
    } catch {
      hash.update(`(missing ${rel})`);
      return;
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const child = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile() && !BUILD_RECORDS.test(entry.name)) {
        const bytes = fs.readFileSync(path.join(dir, child));
        hash.update(`${child}\0${bytes.length}\0`);
        hash.update(bytes);
      }
    }
  };
  walk("");
  return hash.digest("hex");
}

const toolDigests = new Map<string, string>();

/**
 * The tool: the project's package files (which name our package's version, and lock it), its
 * Pulumi.yaml, the Pulumi SDK the program loads (as Node finds it from the tool root), the built
 * program the engine runs (the tool root's dist/), the package's own package.json (its version,
 * apart from the project's when installed) and the Pulumi CLI. Computed once per project
 * directory and process.
 */
export function toolDigest(projectDir: string, pulumiVersion: string, tools: string = toolRoot()): string {
  const key = `${projectDir}\0${tools}\0${pulumiVersion}`;
  let digest = toolDigests.get(key);
  if (digest === undefined) {
    digest = sha256(
      bytesOf(path.join(projectDir, "package.json")),
      bytesOf(path.join(projectDir, "package-lock.json")),
      bytesOf(path.join(projectDir, "Pulumi.yaml")),
      bytesOf(sdkManifest(tools)),
      treeDigest(path.join(tools, "dist")),
      pulumiVersion,
      bytesOf(path.join(tools, "package.json")),
    );
    toolDigests.set(key, digest);
  }
  return digest;
}

/** The package.json of the Pulumi SDK the tool loads; undefined when there is none. */
function sdkManifest(tools: string): string | undefined {
  try {
    return createRequire(path.join(tools, "package.json")).resolve("@pulumi/pulumi/package.json");
  } catch {
    return undefined;
  }
}

/**
 * The target's settings: its settings file (the token in it is encrypted; only the digest of the
 * file is kept) and every `STACKWRIGHT_*` variable the program sees but the credentials (below),
 * each value hashed.
 */
export function settingsDigest(
  configFile: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): string {
  return sha256(bytesOf(configFile), ...variablesOf(env, (name) => !CREDENTIAL_VARIABLES.has(name)));
}

/**
 * The API credentials the environment gives (`STACKWRIGHT_API_URL`, `STACKWRIGHT_EMAIL`,
 * `STACKWRIGHT_API_TOKEN`), each value hashed. Apart from the other settings, so that `drift`,
 * which makes every recorded read again as its own user, can leave them out (src/observe/proof.ts).
 */
export function credentialsDigest(env: Readonly<Record<string, string | undefined>>): string {
  return sha256(...variablesOf(env, (name) => CREDENTIAL_VARIABLES.has(name)));
}

/** The `STACKWRIGHT_*` variables that `pick` keeps, but the ignored ones, as `NAME=<digest>` in name order. */
function variablesOf(
  env: Readonly<Record<string, string | undefined>>,
  pick: (name: string) => boolean,
): string[] {
  return Object.entries(env)
    .filter((e): e is [string, string] => e[0].startsWith("STACKWRIGHT_") && e[1] !== undefined)
    .filter(([name]) => !IGNORED_VARIABLES.has(name) && pick(name))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}=${sha256(value)}`);
}

/** What one run of one stack is given. */
export interface RunInputs {
  /** The API stack's file in stacks-config/. */
  readonly stackFile: string | undefined;
  readonly configFile: string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly projectDir: string;
  readonly pulumiVersion: string;
  /** The Pulumi stack, the operation and its flags that change the result. */
  readonly flags: Readonly<Record<string, string | boolean>>;
}

export function inputDigests(inputs: RunInputs): InputDigests {
  return {
    file: sha256(bytesOf(inputs.stackFile)),
    settings: settingsDigest(inputs.configFile, inputs.env),
    credentials: credentialsDigest(inputs.env),
    tool: toolDigest(inputs.projectDir, inputs.pulumiVersion),
    flags: sha256(
      ...Object.entries(inputs.flags)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => `${k}=${String(v)}`),
    ),
  };
}

/** The target as the shortcut sees it (fleet/open-target.ts's Target has all of it, and `drift` makes one). */
export interface ShortcutTarget {
  readonly name: string;
  readonly projectDir: string;
  readonly configFile: string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly pulumiVersion: string;
}

/**
 * The inputs of an `up` of one per-file stack of the target, as its record holds them: what the
 * shortcut of `up` compares, and what `drift` compares without running anything.
 */
export function upInputDigests(
  target: ShortcutTarget,
  stackName: string,
  stackFile: string | undefined,
): InputDigests {
  return inputDigests({
    stackFile,
    configFile: target.configFile,
    env: target.env,
    projectDir: target.projectDir,
    pulumiVersion: target.pulumiVersion,
    flags: { stack: stackName, target: target.name, operation: "up" },
  });
}
