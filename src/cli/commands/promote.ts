/**
 * `stackwright promote API_STACK... --from ENV --to ENV`: pins `--to`'s deployment to exactly
 * what `--from` runs now (its live build's full sha), in each selected stack file, as a change
 * to review: `ref_type: sha`, that sha, and a title that says what it is (`Promote 8f3c2a1 from
 * uat`). The platform is only read (the environment and its deployments); it changes when `up`
 * runs on the merged change. A live build is Stackwright's when it carries the marker or when the
 * target's state records it (an `up` adopted it); only then is it promoted without --allow-drift.
 * Refusals, one line each, stop the whole command before any file is written (release/pin-change.ts).
 * When --from declares `verify:`, its build must have passed its checks (as the target's state
 * records them), and when --to's `promotion.min_soak` is set, it must have run on --from that
 * long (promotion-gate.ts). `--ready` promotes, instead, every environment whose file names its
 * source (`promotion.from`) and whose source's build passes every gate, and skips the others,
 * one line each with the reason.
 */
import * as path from "node:path";
import {
  currentBuildOf,
  isStackwrightsDeployment,
  liveBuildOf,
  shortSha,
  stackwrightMarkerOf,
  type Deployment,
  type LiveBuildProblemKind,
  type StatedDeployment,
} from "../../api";
import type { StackConfig } from "../../config";
import { ApiError, missingValue, needAttributes, type StackwrightClient } from "../../client";
import { inEnvironment, nameArgument, nameFlag } from "../gates/api-command";
import { flag, type FlagSet, type FlagValues } from "../kit/args";
import type { CommandContext, Env } from "../kit/context";
import { defineCommand } from "../kit/command";
import { EXIT_CODES, UsageError } from "../kit/exit-codes";
import { changesSince } from "../../project/changes";
import { inShard, selectByNames, selectChanged, type Selected, type Shard } from "../../project/selection";
import {
  PROBLEM_FLAGS,
  applyPins,
  describeDeployment,
  pinFlags,
  planPin,
  problemLabel,
  stackConfigs,
  type PlannedPin,
} from "../release/pin-change";
import type { RecordedDeployments } from "../release/recorded-deployments";
import { checkedClient } from "../../project/preflight";
import {
  GATE_ADVICE,
  GATE_FLAGS,
  GATE_LABELS,
  declaresVerify,
  deployedAt,
  minSoakOf,
  promotionGate,
  type GateKind,
} from "../release/promotion-gate";
import { apiSettingsOf } from "../../project/target-settings";
import { API_SETTINGS_HELP, selectionFlags } from "../kit/flag-sets";

const COMMAND = "promote";

const PROMOTE_FLAGS = {
  from: nameFlag("ENV: the environment whose live build is promoted (e.g. uat)"),
  to: nameFlag(
    "ENV: the environment whose deployment is pinned (e.g. prod); with --ready, only that environment",
  ),
  ready: flag.switch(
    "promote every environment that declares promotion.from and whose source's build passes every check; skip the others with their reason",
  ),
  all: flag.switch("every API stack of stacks-config/"),
  ...selectionFlags,
  ...pinFlags,
  "allow-drift": flag.switch(
    "promote although --from runs something Stackwright did not deploy, or its history does not say",
  ),
  "allow-failed": flag.switch("promote although --from's newest deployment failed"),
  "allow-deploying": flag.switch("promote although --from is deploying"),
  "allow-pending": flag.switch("promote although a deployment of --from waits for approval or a start"),
  "allow-unverified": flag.switch(
    "promote although --from declares verify: and its build failed its checks or was not checked",
  ),
  "allow-early": flag.switch(
    "promote although the build has run on --from for less than --to's promotion.min_soak",
  ),
} satisfies FlagSet;

