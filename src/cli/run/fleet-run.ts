/**
 * A run of `preview`, `up`, `refresh` or `destroy` over the selected API stacks: each API stack
 * file runs in its own Pulumi stack `<target>.<API stack>` (fleet/open-target.ts), selected by
 * name, `--changed-since` and `--shard` (fleet/plan.ts), K at once (fleet/fan-out.ts), each to
 * its end. The run closes with a table per stack and exits non-zero when any failed; `--summary
 * FILE` writes one Markdown summary for all. What people read while it runs is Stackwright's
 * display of the engine's events (display/), the engine's own with `--engine-display`; `--json`
 * writes one document of the run (display/run-document.ts). Failures are reported by the command
 * kit (exit-codes.ts).
 */
import * as fs from "node:fs";
import type { CommandContext, Env, Stream } from "../kit/context";
import { CliError, combinedExitCode, EXIT_CODES, UsageError } from "../kit/exit-codes";
import { closingTable, fanOut, fleetSummary, resultOf } from "../fleet/fan-out";
import { apiBudget, apiBudgetEnv } from "../kit/api-budget";
import { legacyProblem } from "../fleet/migrate";
import { planRun, type Plan } from "../fleet/plan";
import type { Operation, StackJob, StackOutcome } from "../fleet/run-stack";
import { makeReadsDir, openShortcut } from "../fleet/shortcut";
import { engineRunEnv, openOwnStack, openTarget, targetApiConfig, type Target } from "../fleet/open-target";
import { writeSummary } from "../report/summary-file";
import { commandLine } from "../../project/invocation";
import { closingLines } from "../display/closing";
import { liveDisplay, RunDisplay } from "../display/display";
import { runDocument, StackResult } from "../display/run-document";
import { parsePerFileStackName, WINDOW_OVERRIDE_VARIABLE } from "../../config";
import { preflightFleet } from "../../project/preflight";
import { prepareNotify } from "../../project/notify-sinks";
import { notifyOutcomes } from "../notifications/notify";
import { handleInterrupts } from "../engine/interrupt";
import { lockPolicyOf } from "../kit/lock-flags";
import { openWindowGate, overrideNotice, overrideReason, windowSummary } from "../gates/windows";
import type { FleetFlags, FleetRequest } from "./flags";

