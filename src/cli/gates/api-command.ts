/**
 * What the commands that call the API directly (`logs`, `snapshot download`, `history`,
 * `promote`, `rollback`) share: the client, made from the target's API settings after the same
 * checks as the engine commands' preflight (so a wrong setting reads the same everywhere), the
 * flag and argument types with the rules of src/api, and the one line for an environment the
 * stack does not have.
 */
import { NumericId, nameProblem } from "../../api";
import { NotFoundError, type StackwrightClient } from "../../client";
import { flag, FlagRuleError } from "../kit/args";
import type { Env } from "../kit/context";
import { CliError, UsageError } from "../kit/exit-codes";
import { checkedClient } from "../../project/preflight";

/**
 * A client for `command`, checked against the API with access to `stack`, with the target's API
 * settings `config` (the variables of `env` win over it); the caller closes it.
 */
export async function apiClient(
  command: string,
  stack: string,
  config: (key: string) => string | undefined,
  env: Env,
): Promise<StackwrightClient> {
  const { client } = await checkedClient({
    command,
    stacks: [{ name: stack, file: "the API_STACK argument" }],
    config,
    env,
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

/** A numeric platform id from an argument, checked by the one id rule. */
export function idArgument(command: string, what: string, value: string): string {
  const parsed = NumericId.safeParse(value);
  if (!parsed.success) {
    throw new UsageError(
      `stackwright ${command}: ${what} '${value}' ${parsed.error.issues[0]?.message ?? "is not an id"}`,
    );
  }
  return parsed.data;
}

/** A flag that names a platform object (an environment, a stack), checked by the one name rule. */
export function nameFlag(help: string) {
  return flag.parsed(help, (text) => {
    const problem = nameProblem(text);
    if (problem !== undefined) throw new FlagRuleError(`${JSON.stringify(text)} ${problem}`);
    return text;
  });
}

/** A flag that names a platform object by its numeric id (a deployment), checked by the one id rule. */
export function idFlag(help: string) {
  return flag.parsed(help, (text) => {
    const parsed = NumericId.safeParse(text);
    if (!parsed.success)
      throw new FlagRuleError(`'${text}' ${parsed.error.issues[0]?.message ?? "is not an id"}`);
    return parsed.data;
  });
}

/** The names of the stack's environments, or undefined when the platform does not say. */
async function environmentsOf(client: StackwrightClient, stack: string): Promise<string[] | undefined> {
  try {
    const found = await client.stacks.get(stack);
    return found.relationships?.environments?.data?.map((e) => e.id);
  } catch {
    return undefined;
  }
}

/**
 * `read()`, a call about `stack`'s `environment`. When the platform answers 404 and the stack
 * has no environment of that name, the mistake is the user's (exit 2), said in one line that
 * names the environments it has; any other failure is the call's own.
 */
export async function inEnvironment<T>(
  client: StackwrightClient,
  command: string,
  stack: string,
  environment: string,
  read: () => Promise<T>,
): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (!NotFoundError.isInstance(error)) throw error;
    const known = await environmentsOf(client, stack);
    if (known === undefined || known.includes(environment)) throw error;
    throw new CliError(
      "usage",
      `stackwright ${command}: ${stack} has no environment '${environment}'; its environments are: ${known.join(", ") || "none"}`,
      { cause: error },
    );
  }
}