export const promoteCommand = defineCommand({
  name: COMMAND,
  args: ["API_STACK..."],
  summary:
    "Pins --to's deployment in stacks-config/<API_STACK>.yaml to the sha --from runs now (ref_type: sha, the full " +
    "sha, title 'Promote <short sha> from <from>'), keeping every other byte of the file. Refuses when --from is " +
    "drifted, failed, deploying or awaiting approval, when --from declares verify: and its build did not pass its " +
    "checks, when the build has run on --from for less than --to's promotion.min_soak, or --to is locked or in a " +
    "closed change window (each with a flag to override it, recorded in the title), and when the file would not " +
    "validate. --ready (with --all or names, without --from) promotes every environment whose file names its " +
    "source (promotion: { from }) and whose source's build passes every check, and skips the others, one line " +
    "each with the reason (exit 0; 1 when a source could not be read, the others still promoted); with --branch NAME each promotion is committed on a " +
    "branch of its own, NAME/<API stack>-<env>-<short sha>. --from's live build is " +
    "Stackwright's when its deployment carries Stackwright's marker or when --target's state records it (an up " +
    "adopted it, as the first up after import does); any other is drifted. Without --branch the " +
    "working tree changes and the diff is printed; nothing touches the platform until `up`. " +
    API_SETTINGS_HELP,
  flags: PROMOTE_FLAGS,
  async run({ flags, positional }, context) {
    if (flags.ready) return promoteReady(flags, positional, context);
    const { io, env, clock } = context;
    const from = requiredUnlessReady("from", flags.from);
    const to = requiredUnlessReady("to", flags.to);
    if (from === to) throw new UsageError(`stackwright ${COMMAND}: --from and --to are both '${from}'`);
    const target = flags.target;
    const projectDir = flags.project;
    const { files, configs } = await stackConfigs(projectDir);
    const selected = select(positional, files, projectDir, flags);
    if (selected.length === 0) {
      io.say(`stackwright ${COMMAND}: no API stack selected: nothing to do`);
      return EXIT_CODES.ok;
    }
    const { client } = await checkedClient({
      command: COMMAND,
      stacks: selected.map((s) => ({ name: s.apiStack, file: s.file ?? "" })),
      config: await apiSettingsOf(flags, env),
      env,
    });
    let planned: PlannedPin[];
    try {
      planned = [];
      const now = clock();
      // One stack after another: a few reads each, and the order of the output is the order asked.
      for (const s of selected) {
        const source = { projectDir, target, config: configs.get(s.apiStack), env };
        planned.push(await planPromotion(client, s, source, { from, to, now }, flags));
      }
    } finally {
      await client.close();
    }
    const subject =
      planned.length === 1
        ? `Promote ${planned[0]?.apiStack ?? ""}/${to} to ${shortSha(planned[0]?.sha ?? "")} from ${from}`
        : `Promote ${to} of ${planned.length} stacks to what ${from} runs`;
    await applyPins(COMMAND, planned, { branch: flags.branch, projectDir, subject, io });
    return EXIT_CODES.ok;
  },
});

type PromoteFlags = FlagValues<typeof PROMOTE_FLAGS>;

/** --from and --to name the move unless --ready reads it from each file's `promotion.from`. */
function requiredUnlessReady(name: "from" | "to", value: string | undefined): string {
  if (value === undefined)
    throw new UsageError(`stackwright ${COMMAND}: --${name} is required unless --ready is given`);
  return value;
}

/**
 * `promote --ready`: every environment of the selected files that names its source
 * (`promotion.from`, and --to when given) is planned as `promote --from SOURCE --to ENV` would;
 * those with any refusal are skipped (one line each, with the reason) and the others pinned,
 * each on a branch of its own with --branch, so that each becomes one pull request.
 */
