/**
 * `stackwright promote API_STACK... --from ENV --to ENV`: pins `--to`'s deployment to exactly
 * what `--from` runs now (its live build's full sha), in each selected stack file, as a change
 * to review: `ref_type: sha`, that sha, and a title that says what it is (`Promote 8f3c2a1 from
 * uat`). The platform is only read (the environment and its deployments); it changes when `up`
 * runs on the merged change. A live build is Stackwright's when it carries the marker or when the
 * target's state records it (an `up` adopted it); only then is it promoted without --allow-drift.
 * Refusals, one line each, stop the whole command before any file is written (release/pin-change.ts).
 */
import * as path from "node:path";
import {
  currentBuildOf,
  isStackwrightsDeployment,
  liveBuildOf,
  shortSha,
  stackwrightMarkerOf,
  type LiveBuildProblemKind,
  type StatedDeployment,
} from "../../api";
import type { StackConfig } from "../../config";
import { missingValue, needAttributes, type StackwrightClient } from "../../client";
import { nameArgument } from "../gates/api-command";
import { defineCommand } from "../kit/command";
import { EXIT_CODES, UsageError } from "../kit/exit-codes";
import { changesSince } from "../fleet/changes";
import { inShard, parseShard, selectByNames, selectChanged, type Selected } from "../fleet/selection";
import {
  PROBLEM_FLAGS,
  applyPins,
  describeDeployment,
  pinFlags,
  planPin,
  problemLabel,
  requireFlag,
  stackConfigs,
  type PlannedPin,
} from "../release/pin-change";
import type { RecordedDeployments } from "../release/recorded-deployments";
import { checkedClient } from "../gates/preflight";
import { say } from "../kit/output";
import { API_SETTINGS_HELP, apiSettingsOf, projectDirOf, targetNameOf } from "../settings/target-settings";

const COMMAND = "promote";

export const promoteCommand = defineCommand({
  name: COMMAND,
  args: ["API_STACK..."],
  summary:
    "Pins --to's deployment in stacks-config/<API_STACK>.yaml to the sha --from runs now (ref_type: sha, the full " +
    "sha, title 'Promote <short sha> from <from>'), keeping every other byte of the file. Refuses when --from is " +
    "drifted, failed, deploying or awaiting approval, or --to is locked or in a closed change window (each with a " +
    "flag to override it, recorded in the title), and when the file would not validate. --from's live build is " +
    "Stackwright's when its deployment carries Stackwright's marker or when --target's state records it (an up " +
    "adopted it, as the first up after import does); any other is drifted. Without --branch the " +
    "working tree changes and the diff is printed; nothing touches the platform until `up`. " +
    API_SETTINGS_HELP,
  flags: {
    from: { type: "string", help: "ENV: the environment whose live build is promoted (e.g. uat)" },
    to: { type: "string", help: "ENV: the environment whose deployment is pinned (e.g. prod)" },
    all: { type: "boolean", help: "every API stack of stacks-config/" },
    "changed-since": {
      type: "string",
      help: "GIT_REF: the API stacks whose file differs from this git ref",
    },
    shard: { type: "string", help: "I/N: this runner's share of the selected stacks (stable per API stack)" },
    ...pinFlags,
    "allow-drift": {
      type: "boolean",
      help: "promote although --from runs something Stackwright did not deploy, or its history does not say",
    },
    "allow-failed": { type: "boolean", help: "promote although --from's newest deployment failed" },
    "allow-deploying": { type: "boolean", help: "promote although --from is deploying" },
    "allow-pending": {
      type: "boolean",
      help: "promote although a deployment of --from waits for approval or a start",
    },
  },
  async run({ flags, positional }) {
    const from = nameArgument(COMMAND, "--from", requireFlag(COMMAND, "from", flags.from));
    const to = nameArgument(COMMAND, "--to", requireFlag(COMMAND, "to", flags.to));
    if (from === to) throw new UsageError(`stackwright ${COMMAND}: --from and --to are both '${from}'`);
    const target = targetNameOf(flags.target);
    const projectDir = projectDirOf(flags.project);
    const { files, configs } = await stackConfigs(projectDir);
    const selected = select(positional, files, projectDir, flags);
    if (selected.length === 0) {
      say(`stackwright ${COMMAND}: no API stack selected: nothing to do`);
      return EXIT_CODES.ok;
    }
    const { client } = await checkedClient({
      command: COMMAND,
      stacks: selected.map((s) => ({ name: s.apiStack, file: s.file ?? "" })),
      config: await apiSettingsOf(flags),
      env: process.env,
    });
    let planned: PlannedPin[];
    try {
      planned = [];
      // One stack after another: a few reads each, and the order of the output is the order asked.
      for (const s of selected) {
        const source = { projectDir, target, config: configs.get(s.apiStack) };
        planned.push(await planPromotion(client, s, source, from, to, flags));
      }
    } finally {
      await client.close();
    }
    const subject =
      planned.length === 1
        ? `Promote ${planned[0]?.apiStack ?? ""}/${to} to ${shortSha(planned[0]?.sha ?? "")} from ${from}`
        : `Promote ${to} of ${planned.length} stacks to what ${from} runs`;
    await applyPins(COMMAND, planned, { branch: flags.branch, projectDir, subject });
    return EXIT_CODES.ok;
  },
});

