/**
 * `stackwright logs API_STACK ENVIRONMENT [--deployment ID] [--follow]`: prints a deployment's
 * log (the newest deployment of the environment unless --deployment names one). With --follow it
 * keeps printing new lines until the deployment finishes, then exits 0 when it completed and 1
 * when it did not. Log lines go to stdout; what the command says about them goes to stderr.
 */
import { terminalLines, terminalText } from "../../safe-text";
import { isDeploymentFinished, type Deployment } from "../../api";
import {
  deploymentPhase,
  needAttributes,
  NotFoundError,
  waitUntil,
  type StackwrightClient,
} from "../../client";
import { apiClient, idFlag, inEnvironment, nameArgument } from "../gates/api-command";
import { flag } from "../kit/args";
import { defineCommand } from "../kit/command";
import { CliError, EXIT_CODES } from "../kit/exit-codes";
import { commandLine } from "../../project/invocation";
import { apiSettingsOf } from "../../project/target-settings";
import { API_SETTINGS_HELP, targetFlags } from "../kit/flag-sets";

const COMMAND = "logs";

export const logsCommand = defineCommand({
  name: COMMAND,
  args: ["API_STACK", "ENVIRONMENT"],
  summary:
    "Prints the log of the environment's newest deployment (or of --deployment ID). With --follow, prints new " +
    "lines as they come until the deployment finishes, then exits 0 if it completed, 1 if not. " +
    API_SETTINGS_HELP,
  flags: {
    deployment: idFlag("the deployment id (default: the newest of the environment)"),
    follow: flag.switch("keep printing new lines until the deployment finishes"),
    timeout: flag.duration("how long --follow waits at most, e.g. 30m or 2h (default 30m)"),
    ...targetFlags,
  },
  async run({ flags, positional }, { io, env }) {
    const stack = nameArgument(COMMAND, "API_STACK", positional[0]);
    const environment = nameArgument(COMMAND, "ENVIRONMENT", positional[1]);
    const client = await apiClient(COMMAND, stack, await apiSettingsOf(flags, env), env);
    try {
      const id =
        flags.deployment ??
        (await inEnvironment(client, COMMAND, stack, environment, () =>
          newestDeployment(client, stack, environment),
        ));
      const first = await inEnvironment(client, COMMAND, stack, environment, () =>
        client.deployments.log(stack, environment, id),
      ).catch((error: unknown) => {
        if (!NotFoundError.isInstance(error)) throw error;
        throw new CliError(
          "usage",
          `stackwright ${COMMAND}: ${stack}/${environment} has no deployment ${id} (${commandLine(`history ${stack} ${environment}`)} lists them)`,
          { cause: error },
        );
      });
      const printer = linePrinter(io.say);
      io.warn(terminalText(heading(first.deployment)));
      printer.print(first.lines);
      const following = `cannot tell whether deployment ${id} on ${stack}/${environment} has finished`;
      if (
        !flags.follow ||
        isDeploymentFinished(needAttributes(first.deployment, ["state"], following).attributes.state)
      ) {
        return EXIT_CODES.ok;
      }
      const timeoutMs = flags.timeout ?? client.settings.poll.timeoutMs;
      const last = await waitUntil(
        {
          subject: `deployment ${id} of ${stack}/${environment}`,
          poll: async (signal) => {
            const log = await client.deployments.log(stack, environment, id, { signal });
            printer.print(log.lines);
            return needAttributes(log.deployment, ["state"], following);
          },
          state: (d) => d.attributes.state,
          // Every finished state ends the follow; the exit code says how it ended.
          phase: (d) => (isDeploymentFinished(d.attributes.state) ? "succeeded" : "pending"),
        },
        { ...client.settings.poll, timeoutMs },
      );
      io.warn(`deployment ${id} ${last.attributes.state}`);
      return deploymentPhase(last.attributes.state) === "succeeded" ? EXIT_CODES.ok : EXIT_CODES.failed;
    } finally {
      await client.close();
    }
  },
});

/** The id of the environment's newest deployment. */
async function newestDeployment(
  client: StackwrightClient,
  stack: string,
  environment: string,
): Promise<string> {
  const deployments = await client.deployments.list(stack, environment);
  const newest = deployments.reduce<Deployment | undefined>(
    (best, d) => (best === undefined || Number(d.id) > Number(best.id) ? d : best),
    undefined,
  );
  if (newest === undefined) {
    throw new CliError("failed", `stackwright ${COMMAND}: ${stack}/${environment} has no deployments yet`);
  }
  return newest.id;
}

function heading(d: Deployment): string {
  const a = d.attributes;
  // The platform may leave any of these out (a package deployment has no sha until it is built).
  return [`deployment ${d.id} (${a.state ?? "state not given"})`, a.short_sha, a.title]
    .filter((part) => typeof part === "string" && part !== "")
    .join(" ");
}

/** Prints each line once: the log only grows, so the lines past those printed are new. */
export function linePrinter(write: (line: string) => void): { print(lines: readonly string[]): void } {
  let printed = 0;
  return {
    print(lines) {
      // Log lines are the platform's (and the build's): each is shown, never interpreted, by the terminal.
      for (const line of terminalLines(lines.slice(printed))) write(line);
      printed = Math.max(printed, lines.length);
    },
  };
}