async function promoteReady(
  flags: PromoteFlags,
  positional: readonly string[],
  { io, env, clock }: CommandContext,
): Promise<number> {
  if (flags.from !== undefined) {
    throw new UsageError(
      `stackwright ${COMMAND}: --ready takes each environment's source from its promotion.from; leave out --from`,
    );
  }
  const only = flags.to;
  const target = flags.target;
  const projectDir = flags.project;
  const { files, configs } = await stackConfigs(projectDir);
  const selected = select(positional, files, projectDir, flags);
  const pairs = selected.flatMap((s) =>
    Object.entries(configs.get(s.apiStack)?.environments ?? {}).flatMap(([to, env]) =>
      env.promotion === undefined || (only !== undefined && to !== only)
        ? []
        : [{ s, from: env.promotion.from, to }],
    ),
  );
  if (pairs.length === 0) {
    io.say(`stackwright ${COMMAND}: no selected environment declares promotion.from: nothing to do`);
    return EXIT_CODES.ok;
  }
  const { client } = await checkedClient({
    command: COMMAND,
    stacks: [
      ...new Map(pairs.map((p) => [p.s.apiStack, { name: p.s.apiStack, file: p.s.file ?? "" }])).values(),
    ],
    config: await apiSettingsOf(flags, env),
    env,
  });
  const ready: PlannedPin[] = [];
  // A promotion whose reads failed is skipped too, and the others still go; the exit code says so.
  let unread = 0;
  const now = clock();
  try {
    for (const { s, from, to } of pairs) {
      const source = { projectDir, target, config: configs.get(s.apiStack), env };
      let plan: PlannedPin;
      try {
        plan = await planPromotion(client, s, source, { from, to, now }, flags);
      } catch (error) {
        if (!ApiError.isInstance(error)) throw error;
        unread += 1;
        io.warn(`stackwright ${COMMAND}: skip ${s.apiStack}/${to}: ${error.message}`);
        continue;
      }
      if (plan.refusals.length > 0) io.say(`skip ${s.apiStack}/${to}: ${plan.refusals.join("; ")}`);
      else ready.push(plan);
    }
  } finally {
    await client.close();
  }
  const done = unread === 0 ? EXIT_CODES.ok : EXIT_CODES.failed;
  if (ready.length === 0) {
    io.say(`stackwright ${COMMAND}: no promotion is ready`);
    return done;
  }
  const subjectOf = (p: PlannedPin) => `Promote ${p.apiStack}/${p.environment} to ${shortSha(p.sha)} (ready)`;
  if (flags.branch === undefined) {
    const subject =
      ready.length === 1 && ready[0] !== undefined
        ? subjectOf(ready[0])
        : `Promote ${ready.length} ready environments`;
    await applyPins(COMMAND, ready, { branch: undefined, projectDir, subject, io });
    return done;
  }
  for (const p of ready) {
    const branch = `${flags.branch}/${p.apiStack}-${p.environment}-${shortSha(p.sha)}`;
    await applyPins(COMMAND, [p], { branch, projectDir, subject: subjectOf(p), io });
  }
  return done;
}

/** The API stacks asked for: by name, --all, or --changed-since; then --shard. */
function select(
  names: readonly string[],
  files: ReadonlyMap<string, string>,
  projectDir: string,
  flags: {
    readonly all: boolean;
    readonly "changed-since": string | undefined;
    readonly shard: Shard | undefined;
  },
): Selected[] {
  const all: Selected[] = [...files].map(([apiStack, file]) => ({ apiStack, file }));
  const ways = [names.length > 0, flags.all, flags["changed-since"] !== undefined].filter(Boolean);
  if (ways.length !== 1) {
    throw new UsageError(
      `stackwright ${COMMAND}: name the API stacks, or pass --all or --changed-since GIT_REF (exactly one of them)`,
    );
  }
  for (const name of names) nameArgument(COMMAND, "API_STACK", name);
  let selected: Selected[];
  if (names.length > 0) selected = selectByNames(all, names);
  else if (flags.all) selected = all;
  else {
    const byFile = new Map([...files].map(([stack, file]) => [path.relative(projectDir, file), stack]));
    const changes = changesSince(projectDir, flags["changed-since"] ?? "", "", (rel) => byFile.get(rel));
    selected = selectChanged(all, { ...changes, shared: [] }).selected;
  }
  return flags.shard === undefined ? selected : inShard(selected, flags.shard);
}

