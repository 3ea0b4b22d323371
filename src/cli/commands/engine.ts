/**
 * `stackwright preview|up|refresh|destroy [API_STACK ...]`: each API stack file runs in its own
 * Pulumi stack `<target>.<API stack>` (fleet/open-target.ts), selected by name, `--changed-since` and
 * `--shard` (fleet/plan.ts), K at once (fleet/fan-out.ts), each to its end. The run closes with
 * a table per stack and exits non-zero when any failed; `--summary FILE` writes one Markdown
 * summary for all. Failures are reported by the command kit (exit-codes.ts).
 */
import type { FlagSpec, ParsedFlags } from "../kit/args";
import { defineCommand } from "../kit/command";
import { CliError, combinedExitCode, EXIT_CODES, UsageError } from "../kit/exit-codes";
import { closingTable, fanOut, fleetSummary, parseConcurrency } from "../fleet/fan-out";
import { DEFAULT_API_CONCURRENCY, useApiConcurrency } from "../kit/api-budget";
import { legacyProblem } from "../fleet/migrate";
import { planRun, type Plan } from "../fleet/plan";
import type { Operation, StackJob, StackOutcome } from "../fleet/run-stack";
import { makeReadsDir, openShortcut } from "../fleet/shortcut";
import { openOwnStack, openTarget, readTargetSettings, type Target } from "../fleet/open-target";
import { writeSummary } from "../report/summary-file";
import { say, warn } from "../kit/output";
import { parsePerFileStackName, WINDOW_OVERRIDE_VARIABLE } from "../../config";
import { preflightFleet } from "../gates/preflight";
import { notifyOutcomes, prepareNotify } from "../notifications/notify";
import { handleInterrupts } from "../engine/interrupt";
import { lockFlags, lockPolicyOf } from "../kit/lock-flags";
import { openWindowGate, overrideNotice, overrideReason, windowSummary } from "../gates/windows";
import { projectDirOf, targetFlags, targetNameOf } from "../settings/target-settings";

const selectionFlags = {
  ...targetFlags,
  "changed-since": {
    type: "string",
    help: "only the API stacks whose file differs from this git ref (all when a shared file changed)",
  },
  shard: { type: "string", help: "I/N: this runner's share of the selected stacks (stable per API stack)" },
  concurrency: { type: "string", help: "stacks run at once (default: two per core)" },
  "api-concurrency": {
    type: "string",
    help: `requests in flight to the API at once, in this process and in the shared provider host each (default: ${DEFAULT_API_CONCURRENCY})`,
  },
  summary: {
    type: "string",
    help: "write one Markdown summary of all selected stacks to this file (cut to fit a GitHub comment)",
  },
  "summary-full": {
    type: "string",
    help: "write the summary uncut to this file too (a CI artifact or the job summary)",
  },
  parallel: { type: "string", help: "resource operations at once within a stack (default: the engine's)" },
  stack: {
    type: "string",
    help: "run exactly this Pulumi stack, with its own Pulumi.<stack>.yaml (no selection, no fan-out)",
  },
} satisfies FlagSpec;

const deletedFlag = {
  "destroy-deleted": {
    type: "boolean",
    help: "destroy the resources of stacks whose file was deleted (--changed-since); without it they are kept and listed",
  },
} satisfies FlagSpec;

const refreshFlag = {
  refresh: { type: "boolean", help: "read the live state of every resource first" },
} satisfies FlagSpec;

const windowFlag = {
  "override-window": {
    type: "string",
    help: "REASON: make changes where change windows are closed (on call); recorded in the deployment's summary",
  },
} satisfies FlagSpec;

const fullFlag = {
  full: {
    type: "boolean",
    help: "run the engine for every stack, also those confirmed unchanged since their last no-change run",
  },
} satisfies FlagSpec;

const specs = {
  preview: { ...selectionFlags, ...refreshFlag, ...deletedFlag, ...windowFlag },
  up: { ...selectionFlags, ...refreshFlag, ...deletedFlag, ...lockFlags, ...windowFlag, ...fullFlag },
  refresh: { ...selectionFlags, ...lockFlags },
  destroy: { ...selectionFlags, ...lockFlags, ...windowFlag },
} as const;

type AnyFlags = ParsedFlags<typeof selectionFlags> &
  Partial<
    ParsedFlags<
      typeof refreshFlag & typeof deletedFlag & typeof lockFlags & typeof windowFlag & typeof fullFlag
    >
  >;

function parallelOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1024) {
    throw new UsageError(`--parallel must be a whole number from 1 to 1024, not '${value}'`);
  }
  return n;
}

/** `--stack NAME`: one Pulumi stack as it is, with no selection. */
async function explicitPlan(
  flags: AnyFlags,
  names: readonly string[],
): Promise<{ target: Target; plan: Plan }> {
  const stackName = flags.stack ?? "";
  const clash = ["changed-since", "shard", "target"].filter((f) => flags[f as keyof AnyFlags] !== undefined);
  if (names.length > 0 || clash.length > 0) {
    throw new UsageError(
      `--stack runs one Pulumi stack; it takes no API stack names, --${clash[0] ?? "names"}`,
    );
  }
  return {
    target: await openOwnStack(projectDirOf(flags.project), stackName),
    plan: {
      jobs: [{ apiStack: stackName, stackName, destroy: false }],
      kept: [],
      description: `stack ${stackName}`,
    },
  };
}

/** Runs `operation` over the selected stacks; the exit code of the whole run. */
export async function runFleetCommand(
  operation: Operation,
  flags: AnyFlags,
  names: readonly string[],
): Promise<number> {
  const concurrency = parseConcurrency(flags.concurrency);
  // Every client reads it from the environment: this process's (preflight, hosted programs, the
  // shortcut) and, inherited, the shared provider host's and any plugin's.
  useApiConcurrency(flags["api-concurrency"]);
  const parallel = parallelOf(flags.parallel);
  const lockPolicy = lockPolicyOf(flags);
  const override = overrideReason(flags["override-window"]);
  // The fingerprint shortcut (fleet/shortcut.ts): per-file stacks, `up` without --refresh; with
  // --full every engine runs, and a run that changes nothing still records its proof.
  const reads =
    operation === "up" && flags.stack === undefined && flags.refresh !== true ? makeReadsDir() : undefined;
  const { target, plan } =
    flags.stack !== undefined
      ? await explicitPlan(flags, names)
      : await (async () => {
          const target = await openTarget(
            projectDirOf(flags.project),
            targetNameOf(flags.target),
            reads?.env ?? {},
          );
          const legacy = await legacyProblem(target);
          if (legacy !== undefined) throw new CliError("usage", legacy);
          const plan = await planRun(target, {
            names,
            ...(flags["changed-since"] === undefined ? {} : { changedSince: flags["changed-since"] }),
            ...(flags.shard === undefined ? {} : { shard: flags.shard }),
            destroyDeleted: flags["destroy-deleted"] === true,
            destroying: operation === "destroy",
          });
          return { target, plan };
        })();
  const settings = once(() => targetSettings(target));
  const hidden = await preflightTarget(operation, target, plan.jobs, settings); // by Pulumi stack name
  const windows = await openWindowGate(target.projectDir, override, plan.state);
  // Notification sinks (notifications/notify.ts): checked now, sent once every stack has ended.
  const notify =
    operation === "up" && flags.stack === undefined
      ? await prepareNotify(
          target.projectDir,
          target.name,
          plan.jobs.map((job) => job.apiStack),
          process.env,
          plan.state,
        )
      : undefined;
  // The program records the reason in the summary of each deployment it makes where windows are closed.
  if (override !== undefined) target.workspace.envVars[WINDOW_OVERRIDE_VARIABLE] = override;
  const shortcut =
    reads === undefined
      ? undefined
      : openShortcut(
          {
            ...target,
            env: { ...target.env, ...target.workspace.envVars },
            pulumiVersion: target.workspace.pulumiVersion,
          },
          flags.full !== true,
          reads.dir,
          settings,
        );
  // A stack the user cannot see: its line comes first, before anything else of the run.
  for (const line of hidden.values()) warn(line);
  say(
    `stackwright ${operation}: ${plan.description} API stack(s) of target '${target.name}', ${Math.min(concurrency, plan.jobs.length)} at once`,
  );
  for (const kept of plan.kept) {
    warn(
      `stackwright: ${kept}: its file was deleted; its resources stay (pass --destroy-deleted to destroy them)`,
    );
  }
  const interrupts = handleInterrupts();
  try {
    const visible = plan.jobs.filter((job) => !hidden.has(job.stackName));
    const refused = plan.jobs.flatMap((job) => {
      const line = hidden.get(job.stackName);
      return line === undefined ? [] : [refusedOutcome(job, line)];
    });
    const ran = await fanOut(visible, concurrency, {
      target,
      operation,
      refresh: flags.refresh === true,
      ...(parallel === undefined ? {} : { parallel }),
      lockPolicy,
      signal: interrupts.signal,
      windows,
      ...(shortcut === undefined ? {} : { shortcut }),
    });
    const outcomes = [...refused, ...ran];
    for (const o of ran) if (o.failure !== undefined) warn(`${o.job.stackName}: ${o.failure}`);
    if (outcomes.length > 0) say(`\n${closingTable(outcomes, operation)}`);
    else say("no API stack selected: nothing to do");
    const notified =
      notify === undefined
        ? undefined
        : await notifyOutcomes(notify.sinks, outcomes, windows, process.env, notify.options, say);
    if (flags.summary !== undefined) {
      const title = `Stackwright ${operation}: ${target.name}`;
      const overrides = ran.flatMap((o) => overrideNotice(windows, o.job.stackName) ?? []);
      const sections = `${windowSummary(overrides)}${notified?.markdown ?? ""}`;
      const input = fleetSummary(title, operation, outcomes, plan.kept, sections);
      writeSummary(input, flags.summary, flags["summary-full"]);
    }
    const signal = interrupts.received();
    return signal !== undefined ? EXIT_CODES.interrupted : combinedExitCode(outcomes.map((o) => o.exitCode));
  } finally {
    interrupts.dispose();
    await shortcut?.close();
  }
}