/** `--stack NAME`: one Pulumi stack as it is, with no selection. */
async function explicitPlan(
  flags: FleetFlags,
  names: readonly string[],
  given: ReadonlySet<string>,
  budgetEnv: Record<string, string>,
  env: Env,
): Promise<{ target: Target; plan: Plan }> {
  const stackName = flags.stack ?? "";
  const clash = ["changed-since", "shard", "target"].filter((f) => given.has(f));
  if (names.length > 0 || clash.length > 0) {
    throw new UsageError(
      `--stack runs one Pulumi stack; it takes no API stack names, --${clash[0] ?? "names"}`,
    );
  }
  return {
    target: await openOwnStack(flags.project, stackName, budgetEnv, env),
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
  request: FleetRequest,
  context: CommandContext,
): Promise<number> {
  const { flags, positional: names, given } = request;
  const { io, env, clock } = context;
  const concurrency = flags.concurrency;
  // One budget for every client of the run, given in the environment the run hands them: this
  // process's (preflight, hosted programs, the shortcut) and the shared provider host's and any plugin's.
  const budgetEnv = apiBudgetEnv(apiBudget(flags["api-concurrency"], env));
  const parallel = flags.parallel;
  const lockPolicy = lockPolicyOf(flags);
  const override = overrideReason(flags["override-window"]);
  // The fingerprint shortcut (fleet/shortcut.ts): per-file stacks, `up` without --refresh; with
  // --full every engine runs, and a run that changes nothing still records its proof.
  const reads =
    operation === "up" && flags.stack === undefined && flags.refresh !== true ? makeReadsDir() : undefined;
  const { target, plan } =
    flags.stack !== undefined
      ? await explicitPlan(flags, names, given, budgetEnv, env)
      : await (async () => {
          const target = await openTarget(flags.project, flags.target, { ...budgetEnv, ...reads?.env }, env);
          const legacy = await legacyProblem(target);
          if (legacy !== undefined) throw new CliError("usage", legacy);
          const plan = await planRun(target, {
            names,
            ...(flags["changed-since"] === undefined ? {} : { changedSince: flags["changed-since"] }),
            ...(flags.shard === undefined ? {} : { shard: flags.shard }),
            destroyDeleted: flags["destroy-deleted"] ?? false,
            destroying: operation === "destroy",
          });
          return { target, plan };
        })();
  const settings = once(() => targetApiConfig(target, io.warn));
  const hidden = await preflightTarget(operation, target, plan.jobs, settings); // by Pulumi stack name
  const windows = await openWindowGate(target.projectDir, override, clock, plan.state);
  // Notification sinks (src/project/notify-sinks.ts): checked now, sent once every stack has ended
  // (notifications/notify.ts).
  const notify =
    operation === "up" && flags.stack === undefined
      ? await prepareNotify(
          target.projectDir,
          target.name,
          plan.jobs.map((job) => job.apiStack),
          env,
          plan.state,
        )
      : undefined;
  // The program records the reason in the summary of each deployment it makes where windows are closed.
  if (override !== undefined) target.env[WINDOW_OVERRIDE_VARIABLE] = override;
  const shortcut =
    reads === undefined ? undefined : openShortcut(target, flags.full !== true, reads.dir, settings);
  // With --json -, stdout is the document alone: everything else goes to stderr.
  const out: Stream = flags.json?.to === "stdout" ? io.stderr : io.stdout;
  const print = (text: string) => out.write(`${text}\n`);
  const engineDisplay = flags["engine-display"] === true;
  const display = engineDisplay
    ? undefined
    : new RunDisplay({
        operation,
        out,
        live: liveDisplay(out, env),
        columns: () => out.columns,
      });
  // A stack the user cannot see: its line comes first, before anything else of the run.
  for (const line of hidden.values()) io.warn(line);
  print(
    `stackwright ${operation}: ${plan.description} API stack(s) of target '${target.name}', ${Math.min(concurrency, plan.jobs.length)} at once`,
  );
  for (const kept of plan.kept) {
    io.warn(
      `stackwright: ${kept}: its file was deleted; its resources stay (pass --destroy-deleted to destroy them)`,
    );
  }
  const interrupts = handleInterrupts({ log: io.warn });
  try {
    const visible = plan.jobs.filter((job) => !hidden.has(job.stackName));
    const refused = plan.jobs.flatMap((job) => {
      const line = hidden.get(job.stackName);
      return line === undefined ? [] : [refusedOutcome(job, line)];
    });
    const whyEngine =
      flags.stack !== undefined
        ? "--stack always runs the engine"
        : flags.refresh === true
          ? "--refresh always runs the engine"
          : undefined;
    const ran = await fanOut(
      visible,
      concurrency,
      {
        target,
        operation,
        ...(whyEngine === undefined ? {} : { whyEngine }),
        ...(display === undefined ? {} : { display }),
        engineDisplay,
        refresh: flags.refresh === true,
        ...(parallel === undefined ? {} : { parallel }),
        lockPolicy,
        signal: interrupts.signal,
        windows,
        ...(shortcut === undefined ? {} : { shortcut }),
      },
      { stdout: out, stderr: io.stderr },
    );
    display?.close();
    const outcomes = [...refused, ...ran];
    for (const o of ran) if (o.failure !== undefined) io.warn(`${o.job.stackName}: ${o.failure}`);
    if (outcomes.length > 0) {
      print(`\n${closingTable(outcomes, operation)}`);
      const again = `up --refresh${flags.stack !== undefined ? ` --stack ${flags.stack}` : given.has("target") ? ` --target ${flags.target}` : ""}`;
      for (const line of closingLines(outcomes, {
        operation,
        upRefresh: commandLine(again),
        showOutputs: flags["show-outputs"] === true,
      }))
        print(line);
    } else print("no API stack selected: nothing to do");
    const notified =
      notify === undefined
        ? undefined
        : await notifyOutcomes(notify.sinks, outcomes, windows, env, notify.options, print);
    if (flags.summary !== undefined) {
      const title = `Stackwright ${operation}: ${target.name}`;
      const overrides = ran.flatMap((o) => overrideNotice(windows, o.job.stackName) ?? []);
      const sections = `${windowSummary(overrides)}${notified?.markdown ?? ""}`;
      const input = fleetSummary(title, operation, outcomes, plan.kept, sections);
      writeSummary(input, flags.summary, flags["summary-full"], print);
    }
    const signal = interrupts.received();
    const exitCode =
      signal !== undefined ? EXIT_CODES.interrupted : combinedExitCode(outcomes.map((o) => o.exitCode));
    if (flags.json !== undefined) {
      const document = runDocument(
        operation,
        target.name,
        exitCode,
        outcomes.map((o) => ({
          stackName: o.job.stackName,
          apiStack: o.job.apiStack,
          result: StackResult.parse(resultOf(o, operation)),
          exitCode: o.exitCode,
          durationMs: o.durationMs,
          ...(o.confirmed === true ? { confirmed: true } : {}),
          ...(o.engineReason === undefined ? {} : { engineReason: o.engineReason }),
          ...(o.failure === undefined ? {} : { failure: o.failure }),
          events: o.events,
        })),
      );
      const text = `${JSON.stringify(document, null, 2)}\n`;
      if (flags.json.to === "stdout") io.stdout.write(text);
      else {
        fs.writeFileSync(flags.json.path, text);
        io.warn(`run written to ${flags.json.path}`);
      }
    }
    return exitCode;
  } finally {
    interrupts.dispose();
    await shortcut?.close();
    reads?.remove();
  }
}

function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}

/**
 * Settings, API and credentials, once per run and before any engine starts (src/project/preflight.ts): a
 * wrong setting stops the run with one line (exit 2). A selected API stack the user cannot see
 * gets its own line and fails alone, without starting its engine; the others run.
 */
async function preflightTarget(
  operation: Operation,
  target: Target,
  jobs: readonly StackJob[],
  settings: () => Promise<(key: string) => string | undefined>,
): Promise<ReadonlyMap<string, string>> {
  const env = engineRunEnv(target);
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
