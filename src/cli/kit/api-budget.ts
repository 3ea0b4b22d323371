/**
 * The one budget of requests in flight to the API for a run, and the one flag that sets it
 * (`--api-concurrency`), shared by the engine commands (`preview`, `up`, `refresh`, `destroy`)
 * and the observing ones (`status`, `drift`). Every client of a process shares one pool per
 * origin of that many connections (src/client/transport.ts). The number is decided once, from
 * the flag or the variable, and passed down: to the observation's reads (src/observe) directly,
 * and to the clients of this run and of the processes it starts (the shared provider host, a
 * plugin) in the environment the run gives them ({@link apiBudgetEnv}); the process's own
 * environment is never written.
 */
import {
  API_CONCURRENCY_VARIABLE,
  apiConcurrencyOf,
  clientDefaults,
  InvalidOptionsError,
} from "../../client";
import { flag, type Flag } from "./args";
import type { Env } from "./context";
import { CliError } from "./exit-codes";

/**
 * Requests in flight to the API at once when neither `--api-concurrency` nor
 * `STACKWRIGHT_API_CONCURRENCY` is given: the client's pool size. The only default of it.
 */
export const DEFAULT_API_CONCURRENCY = clientDefaults.maxConnections;

/** `--api-concurrency N` (1 to 1024), described by `help`; undefined when not given. */
export function apiConcurrencyFlagOf(help: string): Flag<number | undefined> {
  return flag.int(help, { min: 1, max: 1024 });
}

/** The flag, as the observing commands describe it (the engine commands say where it applies). */
export const apiConcurrencyFlag = {
  "api-concurrency": apiConcurrencyFlagOf(
    `requests in flight to the API at once (default: ${DEFAULT_API_CONCURRENCY}, or STACKWRIGHT_API_CONCURRENCY)`,
  ),
};

/**
 * The budget of this run: `--api-concurrency` when given, else `STACKWRIGHT_API_CONCURRENCY` of
 * `env`, else {@link DEFAULT_API_CONCURRENCY}; a malformed variable is a usage error naming it.
 */
export function apiBudget(flagValue: number | undefined, env: Env): number {
  if (flagValue !== undefined) return flagValue;
  try {
    return apiConcurrencyOf(env) ?? DEFAULT_API_CONCURRENCY;
  } catch (error) {
    if (!(error instanceof InvalidOptionsError)) throw error;
    throw new CliError("usage", error.message.replace(/^\[([A-Z_]+)\] /, "$1 "), { cause: error });
  }
}

/** The variable that gives `budget` to every client of the run, for the environment the run hands them. */
export function apiBudgetEnv(budget: number): Record<string, string> {
  return { [API_CONCURRENCY_VARIABLE]: String(budget) };
}
