/**
 * The API settings both processes read: the program process for data sources, the provider
 * process in `configure`. Each comes from stack config, overridden by its environment variable.
 * They never enter a resource's inputs or outputs, so they never reach the state.
 */
import type { ConfigReader } from "./contract";
import { ProviderError } from "./errors";

/** The three settings, by their stack config keys and the environment variables that override them. */
export const CREDENTIAL_SOURCES = [
  { field: "baseUrl", config: "stackwright:apiUrl", env: "STACKWRIGHT_API_URL" },
  { field: "email", config: "stackwright:email", env: "STACKWRIGHT_EMAIL" },
  { field: "token", config: "stackwright:apiToken", env: "STACKWRIGHT_API_TOKEN" },
] as const;

/** Connection settings of the API. */
export interface ApiSettings {
  baseUrl: string;
  email: string;
  token: string;
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
