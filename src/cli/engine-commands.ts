/**
 * `stackwright preview` and `up`: the Automation API on the project directory, the engine's
 * progress streamed to stdout, failures reported by the command kit (exit-codes.ts).
 * `preview --summary FILE` also writes the pull-request Markdown from the engine's events.
 */
import * as fs from "node:fs";
import type { EngineEvent, Stack } from "@pulumi/pulumi/automation";
import type { FlagSpec, ParsedFlags } from "./args";
import { defineCommand } from "./command";
import { CliError, EXIT_CODES, UsageError } from "./exit-codes";
import { say } from "./output";
import type { PreviewJson } from "./preview-json";
import { engineErrorFilter } from "./state/engine-output";
import { handleInterrupts, InterruptedError } from "./state/interrupt";
import { withStackLock } from "./state/lock-guard";
import { lockFlags, lockPolicyOf, lockTargetOf } from "./state/target";
import { factsFromEvents, factsSummary } from "./facts-summary";
import { plannedChanges, renderSummary } from "./summary";
import { WINDOW_OVERRIDE_VARIABLE } from "../config";
import {
  type WindowGate,
  openWindowGate,
  overrideNotice,
  refusalReport,
  windowRefusals,
  windowSummary,
} from "./window-gate";
import { preflightEngineRun } from "./engine-preflight";
import { defaultProjectDir, openStack } from "./workspace";

const commonFlags = {
  stack: { type: "string", help: "the Pulumi stack (default: dev)" },
  project: { type: "string", help: "the Stackwright project directory (default: this package)" },
  parallel: { type: "string", help: "resource operations run at once (default: the engine's)" },
} satisfies FlagSpec;

const windowFlags = {
  "override-window": {
    type: "string",
    help: "REASON: make changes while change windows are closed (on call); recorded in the deployment summary",
  },
} satisfies FlagSpec;

const previewFlags = {
  ...commonFlags,
  ...windowFlags,
  refresh: { type: "boolean", help: "read the live state of every resource first" },
  summary: { type: "string", help: "also write the pull-request Markdown summary to this file" },
} satisfies FlagSpec;

const upFlags = {
  ...commonFlags,
  ...windowFlags,
  refresh: { type: "boolean", help: "read the live state of every resource first" },
  ...lockFlags,
} satisfies FlagSpec;

function parallelOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1024) {
    throw new UsageError(`--parallel must be a whole number from 1 to 1024, not '${value}'`);
  }
  return n;
}

/** Writes engine output as it arrives. */
const stream = (out: string) => process.stdout.write(out);

/** Opens the stack named by the flags, reporting usage problems as such. */
async function stackFromFlags(flags: { stack?: string; project?: string }): Promise<Stack> {
  return openStack({ projectDir: flags.project ?? defaultProjectDir(), stackName: flags.stack ?? "dev" });
}

/** Turns the engine's step events into the shape of `pulumi preview --json` for the summary. */
export function previewFromEvents(events: readonly EngineEvent[]): PreviewJson {
  const preview: PreviewJson = { steps: [], diagnostics: [], changeSummary: {} };
  for (const event of events) {
    const step = event.resourcePreEvent?.metadata;
    if (step !== undefined) {
      // The engine sends null for a side that does not exist (old of a create, new of a delete).
      const state = (s: typeof step.old | null) =>
        s === undefined || s === null
          ? undefined
          : { urn: s.urn, type: s.type, inputs: s.inputs ?? {}, outputs: s.outputs ?? {} };
      const oldState = state(step.old);
      const newState = state(step.new);
      preview.steps.push({
        op: step.op,
        urn: step.urn,
        ...(oldState === undefined ? {} : { oldState }),
        ...(newState === undefined ? {} : { newState }),
        ...(step.keys === undefined ? {} : { replaceReasons: step.keys }),
        ...(step.diffs === undefined ? {} : { diffReasons: step.diffs }),
      });
    }
    const diag = event.diagnosticEvent;
    if (diag !== undefined) {
      preview.diagnostics.push({ message: diag.message, severity: diag.severity });
    }
    const summary = event.summaryEvent;
    if (summary !== undefined) {
      preview.changeSummary = Object.fromEntries(
        Object.entries(summary.resourceChanges ?? {}).filter(
          (e): e is [string, number] => e[1] !== undefined,
        ),
      );
    }
  }
  return preview;
}

