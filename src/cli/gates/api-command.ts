/**
 * What the commands that call the API directly (`logs`, `snapshot download`) share: the client,
 * made from the target's API settings after the same checks as the engine commands'
 * preflight (so a wrong setting reads the same everywhere), and argument checks with the rules
 * of src/api.
 */
import { NumericId, nameProblem, parseDuration } from "../../api";
import type { StackwrightClient } from "../../client";
import { UsageError } from "../kit/exit-codes";
import { checkedClient } from "./preflight";

/**
 * A client for `command`, checked against the API with access to `stack`, with the target's API
 * settings `config` (the variables win over it); the caller closes it.
 */
export async function apiClient(
  command: string,
  stack: string,
  config: (key: string) => string | undefined,
): Promise<StackwrightClient> {
  const { client } = await checkedClient({
    command,
    stacks: [{ name: stack, file: "the API_STACK argument" }],
    config,
    env: process.env,
  });
  return client;
}

/** A positional name (API_STACK, ENVIRONMENT), checked by the one name rule. */
export function nameArgument(command: string, what: string, value: string | undefined): string {
  if (value === undefined) throw new UsageError(`stackwright ${command}: ${what} is missing`);
  const problem = nameProblem(value);
  if (problem !== undefined)
    throw new UsageError(`stackwright ${command}: ${what} ${JSON.stringify(value)} ${problem}`);
  return value;
}

/** A numeric platform id from an argument or flag, checked by the one id rule. */
export function idArgument(command: string, what: string, value: string): string {
  const parsed = NumericId.safeParse(value);
  if (!parsed.success) {
    throw new UsageError(
      `stackwright ${command}: ${what} '${value}' ${parsed.error.issues[0]?.message ?? "is not an id"}`,
    );
  }
  return parsed.data;
}

/** A `--timeout` duration (30m, 1h30m) in milliseconds, checked by the one duration rule. */
export function timeoutArgument(command: string, value: string | undefined, fallbackMs: number): number {
  if (value === undefined) return fallbackMs;
  const parsed = parseDuration(value);
  if (!parsed.ok) throw new UsageError(`stackwright ${command}: --timeout ${parsed.message}`);
  return parsed.seconds * 1000;
}
