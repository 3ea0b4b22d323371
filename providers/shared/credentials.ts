/**
 * The API settings both processes read: the program process for data sources, the provider
 * process in `configure`. Each comes from stack config, overridden by its environment variable.
 * They never enter a resource's inputs or outputs, so they never reach the state.
 */
import { CREDENTIAL_SOURCES, resolveCredentials } from "../../src/client";
import type { ConfigReader } from "./contract";
import { ProviderError } from "./errors";

/** Connection settings of the API. */
export interface ApiSettings {
  baseUrl: string;
  email: string;
  token: string;
}

/** Settings from `config`, each overridden by its environment variable when that is set (src/client's rule). */
export function resolveSettings(
  config: ConfigReader | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Partial<ApiSettings> {
  const resolved = resolveCredentials(config === undefined ? undefined : (key) => config.get(key), env);
  const out: Partial<ApiSettings> = {};
  for (const source of CREDENTIAL_SOURCES) {
    const setting = resolved[source.field];
    if (setting !== undefined) out[source.field] = setting.value;
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