/** Writes the engine's error stream as it arrives, minus the noise (see state/engine-output.ts). */
const streamErrors = engineErrorFilter((out: string) => process.stderr.write(out));

/** What preview and up share: the stack named by the flags, and the engine options. */
async function engineRun(
  command: string,
  flags: ParsedFlags<typeof upFlags> | ParsedFlags<typeof previewFlags>,
) {
  const parallel = parallelOf(flags.parallel);
  const stack = await stackFromFlags(flags);
  await preflightEngineRun(stack, flags.project ?? defaultProjectDir(), command);
  const gate = await openWindowGate(
    flags.project ?? defaultProjectDir(),
    stack.name,
    flags["override-window"],
  );
  // The program records the reason in the summary of each deployment it makes where windows are closed.
  if (gate.override !== undefined) stack.workspace.envVars[WINDOW_OVERRIDE_VARIABLE] = gate.override;
  const options = {
    onOutput: stream,
    onError: streamErrors.write,
    ...(flags.refresh === true ? { refresh: true } : {}),
    ...(parallel === undefined ? {} : { parallel }),
  };
  return { stack, options, gate };
}

/** Refusals of the plan in `events` by the change windows (none when overridden or all open). */
function refusalsOf(events: readonly EngineEvent[], gate: WindowGate): string[] {
  if (gate.override !== undefined || gate.closed.length === 0) return [];
  return windowRefusals(plannedChanges(previewFromEvents(events)).changes, gate.closed);
}

/**
 * Before `up` writes anything while some windows are closed: a preview says whether this run
 * would change those environments. Returns the refusals (none: go on).
 */
async function refusalsBeforeUp(stack: Stack, options: Parameters<Stack["preview"]>[0], gate: WindowGate) {
  if (gate.override !== undefined || gate.closed.length === 0) return [];
  const names = gate.closed.map((c) => `${c.stack}/${c.environment}`).join(", ");
  say(`change windows are closed for ${names}: previewing before any change\n`);
  const events: EngineEvent[] = [];
  const { onOutput: _quiet, ...quiet } = options ?? {};
  await stack.preview({ ...quiet, onEvent: (e) => events.push(e) });
  return refusalsOf(events, gate);
}

export const previewCommand = defineCommand({
  name: "preview",
  summary: "Shows what `up` would change, without changing anything.",
  flags: previewFlags,
  async run({ flags }) {
    const { stack, options, gate } = await engineRun("preview", flags);
    const events: EngineEvent[] = [];
    const result = await stack.preview({ ...options, onEvent: (e) => events.push(e) });
    const refusals = refusalsOf(events, gate);
    const notice = overrideNotice(gate);
    if (flags.summary !== undefined) {
      const preview = previewFromEvents(events);
      preview.changeSummary = { ...result.changeSummary } as Record<string, number>;
      const markdown = renderSummary(preview, { title: `Stackwright preview: ${stack.name}` });
      const facts = factsSummary(factsFromEvents(events));
      fs.writeFileSync(flags.summary, `${markdown}${windowSummary(refusals, notice)}${facts}`);
      say(`\nsummary written to ${flags.summary}`);
    }
    if (notice !== undefined) say(`\n${notice}`);
    if (refusals.length > 0) throw new CliError("failed", refusalReport(refusals));
    return EXIT_CODES.ok;
  },
});

export const upCommand = defineCommand({
  name: "up",
  summary: "Makes the platform match stacks-config/.",
  flags: upFlags,
  async run({ flags }) {
    const interrupts = handleInterrupts();
    try {
      const { stack, options, gate } = await engineRun("up", flags);
      const refusals = await refusalsBeforeUp(stack, options, gate);
      if (refusals.length > 0) throw new CliError("failed", refusalReport(refusals));
      const notice = overrideNotice(gate);
      if (notice !== undefined) say(`${notice}\n`);
      const target = lockTargetOf(flags.project ?? defaultProjectDir(), stack.name);
      // The engine prints the outputs at the end of its own report.
      await withStackLock(target, lockPolicyOf(flags), async () => {
        interrupts.signal.throwIfAborted();
        return stack.up({ ...options, signal: interrupts.signal });
      });
      return EXIT_CODES.ok;
    } catch (err) {
      const signal = interrupts.received();
      if (signal !== undefined && !(err instanceof InterruptedError)) throw new InterruptedError(signal);
      throw err;
    } finally {
      streamErrors.flush();
      interrupts.dispose();
    }
  },
});
