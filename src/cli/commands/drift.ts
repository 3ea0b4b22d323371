/**
 * `stackwright drift [API_STACK ...]`: the scheduled check. It observes the selected stacks as
 * `status` does (src/observe: the desired state against what the last `up` recorded in the state
 * backend and what the platform runs; no engine, no write to the API) and reports every
 * environment that drifted: a hand deployment, a file whose ref the last `up` did not deploy, a
 * failed deployment, a deployment no `up` made. What the reads cannot see (a lock or a record
 * action added to a file, say) the engine's preview with refresh can: it runs for each stack whose
 * last no-change `up` no longer proves it (src/observe/proof.ts, decided with the observation's
 * reads), or for every stack with `--full`, and what it plans counts as drift (`planned change`).
 * It remembers what it reported in the state backend, next to the confirmations, so each entry is
 * new, still there, or resolved.
 *
 * Exit codes (combined over the stacks, error > drift > clean): 0 clean, 5 drift, 1 when a check
 * could not be made (a stack the user cannot see, a read that failed).
 *
 * Notifications (src/project/notify-sinks.ts): `drift.detected` for each new entry and `drift.resolved` for
 * each resolved one, never for one still drifted, to the sinks of their stacks. The sinks are
 * checked as `up` checks them, before anything is read (an unset variable: exit 2), and so are
 * the paths of `--json` and `--summary`. The report is written and its notifications sent before
 * the memory is kept: a run that fails on the way leaves the old memory, so the next run finds the
 * same entries new and sends them, rather than calling them still (which is never sent).
 * Delivery never changes the exit code.
 */
import { terminalText } from "../../safe-text";
import * as fs from "node:fs";
import {
  FULL_CHECK_REASON,
  NOT_PREVIEWED_REASON,
  driftChecks,
  driftChecksLine,
  driftMarkdown,
  driftReport,
  withEngineChecks,
  type DriftMemory,
  type DriftReport,
} from "../../observe";
import { defineCommand } from "../kit/command";
import { EXIT_CODES } from "../kit/exit-codes";
import { flag } from "../kit/args";
import { checkOutputPath } from "../kit/output-path";
import { observeFlags, observeTarget } from "../observation/observe-target";
import { keepDriftMemory, readDriftMemory } from "../observation/drift-memory";
import { notifyDrift, prepareNotify } from "../../project/notify-sinks";
import type { DriftChanges, DriftEntry as NotifyDriftEntry } from "../../notify";

/** The exit code of a report: error > drift > clean. */
export function driftExitCode(result: DriftReport["result"]): number {
  return { clean: EXIT_CODES.ok, drift: EXIT_CODES.drift, error: EXIT_CODES.failed }[result];
}

/** What the report says changed since the last one (its new and resolved entries), as events need it. */
export function driftChangesOf(report: DriftReport): DriftChanges {
  const entry = (d: DriftReport["drift"][number]): NotifyDriftEntry => ({
    apiStack: d.stack,
    environment: d.environment,
    kind: d.kind,
    desired: d.desired,
    live: d.live_sha,
    message:
      d.status === "resolved"
        ? `${d.kind} resolved` + (d.live_sha === null ? "" : `, runs ${d.live_sha.slice(0, 7)}`)
        : d.kind +
          (d.live_sha === null ? "" : `, runs ${d.live_sha.slice(0, 7)}`) +
          (d.by === null ? "" : ` (by ${d.by}${d.since === null ? "" : ` since ${d.since}`})`),
  });
  return {
    new: report.drift.filter((d) => d.status === "new").map(entry),
    resolved: report.drift.filter((d) => d.status === "resolved").map(entry),
  };
}

/** The report's lines for the terminal. */
function reportLines(report: DriftReport): string {
  const head = {
    clean: "no drift",
    drift: `drift in ${report.counts.new + report.counts.still} environment(s)`,
    error: `${report.counts.errors} check(s) could not be made`,
  }[report.result];
  const lines = [
    `stackwright drift: ${report.target}: ${head} (${report.counts.new} new, ${report.counts.still} still, ${report.counts.resolved} resolved)`,
    ...report.drift.map(
      (d) =>
        `  ${d.status.padEnd(8)} ${d.stack}/${d.environment}: ${d.kind}` +
        (d.live_sha === null ? "" : `, runs ${d.live_sha.slice(0, 7)}`) +
        (d.by === null ? "" : ` (by ${d.by}${d.since === null ? "" : ` since ${d.since}`})`),
    ),
    ...report.errors.map(
      (e) => `  error    ${e.stack}${e.environment === null ? "" : `/${e.environment}`}: ${e.reason}`,
    ),
    ...checkLines(report),
  ];
  // Names, deployers and reasons may be the platform's: each line shown, never interpreted.
  return lines.map(terminalText).join("\n");
}

