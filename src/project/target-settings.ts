/**
 * A target's settings, read one way by every command: `--target NAME` (default `dev`) and
 * `--project DIR` name the file `DIR/Pulumi.<target>.yaml`; its secrets are opened with the
 * secrets variables {@link targetSecretsEnv} decides (the built-in passphrase serves the demo
 * alone); the API settings come from the variables (`STACKWRIGHT_API_URL`, `_EMAIL`, `_API_TOKEN`)
 * first and from the file for what they leave out, so a run whose variables give all three starts
 * no process to read the file.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { execFile } from "node:child_process";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { z } from "zod";
import { CREDENTIAL_SOURCES, resolveCredentials, type CredentialSource } from "../client";
import { targetProblem } from "../config";
import { defaultProjectDir, engineEnv, pulumiBinary } from "./engine-env";
import { DEMO_TARGET, encryptedWithBuiltInPassphrase, secretsEnv } from "./passphrase";
import type { Env } from "./engine-env";
import { CliError, UsageError } from "./errors";
import { commandLine } from "./invocation";
import { createStackIfAbsent, openStateStore } from "../state-backend";
import { projectNameOf } from "./lock-target";

const execFileAsync = promisify(execFile);

/** The target a command uses when `--target` is not given: the demo's, on this machine. */
export const DEFAULT_TARGET = DEMO_TARGET;

/** The target `--target` names (default {@link DEFAULT_TARGET}), refused with the rule when it cannot name one. */
export function targetNameOf(flag: string | undefined): string {
  const target = flag ?? DEFAULT_TARGET;
  const problem = targetProblem(target);
  if (problem !== undefined) throw new UsageError(`--target: ${problem}`);
  return target;
}

/** The project directory `--project` names (default: the one holding this package's Pulumi.yaml). */
export function projectDirOf(flag: string | undefined): string {
  return path.resolve(flag ?? defaultProjectDir());
}

/** `<projectDir>/Pulumi.<target>.yaml`, the target's settings file. */
export function settingsFileOf(projectDir: string, target: string): string {
  return path.join(path.resolve(projectDir), `Pulumi.${target}.yaml`);
}

/**
 * The secrets variables of every Pulumi process that reads or writes the target's file (its
 * engine runs, the read of its settings), or the one-line refusal of {@link secretsEnv}.
 */
export function targetSecretsEnv(
  projectDir: string,
  target: string,
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const file = settingsFileOf(projectDir, target);
  return secretsEnv({ target, configFile: fs.existsSync(file) ? file : undefined, env });
}

/** What `pulumi config --json --show-secrets` prints: each key with its value. */
const ConfigListing = z.record(z.string(), z.looseObject({ value: z.unknown().optional() }));

