/**
 * Credentials of the provider process. `configure` runs once per provider process (the SDK
 * calls it when it first deserializes a provider) and keeps the API URL, e-mail and token in
 * this module's memory; they never enter a resource's inputs or outputs, so they never reach the
 * state. A client is built per operation from them and closed afterwards.
 */
import { createClient, type StackwrightClient } from "../../src/client";
import { ProviderError } from "./errors";

/** The three settings, by their stack config keys and the environment variables that override them. */
export const CREDENTIAL_SOURCES = [
  { field: "baseUrl", config: "stackwright:apiUrl", env: "STACKWRIGHT_API_URL" },
  { field: "email", config: "stackwright:email", env: "STACKWRIGHT_EMAIL" },
  { field: "token", config: "stackwright:apiToken", env: "STACKWRIGHT_API_TOKEN" },
] as const;

/** Where a setting may come from: the dynamic provider's config reader (`get(key)`). */
export interface ConfigReader {
  get(key: string): string | undefined;
}

/** Connection settings of the API. */
export interface ApiSettings {
  baseUrl: string;
  email: string;
  token: string;
}

// Process memory of the provider (or program) process; written by `configure` only.
const configured: { values: Partial<ApiSettings> } = { values: {} };

/**
 * Reads the settings from stack config, environment variables overriding, and remembers them.
 * Missing settings are reported when the first operation needs them, not here: a `check` or
 * `diff` must work without credentials.
 */
export function configure(req: { config: ConfigReader }): Promise<void> {
  configured.values = resolveSettings(req.config, process.env);
  return Promise.resolve();
}

/** Settings from `config`, each overridden by its environment variable when that is set. */
export function resolveSettings(
  config: ConfigReader | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Partial<ApiSettings> {
  const out: Partial<ApiSettings> = {};
  for (const source of CREDENTIAL_SOURCES) {
    const fromEnv = env[source.env];
    const value = fromEnv !== undefined && fromEnv !== "" ? fromEnv : config?.get(source.config);
    if (value !== undefined && value !== "") out[source.field] = value;
  }
  return out;
}

/** The settings in force: configured ones, or the environment when `configure` never ran. */
export function currentSettings(): ApiSettings {
  const values =
    Object.keys(configured.values).length > 0 ? configured.values : resolveSettings(undefined, process.env);
  return requireSettings(values);
}

/** The three settings, or an error naming each missing one by its config key and variable. */
export function requireSettings(values: Partial<ApiSettings>): ApiSettings {
  if (values.baseUrl === undefined || values.email === undefined || values.token === undefined) {
    const missing = CREDENTIAL_SOURCES.filter((s) => values[s.field] === undefined).map(
      (s) => `${s.config} (or ${s.env})`,
    );
    throw new ProviderError(
      "STACKWRIGHT_PROVIDER_CONFIG",
      `Stackwright has no API credentials: set ${missing.join(", ")}. ` +
        "Set the token with 'pulumi config set --secret stackwright:apiToken ...'.",
    );
  }
  return { baseUrl: values.baseUrl, email: values.email, token: values.token };
}

/** Runs `fn` with a fresh client and closes it afterwards. */
export async function withClient<T>(fn: (client: StackwrightClient) => Promise<T>): Promise<T> {
  const client = createClient(currentSettings());
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}
