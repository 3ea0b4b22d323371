/**
 * Which secrets a target's settings file may be read with. Pulumi encrypts a target's secrets (the
 * API token) with the secrets provider its `Pulumi.<target>.yaml` names: a passphrase unless it
 * names another (`secretsprovider: awskms://…`, `gcpkms://…`, `azurekeyvault://…`,
 * `hashivault://…`). Stackwright has a built-in passphrase, printed in this repository, so that the
 * demo runs with no setting at all; anything it encrypts can be read by anyone. It therefore serves
 * one case only: the `dev` target whose API is on this machine (the embedded emulator). Every other
 * target brings its own passphrase (or its own provider), or is refused before anything is
 * encrypted or decrypted.
 */
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { parse } from "yaml";
import { z } from "zod";
import { resolveCredentials } from "../client";
import { parsePerFileStackName } from "../config";
import { CliError } from "./errors";

/** The demo's passphrase. Public: it protects nothing, and is allowed only by {@link secretsEnv}. */
export const BUILT_IN_PASSPHRASE = "stackwright-local-state";

/** The one target the built-in passphrase may serve, and only with its API on loopback. */
export const DEMO_TARGET = "dev";

/** What a target's settings file says about its secrets; the rest of the file is not read here. */
const SettingsFile = z.looseObject({
  secretsprovider: z.string().optional(),
  encryptionsalt: z.string().optional(),
  config: z.record(z.string(), z.unknown()).optional(),
});
type SettingsFile = z.infer<typeof SettingsFile>;

function readSettingsFile(configFile: string): SettingsFile {
  let parsed: unknown;
  try {
    parsed = parse(fs.readFileSync(configFile, "utf8"));
  } catch (cause) {
    throw new CliError("usage", `cannot read ${configFile}: it is not a YAML file Pulumi can read`, {
      cause,
    });
  }
  const checked = SettingsFile.safeParse(parsed ?? {});
  if (!checked.success) {
    throw new CliError(
      "usage",
      `${configFile} is not a Pulumi stack settings file (expected a mapping with config:, encryptionsalt: or secretsprovider:)`,
    );
  }
  return checked.data;
}

/** True when the file's secrets are encrypted with a passphrase (Pulumi's default provider). */
export function usesPassphrase(file: Pick<SettingsFile, "secretsprovider">): boolean {
  return file.secretsprovider === undefined || file.secretsprovider === "passphrase";
}

/**
 * True when `encryptionsalt` (Pulumi's `v1:SALT:v1:NONCE:CIPHERTEXT`, the word "pulumi" encrypted
 * with the passphrase's key) opens with `passphrase`: Pulumi's key derivation (PBKDF2-SHA256,
 * 1,000,000 rounds, 32 bytes) and AES-256-GCM. About half a CPU-second, so callers ask only when
 * the answer changes what they say.
 */
export function saltOpensWith(encryptionSalt: string, passphrase: string): boolean {
  const parts = encryptionSalt.split(":");
  if (parts.length !== 5 || parts[0] !== "v1" || parts[2] !== "v1") return false;
  const [, salt = "", , nonce = "", sealed = ""] = parts;
  const key = crypto.pbkdf2Sync(passphrase, Buffer.from(salt, "base64"), 1_000_000, 32, "sha256");
  const bytes = Buffer.from(sealed, "base64");
  if (bytes.length < 16) return false;
  try {
    const decipher = crypto.createDecipheriv("aes-256-gcm", key, Buffer.from(nonce, "base64"));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    const plain = Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]);
    return plain.toString("utf8") === "pulumi";
  } catch {
    return false;
  }
}

/** True when the target's settings file holds secrets anyone can read (the built-in passphrase's). */
export function encryptedWithBuiltInPassphrase(configFile: string): boolean {
  const file = readSettingsFile(configFile);
  return (
    usesPassphrase(file) &&
    file.encryptionsalt !== undefined &&
    saltOpensWith(file.encryptionsalt, BUILT_IN_PASSPHRASE)
  );
}

