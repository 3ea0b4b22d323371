/**
 * What the data sources share: credentials in the program process and a per-run memo, so each
 * distinct call makes one request however many resources read it.
 */
import * as pulumi from "@pulumi/pulumi";
import { createClient, type StackwrightClient } from "../../src/client";
import { requireSettings, resolveSettings, type ApiSettings } from "../shared/credentials";

// One program run is one process: this map lives exactly as long as the run.
const memo = new Map<string, Promise<unknown>>();

/** Forgets every memoised answer (tests; a long-lived process between runs). */
export function resetDataCache(): void {
  memo.clear();
}

/** Stable text of the arguments: keys sorted, undefined dropped. */
export function cacheKey(name: string, args: unknown): string {
  const canon = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(canon);
    if (v !== null && typeof v === "object") {
      return Object.fromEntries(
        Object.entries(v)
          .filter(([, x]) => x !== undefined)
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([k, x]) => [k, canon(x)]),
      );
    }
    return v;
  };
  return `${name}:${JSON.stringify(canon(args))}`;
}

/** Credentials for the program process: `STACKWRIGHT_*` variables, then stack config. */
export function programSettings(): ApiSettings {
  const config = new pulumi.Config("stackwright");
  return requireSettings(
    resolveSettings({ get: (key) => config.get(key.replace(/^stackwright:/, "")) }, process.env),
  );
}

/**
 * A data source that could not be read stops the program with one clear line (a RunError: the
 * SDK prints its message without a stack or an object dump) naming what was read and why. The
 * structured API error stays reachable as `cause`; none of them carries a token.
 */
export function readFailure(name: string, args: unknown, error: unknown): pulumi.RunError {
  const what = Object.entries(typeof args === "object" && args !== null ? args : {})
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k} ${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(", ");
  const reason = error instanceof Error ? error.message : String(error);
  const failure = new pulumi.RunError(
    `Stackwright could not read ${name}${what === "" ? "" : ` (${what})`}: ${reason}`,
  );
  Object.defineProperty(failure, "cause", { value: error, enumerable: false });
  return failure;
}

/**
 * Runs `fn` once per distinct (name, args) in this process; later calls share the first
 * promise. A failed call is forgotten so that a later call may try again.
 */
export function memoised<T>(
  name: string,
  args: unknown,
  fn: (client: StackwrightClient) => Promise<T>,
): Promise<T> {
  const key = cacheKey(name, args);
  const hit = memo.get(key);
  if (hit !== undefined) return hit as Promise<T>;
  const run = (async () => {
    const client = createClient(programSettings());
    try {
      return await fn(client);
    } catch (error) {
      throw readFailure(name, args, error);
    } finally {
      await client.close();
    }
  })();
  memo.set(key, run);
  run.catch(() => memo.delete(key));
  return run;
}
