/**
 * `stackwright rollback API_STACK ENV [--to DEPLOYMENT_ID | --steps N] [--up]`: pins the
 * environment's deployment to the sha of an earlier completed deployment (by default the last
 * one before the current build that ran another sha), titled `Roll back to <short> (was
 * <short>)`, as a change to the file like `promote` makes. Without `--up` nothing touches the
 * platform; with it, `up` runs for that one stack at once (the on-call path) and the file change
 * is left to commit.
 */
import {
  currentBuildOf,
  isDeploymentInProgress,
  newestFirst,
  shaOf,
  shortSha,
  type Deployment,
  type StatedDeployment,
} from "../../api";
import { needAttributes } from "../../client";
import { idFlag, inEnvironment, nameArgument } from "../gates/api-command";
import { flag } from "../kit/args";
import { defineCommand } from "../kit/command";
import { CliError, EXIT_CODES, UsageError } from "../kit/exit-codes";
import {
  applyPins,
  describeDeployment,
  displayPath,
  pinFlags,
  planPin,
  stackFiles,
} from "../release/pin-change";
import { checkedClient } from "../../project/preflight";
import { commandLine } from "../../project/invocation";
import { DEFAULT_TARGET, apiSettingsOf } from "../../project/target-settings";
import { selectByNames } from "../../project/selection";
import { API_SETTINGS_HELP } from "../kit/flag-sets";

const COMMAND = "rollback";

export const rollbackCommand = defineCommand({
  name: COMMAND,
  args: ["API_STACK", "ENV"],
  summary:
    "Pins ENV's deployment in stacks-config/<API_STACK>.yaml to the sha of the last completed deployment before " +
    "the current build that ran another sha (--steps N: the Nth such; --to ID: that deployment, which must have " +
    "completed), titled 'Roll back to <short sha> (was <short sha>)'. Same editing rules and refusals as " +
    "promote. Without --up nothing touches the platform; --up runs `up` for this one stack at once and leaves " +
    "the file change to commit. " +
    API_SETTINGS_HELP,
  flags: {
    to: idFlag("DEPLOYMENT_ID: the completed deployment whose sha to go back to"),
    steps: flag.int("N: go back N distinct earlier builds (default 1: the one before the current build)", {
      min: 1,
      max: 1000,
    }),
    ...pinFlags,
    "allow-deploying": flag.switch("roll back although a deployment of ENV is running"),
    up: flag.switch("run `up` for this stack at once after changing the file (on call)"),
  },
  async run({ flags, positional }, context) {
    const { io, env, clock } = context;
    const apiStack = nameArgument(COMMAND, "API_STACK", positional[0]);
    const environment = nameArgument(COMMAND, "ENV", positional[1]);
    if (flags.to !== undefined && flags.steps !== undefined) {
      throw new UsageError(`stackwright ${COMMAND}: give --to or --steps, not both`);
    }
    if (flags.up && flags.branch !== undefined) {
      throw new UsageError(
        `stackwright ${COMMAND}: --up deploys the working tree's file, --branch leaves it unchanged; use one`,
      );
    }
    const chosen = flags.to;
    const steps = flags.steps ?? 1;
    const projectDir = flags.project;
    const files = await stackFiles(projectDir);
    const [selected] = selectByNames(
      [...files].map(([name, file]) => ({ apiStack: name, file })),
      [apiStack],
    );
    const file = selected?.file ?? "";

    const { client } = await checkedClient({
      command: COMMAND,
      stacks: [{ name: apiStack, file: displayPath(file) }],
      config: await apiSettingsOf(flags, env),
      env,
    });
    let deployments: Deployment[];
    try {
      deployments = await inEnvironment(client, COMMAND, apiStack, environment, () =>
        client.deployments.list(apiStack, environment),
      );
    } finally {
      await client.close();
    }
    const where = `${apiStack}/${environment}`;
    const stated = deployments.map((d) =>
      needAttributes(d, ["state"], `cannot tell which build ${where} runs or which one to roll back to`),
    );
    const current = currentBuildOf(stated);
    if (current === undefined) {
      throw new CliError(
        "failed",
        `stackwright ${COMMAND}: ${where} has no completed deployment to roll back from`,
      );
    }
    // Where to look when the build asked for is not there: the same environment's history, read
    // with the same target's settings.
    const targetName = flags.target;
    const historyHint = commandLine(
      `history ${apiStack} ${environment}${targetName === DEFAULT_TARGET ? "" : ` --target ${targetName}`}`,
    );
    const target =
      chosen === undefined
        ? earlierBuild(stated, current, steps, where, historyHint)
        : named(stated, chosen, where, historyHint);
    const refusals: string[] = [];
    const overrides: string[] = [];
    const running = stated.find((d) => isDeploymentInProgress(d.attributes.state));
    if (running !== undefined) {
      if (flags["allow-deploying"]) overrides.push("deploying");
      else {
        refusals.push(
          `${where} is deploying (deployment ${running.id} is ${running.attributes.state}); wait for it, or pass --allow-deploying`,
        );
      }
    }
    const sha = shaOf(target);
    const was = shaOf(current);
    const planned = await planPin({
      apiStack,
      environment,
      file,
      flags,
      sha,
      shaFrom: `${where}'s deployment ${target.id}`,
      title: `Roll back to ${shortSha(sha)} (was ${shortSha(was)})`,
      overrides,
      refusals,
      summary: `${where}: pinned to ${sha}, ${describeDeployment(target, sha)}, instead of the current build ${describeDeployment(current, was)}`,
      now: clock(),
    });
    await applyPins(COMMAND, [planned], {
      branch: flags.branch,
      projectDir,
      subject: `Roll back ${where} to ${shortSha(sha)} (was ${shortSha(was)})`,
      io,
    });
    if (!flags.up) return EXIT_CODES.ok;

    io.say(`stackwright ${COMMAND}: running up for ${apiStack} now (--up)`);
    const { upCommand } = await import("./engine.js");
    const code = await upCommand(
      [
        `--target=${targetName}`,
        `--project=${projectDir}`,
        ...(flags["override-window"] === undefined ? [] : [`--override-window=${flags["override-window"]}`]),
        "--",
        apiStack,
      ],
      context,
    );
    io.say(
      code === EXIT_CODES.ok
        ? `${where} runs ${shortSha(sha)} now. The change to ${displayPath(file)} is not committed: commit it, or the next up from the repository puts back what it says.`
        : `up for ${apiStack} did not succeed (exit ${code}); ${displayPath(file)} is changed and not committed.`,
    );
    return code;
  },
});

