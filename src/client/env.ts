/**
 * Client options from the environment (`STACKWRIGHT_API_URL`, `STACKWRIGHT_EMAIL`,
 * `STACKWRIGHT_API_TOKEN`), for providers that read credentials at run time.
 */
import type { ClientOptions } from "./create-client";
import { InvalidOptionsError } from "./errors";

/** Reads the three variables; throws InvalidOptionsError naming the missing ones (never values). */
export function clientOptionsFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Pick<ClientOptions, "baseUrl" | "email" | "token"> {
  const baseUrl = env.STACKWRIGHT_API_URL;
  const email = env.STACKWRIGHT_EMAIL;
  const token = env.STACKWRIGHT_API_TOKEN;
  const missing = [
    ["STACKWRIGHT_API_URL", baseUrl],
    ["STACKWRIGHT_EMAIL", email],
    ["STACKWRIGHT_API_TOKEN", token],
  ]
    .filter(([, v]) => v === undefined || v === "")
    .map(([k]) => k);
  if (baseUrl === undefined || email === undefined || token === undefined || missing.length > 0) {
    throw new InvalidOptionsError(`Missing environment variables: ${missing.join(", ")}`);
  }
  return { baseUrl, email, token };
}

/**
 * The three API settings, by the stack config keys that hold them and the environment variables
 * that override them. The provider process and the CLI's preflight resolve them the same way.
 */
export const CREDENTIAL_SOURCES = [
  { field: "baseUrl", config: "stackwright:apiUrl", env: "STACKWRIGHT_API_URL" },
  { field: "email", config: "stackwright:email", env: "STACKWRIGHT_EMAIL" },
  { field: "token", config: "stackwright:apiToken", env: "STACKWRIGHT_API_TOKEN" },
] as const;

/** One of {@link CREDENTIAL_SOURCES}. */
export type CredentialSource = (typeof CREDENTIAL_SOURCES)[number];
/** The connection settings the sources give. */
export type CredentialField = CredentialSource["field"];

/** A resolved setting and where it came from (a variable or a config key), for messages. */
export interface ResolvedSetting {
  value: string;
  from: string;
  source: CredentialSource;
}

/** Each setting from its environment variable when set, else from `config(key)`; missing ones absent. */
export function resolveCredentials(
  config: ((key: string) => string | undefined) | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Partial<Record<CredentialField, ResolvedSetting>> {
  const out: Partial<Record<CredentialField, ResolvedSetting>> = {};
  for (const source of CREDENTIAL_SOURCES) {
    const fromEnv = env[source.env];
    if (fromEnv !== undefined && fromEnv !== "") {
      out[source.field] = { value: fromEnv, from: source.env, source };
      continue;
    }
    const fromConfig = config?.(source.config);
    if (fromConfig !== undefined && fromConfig !== "") {
      out[source.field] = { value: fromConfig, from: `stack config ${source.config}`, source };
    }
  }
  return out;
}