function isLoopbackUrl(value: unknown): boolean {
  if (typeof value !== "string") return false;
  try {
    const host = new URL(value).hostname;
    return host === "localhost" || host === "[::1]" || /^127(?:\.\d{1,3}){3}$/.test(host);
  } catch {
    return false;
  }
}

/** The variables that give Pulumi a passphrase; either one is the user's choice. */
const PASSPHRASE_VARIABLES = ["PULUMI_CONFIG_PASSPHRASE", "PULUMI_CONFIG_PASSPHRASE_FILE"] as const;

export interface SecretsRequest {
  /** The target's name (`dev`, `production`). */
  readonly target: string;
  /** Its settings file, `Pulumi.<target>.yaml`; undefined when it has none yet. */
  readonly configFile: string | undefined;
  /** The environment the user gave (`process.env`). */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * The secrets variables an engine run of `target` gets, or a refusal (exit 2) before Pulumi
 * encrypts or decrypts anything:
 * - a file naming another secrets provider: nothing added (that provider's own settings apply);
 * - a passphrase the user set: used, unless it is the built-in one for a target other than the
 *   demo's (a production secret must not be sealed with a value printed in this repository);
 * - none set: the built-in passphrase for the demo's `dev` target with its API on loopback (the
 *   `STACKWRIGHT_API_URL` variable, else the file's `apiUrl`, else the emulator's default), else
 *   refused; the refusal says whether the file's secrets are already readable by anyone.
 */
export function secretsEnv(request: SecretsRequest): Record<string, string> {
  const file = request.configFile === undefined ? {} : readSettingsFile(request.configFile);
  if (!usesPassphrase(file)) return {};
  const shown =
    request.configFile === undefined ? `Pulumi.${request.target}.yaml` : path.basename(request.configFile);
  // The API the target's runs reach, resolved as the client resolves it (the variable over the file).
  const fromFile = (key: string) => {
    const value = file.config?.[key];
    return typeof value === "string" ? value : undefined;
  };
  const apiUrl = resolveCredentials(fromFile, request.env).baseUrl?.value;
  const demo = request.target === DEMO_TARGET && (apiUrl === undefined || isLoopbackUrl(apiUrl));
  const given = PASSPHRASE_VARIABLES.filter((name) => (request.env[name] ?? "") !== "");
  if (given.length > 0) {
    if (!demo && request.env["PULUMI_CONFIG_PASSPHRASE"] === BUILT_IN_PASSPHRASE) {
      throw new CliError(
        "usage",
        `PULUMI_CONFIG_PASSPHRASE is Stackwright's public demo passphrase, which serves only the 'dev' target on this machine's emulator: choose a passphrase of your own for target '${request.target}' (README, "Production checklist")`,
      );
    }
    return {};
  }
  if (demo) return { PULUMI_CONFIG_PASSPHRASE: BUILT_IN_PASSPHRASE };
  const readable =
    file.encryptionsalt !== undefined && saltOpensWith(file.encryptionsalt, BUILT_IN_PASSPHRASE)
      ? `; its secrets are encrypted with Stackwright's public demo passphrase, so anyone who reads ${shown} can decrypt them: rotate the API token and re-encrypt the file with a passphrase of your own (pulumi stack change-secrets-provider)`
      : "";
  throw new CliError(
    "usage",
    `target '${request.target}' needs a secrets passphrase: set PULUMI_CONFIG_PASSPHRASE (or PULUMI_CONFIG_PASSPHRASE_FILE), or name a KMS in ${shown} (secretsprovider:); the built-in one serves only the demo's 'dev' target on this machine${readable}`,
  );
}

/**
 * The secrets variables of a Pulumi stack run with its own file (`--stack NAME`, a test's or a
 * bench's stack): the rule of {@link secretsEnv} for the stack's target (`dev` for `dev.acme-web`,
 * else the stack's own name), with its own `Pulumi.<stack>.yaml` when it has one.
 */
export function stackSecretsEnv(
  projectDir: string,
  stackName: string,
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const ownFile = path.join(path.resolve(projectDir), `Pulumi.${stackName}.yaml`);
  return secretsEnv({
    target: parsePerFileStackName(stackName)?.target ?? stackName,
    configFile: fs.existsSync(ownFile) ? ownFile : undefined,
    env,
  });
}