/**
 * The Nth distinct build before the current one: completed deployments older than the current
 * build, newest first, skipping those that ran the current sha and repeats of a sha.
 */
function earlierBuild(
  deployments: readonly StatedDeployment[],
  current: StatedDeployment,
  steps: number,
  where: string,
  historyHint: string,
): StatedDeployment {
  const currentIndex = newestFirst(deployments).findIndex((d) => d.id === current.id);
  const seen = new Set<string>([shaOf(current)]);
  const earlier: StatedDeployment[] = [];
  for (const d of newestFirst(deployments).slice(currentIndex + 1)) {
    if (d.attributes.state !== "Completed" || shaOf(d) === "" || seen.has(shaOf(d))) continue;
    seen.add(shaOf(d));
    earlier.push(d);
  }
  const found = earlier[steps - 1];
  if (found === undefined) {
    throw new CliError(
      "failed",
      `stackwright ${COMMAND}: ${where} has ${earlier.length} earlier completed build(s) with another sha than its current build, not ${steps}; see ${historyHint}`,
    );
  }
  return found;
}

/** The deployment `--to` names, which must be one of the environment's and must have completed. */
function named(
  deployments: readonly StatedDeployment[],
  id: string,
  where: string,
  historyHint: string,
): StatedDeployment {
  const found = deployments.find((d) => d.id === id);
  if (found === undefined) {
    throw new CliError(
      "usage",
      `stackwright ${COMMAND}: deployment ${id} is not a deployment of ${where} (see ${historyHint})`,
    );
  }
  if (found.attributes.state !== "Completed" || shaOf(found) === "") {
    throw new CliError(
      "failed",
      `stackwright ${COMMAND}: deployment ${id} of ${where} is ${found.attributes.state}, not Completed; roll back only to a build that completed`,
    );
  }
  return found;
}