/** The API stacks asked for: by name, --all, or --changed-since; then --shard. */
function select(
  names: readonly string[],
  files: ReadonlyMap<string, string>,
  projectDir: string,
  flags: { all?: boolean; "changed-since"?: string; shard?: string },
): Selected[] {
  const all: Selected[] = [...files].map(([apiStack, file]) => ({ apiStack, file }));
  const ways = [names.length > 0, flags.all === true, flags["changed-since"] !== undefined].filter(Boolean);
  if (ways.length !== 1) {
    throw new UsageError(
      `stackwright ${COMMAND}: name the API stacks, or pass --all or --changed-since GIT_REF (exactly one of them)`,
    );
  }
  for (const name of names) nameArgument(COMMAND, "API_STACK", name);
  let selected: Selected[];
  if (names.length > 0) selected = selectByNames(all, names);
  else if (flags.all === true) selected = all;
  else {
    const byFile = new Map([...files].map(([stack, file]) => [path.relative(projectDir, file), stack]));
    const changes = changesSince(projectDir, flags["changed-since"] ?? "", "", (rel) => byFile.get(rel));
    selected = selectChanged(all, { ...changes, shared: [] }).selected;
  }
  return flags.shard === undefined ? selected : inShard(selected, parseShard(flags.shard));
}

type ProblemFlags = { [K in (typeof PROBLEM_FLAGS)[LiveBuildProblemKind]]?: boolean | undefined };

/** Where the stack's file and state are, to tell a deployment an `up` adopted from one made by hand. */
interface PromotionSource {
  readonly projectDir: string;
  readonly target: string;
  readonly config: StackConfig | undefined;
}

async function planPromotion(
  client: StackwrightClient,
  selected: Selected,
  source: PromotionSource,
  from: string,
  to: string,
  flags: ProblemFlags & { "allow-locked"?: boolean | undefined; "override-window"?: string | undefined },
): Promise<PlannedPin> {
  const { apiStack } = selected;
  const environment = await client.environments.get(apiStack, from);
  const deployments = await client.deployments.list(apiStack, from);
  const where = `${apiStack}/${from}`;
  const why = `cannot tell which build ${where} runs, so there is nothing to promote`;
  const stated = deployments.map((d) => needAttributes(d, ["state"], why));
  const recorded = await recordedUnlessMarked(currentBuildOf(stated), source, apiStack, from);
  const live = liveBuildOf(where, environment.attributes.build_sha ?? "", stated, recorded?.deployments);
  // Neither the environment nor a completed deployment with a sha says what runs.
  if (live.sha === "")
    throw missingValue(environment, "attributes.build_sha", environment.attributes.build_sha, why);
  const refusals: string[] = [];
  const overrides: string[] = [];
  for (const problem of live.problems) {
    const flag = PROBLEM_FLAGS[problem.kind];
    if (flags[flag] === true) overrides.push(problemLabel(problem.kind));
    else {
      const why = problem.kind === "drifted" ? notAdoptedYet(live.deployment, recorded, source, from) : "";
      refusals.push(`${problem.text}${why}; promote what was tested once it is settled, or pass --${flag}`);
    }
  }
  const short = shortSha(live.sha);
  return planPin({
    apiStack,
    environment: to,
    file: selected.file ?? "",
    flags,
    sha: live.sha,
    shaFrom:
      live.deployment === undefined ? `${where}'s live build` : `${where}'s deployment ${live.deployment.id}`,
    title: `Promote ${short} from ${from}`,
    overrides,
    refusals,
    summary: `${apiStack}/${to}: pinned to ${live.sha}, the live build of ${from}: ${describeDeployment(live.deployment, live.sha)}`,
  });
}

/**
 * What the target's state records for the environment, read (and its reader loaded) only when
 * the platform's record cannot tell: a live build without Stackwright's marker.
 */
async function recordedUnlessMarked(
  current: StatedDeployment | undefined,
  source: PromotionSource,
  apiStack: string,
  environment: string,
): Promise<RecordedDeployments | undefined> {
  if (current === undefined || stackwrightMarkerOf(current) !== undefined) return undefined;
  const { readRecordedDeployments } = await import("../release/recorded-deployments.js");
  return readRecordedDeployments(source.projectDir, source.target, apiStack, environment);
}

/**
 * Why a live build that is not Stackwright's may be one all the same, for its refusal: the file
 * adopts it but no `up` of the target has recorded it yet, or the state could not be read ("" when
 * neither: a deployment made by hand).
 */
export function notAdoptedYet(
  live: StatedDeployment | undefined,
  recorded: RecordedDeployments | undefined,
  source: { readonly target: string; readonly config: StackConfig | undefined },
  from: string,
): string {
  if (live === undefined || recorded === undefined || isStackwrightsDeployment(live, recorded.deployments))
    return "";
  if (recorded.unreadable !== undefined) return ` (${recorded.unreadable})`;
  const environments = source.config?.environments ?? {};
  const adopt = Object.hasOwn(environments, from) ? environments[from]?.deployment?.adopt : undefined;
  return adopt !== undefined && String(adopt) === live.id
    ? ` (its file adopts deployment ${live.id}, but no up of target ${source.target} has recorded it in ${recorded.stack} yet: ` +
        "run up first, or pass the --target whose up adopted it)"
    : "";
}