export interface TargetSettingsRequest {
  readonly projectDir: string;
  readonly target: string;
  /** The environment the user gave (a command's `env`); the engine's is built from it. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * Every setting of the target's file, its secrets decrypted, read by one `pulumi config` process
 * (not the engine) for a stack of the target's name in a scratch backend of its own: nothing is
 * read from or written to the real backend, and the target needs no stack there (its per-file
 * stacks never make one). Refused first, with one line, when the target has no secrets passphrase
 * it may use.
 */
export async function readTargetSettings(request: TargetSettingsRequest): Promise<Record<string, string>> {
  const projectDir = path.resolve(request.projectDir);
  const env = request.env;
  const configFile = settingsFileOf(projectDir, request.target);
  const secrets = targetSecretsEnv(projectDir, request.target, env);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-settings-"));
  try {
    const backend = pathToFileURL(scratch).href;
    await createStackIfAbsent({
      store: openStateStore(backend),
      project: projectNameOf(projectDir),
      stack: request.target,
    });
    const args = [
      "config",
      "--show-secrets",
      "--json",
      "--stack",
      request.target,
      "--config-file",
      configFile,
    ];
    const processEnv = { ...env, ...engineEnv({ projectDir, baseEnv: env }), ...secrets };
    processEnv["PULUMI_BACKEND_URL"] = backend;
    let stdout: string;
    try {
      const pulumi = await pulumiBinary(projectDir);
      ({ stdout } = await execFileAsync(pulumi, args, {
        cwd: projectDir,
        env: processEnv,
        timeout: 60_000,
        maxBuffer: 1 << 20,
      }));
    } catch (error) {
      if (error instanceof CliError) throw error;
      const said = errorLine(error instanceof Error && "stderr" in error ? String(error.stderr) : "");
      // A passphrase of the user's own cannot open a file sealed with the public one: say which it is.
      const sealed =
        request.target !== DEMO_TARGET && encryptedWithBuiltInPassphrase(configFile)
          ? `; its secrets are encrypted with Stackwright's public demo passphrase, so anyone who reads ${path.basename(configFile)} can decrypt them: rotate the API token and set it again with a passphrase of your own`
          : "; check PULUMI_CONFIG_PASSPHRASE (or the secrets provider the file names)";
      throw new CliError(
        "usage",
        `cannot read the settings of target '${request.target}' from ${configFile}` +
          `${said === undefined ? "" : `: ${said}`}${sealed}`,
      );
    }
    const parsed = ConfigListing.safeParse(JSON.parse(stdout));
    if (!parsed.success) {
      throw new CliError(
        "usage",
        `cannot read the settings of target '${request.target}' from ${configFile}`,
      );
    }
    return valuesOf(parsed.data);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** The API settings (URL, email, token) the variables leave out: the file is read only for these. */
export function credentialsUnsetBy(env: Readonly<Record<string, string | undefined>>): CredentialSource[] {
  const fromEnv = resolveCredentials(undefined, env);
  return CREDENTIAL_SOURCES.filter((source) => fromEnv[source.field] === undefined);
}

/**
 * The target's API settings as the preflight reads them (`config(key)`): the variables win, so
 * the file is read only for what they leave out. With neither the variables nor a settings file,
 * one line says what to set.
 */
export async function targetApiSettings(
  request: TargetSettingsRequest,
): Promise<(key: string) => string | undefined> {
  const env = request.env;
  const unset = credentialsUnsetBy(env);
  if (unset.length === 0) return () => undefined;
  const configFile = settingsFileOf(request.projectDir, request.target);
  if (!fs.existsSync(configFile)) {
    throw new CliError(
      "usage",
      `no API settings for target '${request.target}': set ${unset.map((s) => s.env).join(", ")}, or create ` +
        `${configFile} with ${unset.map((s) => s.config).join(", ")} (${commandLine("env --target " + request.target)} prints the environment for the pulumi config commands)`,
    );
  }
  const settings = await readTargetSettings(request);
  // Said here, naming the file, rather than by the preflight, which knows no file.
  const missing = unset.filter((source) => (settings[source.config] ?? "") === "");
  if (missing.length > 0) {
    throw new CliError(
      "usage",
      `no API settings for target '${request.target}': set ${missing.map((s) => s.env).join(", ")}, or add ` +
        `${missing.map((s) => s.config).join(", ")} to ${configFile}`,
    );
  }
  return (key) => settings[key];
}

/** {@link targetApiSettings} of the target and project that `--target` and `--project` name. */
export function apiSettingsOf(
  flags: { readonly target: string; readonly project: string },
  env: Env,
): Promise<(key: string) => string | undefined> {
  return targetApiSettings({ projectDir: flags.project, target: flags.target, env });
}

function valuesOf(listing: Readonly<Record<string, { value?: unknown }>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, { value }] of Object.entries(listing)) {
    if (value !== undefined) out[key] = typeof value === "string" ? value : JSON.stringify(value);
  }
  return out;
}

/** The engine's `error: ...` line of a failed command, without the rest. */
export function errorLine(output: string): string | undefined {
  return output
    .split("\n")
    .map((line) => line.trim())
    .find((line) => line.startsWith("error:"))
    ?.replace(/^error:\s*/, "");
}
