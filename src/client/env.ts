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