/** The target's settings (secrets decrypted), read once, when first needed. */
async function targetSettings(target: Target): Promise<(key: string) => string | undefined> {
  const settings = await readTargetSettings(target);
  return (key) => settings[key];
}

function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}

/**
 * Settings, API and credentials, once per run and before any engine starts (preflight.ts): a
 * wrong setting stops the run with one line (exit 2). A selected API stack the user cannot see
 * gets its own line and fails alone, without starting its engine; the others run.
 */
async function preflightTarget(
  operation: Operation,
  target: Target,
  jobs: readonly StackJob[],
  settings: () => Promise<(key: string) => string | undefined>,
): Promise<ReadonlyMap<string, string>> {
  const env = { ...process.env, ...target.env };
  if (env["STACKWRIGHT_PREFLIGHT"] === "off") return new Map();
  // By API stack; with --stack, the API stack its per-file name says (none for another program's stack).
  const apiStacks = new Map<string, string>();
  for (const job of jobs) {
    const apiStack = parsePerFileStackName(job.stackName)?.apiStack;
    if (!job.destroy && apiStack !== undefined) apiStacks.set(job.stackName, apiStack);
  }
  const { hidden } = await preflightFleet({
    command: operation,
    stacks: [...new Set(apiStacks.values())].map((name) => ({ name, file: "" })),
    config: await settings(),
    env,
  });
  const refused = new Map<string, string>();
  for (const [stackName, apiStack] of apiStacks) {
    const line = hidden.get(apiStack);
    if (line !== undefined) refused.set(stackName, line);
  }
  return refused;
}

/** The outcome of a stack refused by the preflight: exit 2, no engine started. */
function refusedOutcome(job: StackJob, line: string): StackOutcome {
  return { job, exitCode: EXIT_CODES.usage, changes: {}, durationMs: 0, events: [], failure: line };
}

/** A command that runs `operation` over the selected API stacks (fleet/). */
function fleetCommand(operation: Operation, summary: string) {
  return defineCommand({
    name: operation,
    args: ["API_STACK..."] as const,
    summary,
    flags: specs[operation],
    run: ({ flags, positional }) => runFleetCommand(operation, flags, positional),
  });
}

export const previewCommand = fleetCommand(
  "preview",
  "Shows what `up` would change in each selected API stack (default: all), without changing anything.",
);

export const upCommand = fleetCommand(
  "up",
  "Makes the platform match stacks-config/ for each selected API stack (default: all).",
);

export const refreshCommand = fleetCommand(
  "refresh",
  "Reads the live state of every resource of each selected API stack into its Pulumi state.",
);

export const destroyCommand = fleetCommand(
  "destroy",
  "Deletes what the named API stacks manage on the platform (retires deployments, removes locks and snapshots it made). Names are required.",
);