type ProblemFlags = {
  [K in (typeof PROBLEM_FLAGS)[LiveBuildProblemKind] | (typeof GATE_FLAGS)[GateKind]]?: boolean | undefined;
};

/** Where the stack's file and state are, to tell a deployment an `up` adopted from one made by hand. */
interface PromotionSource {
  readonly projectDir: string;
  readonly target: string;
  readonly config: StackConfig | undefined;
  /** The environment the command was given (the state backend's variables). */
  readonly env: Env;
}

async function planPromotion(
  client: StackwrightClient,
  selected: Selected,
  source: PromotionSource,
  move: { readonly from: string; readonly to: string; readonly now: Date },
  flags: ProblemFlags & { "allow-locked"?: boolean | undefined; "override-window"?: string | undefined },
): Promise<PlannedPin> {
  const { apiStack } = selected;
  const { from, to } = move;
  const [environment, deployments] = await inEnvironment(
    client,
    COMMAND,
    apiStack,
    from,
    async () =>
      [await client.environments.get(apiStack, from), await client.deployments.list(apiStack, from)] as const,
  );
  const where = `${apiStack}/${from}`;
  const why = `cannot tell which build ${where} runs, so there is nothing to promote`;
  const stated = deployments.map((d) => needAttributes(d, ["state"], why));
  const verified = declaresVerify(source.config, from);
  const recorded = await recordedUnlessMarked(currentBuildOf(stated), source, apiStack, from, verified);
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
  const minSoakSeconds = minSoakOf(source.config, to);
  // The platform's list items carry no times; the deployment's own document does.
  const timed =
    minSoakSeconds === undefined || live.deployment === undefined || deployedAt(live.deployment) !== undefined
      ? live.deployment
      : withTimes(live.deployment, await client.deployments.get(apiStack, from, live.deployment.id));
  const gate = promotionGate({
    apiStack,
    from,
    to,
    declaresVerify: verified,
    minSoakSeconds,
    sha: live.sha,
    deployment: timed,
    verifications: recorded?.verifications ?? [],
    stateStack: recorded?.stack ?? `${source.target}.${apiStack}`,
    unreadable: recorded?.unreadable,
    now: move.now,
  });
  for (const problem of gate) {
    const flag = GATE_FLAGS[problem.kind];
    if (flags[flag] === true) overrides.push(GATE_LABELS[problem.kind]);
    else refusals.push(`${problem.text}; ${GATE_ADVICE[problem.kind]}, or pass --${flag}`);
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
    now: move.now,
  });
}

/** A listed deployment with the times of its own document (list items of the platform have none). */
function withTimes(listed: StatedDeployment, own: Deployment): StatedDeployment {
  const a = own.attributes;
  return {
    ...listed,
    attributes: {
      ...listed.attributes,
      date_created_unix: a.date_created_unix,
      date_started_unix: a.date_started_unix,
      date_updated_unix: a.date_updated_unix,
    },
  };
}

/**
 * What the target's state records for the environment, read (and its reader loaded) only when
 * the platform's record cannot tell (a live build without Stackwright's marker) or when the
 * environment's checks decide (it declares `verify:`: the verifications are in the state).
 */
async function recordedUnlessMarked(
  current: StatedDeployment | undefined,
  source: PromotionSource,
  apiStack: string,
  environment: string,
  verified: boolean,
): Promise<RecordedDeployments | undefined> {
  if (!verified && (current === undefined || stackwrightMarkerOf(current) !== undefined)) return undefined;
  const { readRecordedDeployments } = await import("../release/recorded-deployments.js");
  return readRecordedDeployments(source.projectDir, source.target, apiStack, environment, source.env);
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
