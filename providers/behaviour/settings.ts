/**
 * Credentials of the provider process. `configure` runs once per provider process (the SDK
 * calls it when it first deserializes a provider) and keeps the API URL, e-mail and token in
 * this module's memory; they never enter a resource's inputs or outputs, so they never reach the
 * state. A client is built per operation from them and closed afterwards.
 */
import { createClient, type StackwrightClient } from "../../src/client";
import type { ConfigReader } from "../shared/contract";
import { requireSettings, resolveSettings, type ApiSettings } from "../shared/credentials";

// Process memory of the provider process; written by `configure` only.
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

/** The settings in force: configured ones, or the environment when `configure` never ran. */
export function currentSettings(): ApiSettings {
  const values =
    Object.keys(configured.values).length > 0 ? configured.values : resolveSettings(undefined, process.env);
  return requireSettings(values);
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