/** How the stacks were checked: the count the proof settled, and why the engine ran where it did. */
function checkLines(report: DriftReport): string[] {
  const full = report.stacks.some((c) => c.reason === FULL_CHECK_REASON);
  return [
    `  ${driftChecksLine(report, false)}`,
    ...report.stacks
      .filter((c) => (c.checked_by === "engine" && !full) || (c.checked_by === "reads" && c.reason !== null))
      .filter((c) => c.reason !== NOT_PREVIEWED_REASON)
      .map((c) => `  ${c.checked_by.padEnd(8)} ${c.stack}: ${c.reason ?? ""}`),
  ];
}

export const driftCommand = defineCommand({
  name: "drift",
  args: ["API_STACK..."],
  summary:
    "Checks whether what runs on the platform drifted from the desired state and the last up, for each " +
    "selected API stack (default: all), without changing anything on the platform. Exits 0 when clean, 5 when " +
    "anything drifted, 1 when a check could not be made (error > drift > clean). Where the last no-change up's " +
    "proof still holds (same inputs, same state, every recorded read answers the same) no engine runs; where it " +
    "does not, the engine's preview with refresh runs for that stack (no change, no write) and what it would " +
    "change counts as drift. Remembers what it reported in the state backend, so each entry says new, still " +
    "or resolved. With --full the preview runs on every stack.",
  flags: {
    ...observeFlags,
    json: flag.output(
      "write the drift report as JSON (version 1, docs/schemas/drift-v1.schema.json) to FILE, or - for stdout",
    ),
    summary: flag.string("FILE: write the drift report as Markdown to FILE"),
    full: flag.switch(
      "run the engine's preview with refresh on every stack, proven or not; a change it plans counts as drift",
    ),
  },
  async run({ flags, positional }, context) {
    const { io, env } = context;
    const full = flags.full;
    const json = flags.json;
    checkOutputPath("json", json?.to === "file" ? json.path : undefined);
    checkOutputPath("summary", flags.summary);
    // The sinks of the selected stacks, checked before the reads, as `up` checks them before its engines.
    let notify: Awaited<ReturnType<typeof prepareNotify>> | undefined;
    const observed = await observeTarget(
      {
        command: "drift",
        names: positional,
        target: flags.target,
        project: flags.project,
        changedSince: flags["changed-since"],
        shard: flags.shard,
        apiConcurrency: flags["api-concurrency"],
        prove: !full,
        beforeReads: async ({ projectDir, target, apiStacks, desired }) => {
          notify = await prepareNotify(projectDir, target, apiStacks, env, desired);
        },
      },
      context,
    );
    const { store, project } = observed;
    const memories = new Map<string, DriftMemory | undefined>();
    await Promise.all(
      observed.status.stacks.map(async (s) =>
        memories.set(s.stack, await readDriftMemory(store, project, s.pulumi_stack)),
      ),
    );
    const checks = driftChecks(observed.status, observed.proofs, memories, full);
    const previewed = new Set(
      [...checks.values()].filter((c) => c.checked_by === "engine").map((c) => c.stack),
    );
    // With --json -, stdout is the report alone: the engine's progress goes to stderr.
    const progress =
      json?.to === "stdout"
        ? { stdout: io.stderr, stderr: io.stderr }
        : { stdout: io.stdout, stderr: io.stderr };
    const status =
      previewed.size === 0
        ? observed.status
        : withEngineChecks(
            observed.status,
            await (await import("../run/engine-checks.js")).engineChecks(
              observed.status,
              previewed,
              observed.projectDir,
              flags.target,
              progress,
              observed.budgetEnv,
              env,
            ),
          );
    const { report, memories: next } = driftReport(status, memories, checks);
    // With --json -, stdout is the report alone: the delivery lines go to stderr.
    const print = json?.to === "stdout" ? io.warn : io.say;
    if (json?.to === "stdout") io.say(JSON.stringify(report, null, 2));
    else {
      io.say(reportLines(report));
      if (json !== undefined) {
        fs.writeFileSync(json.path, `${JSON.stringify(report, null, 2)}\n`);
        io.warn(`drift report written to ${json.path}`);
      }
    }
    const notified =
      notify === undefined ? undefined : await notifyDrift(notify, driftChangesOf(report), env, print);
    if (flags.summary !== undefined) {
      fs.writeFileSync(flags.summary, `${driftMarkdown(report)}${notified?.markdown ?? ""}`);
      io.warn(`summary written to ${flags.summary}`);
    }
    // Last: only a run that reported and notified moves its entries from new to still.
    await Promise.all(
      status.stacks.map(async (s) => {
        const memory = next.get(s.stack);
        // Not checked: its record stays as it was.
        if (memory !== undefined)
          await keepDriftMemory(store, project, s.pulumi_stack, memories.get(s.stack), memory);
      }),
    );
    return driftExitCode(report.result);
  },
});
