/**
 * The one budget of requests in flight to the API for a run, and the one flag that sets it
 * (`--api-concurrency`), shared by the engine commands (`preview`, `up`, `refresh`, `destroy`)
 * and the observing ones (`status`, `drift`). Every client of a process shares one pool per
 * origin of that many connections (src/client/transport.ts); the number reaches the clients of
 * this process and of the processes it starts (the shared provider host, a plugin) through
 * `STACKWRIGHT_API_CONCURRENCY`, and the observation's reads (src/observe) directly.
 */
import {
  API_CONCURRENCY_VARIABLE,
  apiConcurrencyOf,
  clientDefaults,
  InvalidOptionsError,
} from "../../client";
import type { FlagSpec } from "./args";
import { CliError, UsageError } from "./exit-codes";

/**
 * Requests in flight to the API at once when neither `--api-concurrency` nor
 * `STACKWRIGHT_API_CONCURRENCY` is given: the client's pool size. The only default of it.
 */
export const DEFAULT_API_CONCURRENCY = clientDefaults.maxConnections;

/** The flag, as the observing commands describe it (the engine commands say where it applies). */
export const apiConcurrencyFlag = {
  "api-concurrency": {
    type: "string",
    help: `requests in flight to the API at once (default: ${DEFAULT_API_CONCURRENCY}, or STACKWRIGHT_API_CONCURRENCY)`,
  },
} satisfies FlagSpec;

export function parseApiConcurrency(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > 1024) {
    throw new UsageError(`--api-concurrency must be a whole number from 1 to 1024, not '${text}'`);
  }
  return n;
}

/**
 * Applies `--api-concurrency` to this run: every client reads it from the environment, this
 * process's and, inherited, that of every process the run starts. Returns the budget in force
 * (the flag, else the variable, else {@link DEFAULT_API_CONCURRENCY}); a malformed variable is a
 * usage error naming it.
 */
export function useApiConcurrency(text: string | undefined, env: NodeJS.ProcessEnv = process.env): number {
  const flag = parseApiConcurrency(text);
  if (flag !== undefined) {
    env[API_CONCURRENCY_VARIABLE] = String(flag);
    return flag;
  }
  try {
    return apiConcurrencyOf(env) ?? DEFAULT_API_CONCURRENCY;
  } catch (error) {
    if (!(error instanceof InvalidOptionsError)) throw error;
    throw new CliError("usage", error.message.replace(/^\[([A-Z_]+)\] /, "$1 "), { cause: error });
  }
}
