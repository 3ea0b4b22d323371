/**
 * `stackwright summary [FILE]`: the pull-request comment of a plain Pulumi run, on stdout, from
 * FILE (or stdin): the event log of `pulumi preview --event-log FILE` (the very events
 * `preview --summary` renders, so the same plan gives the same comment, Facts included), or the
 * output of `pulumi preview --json` (steps and diagnostics only: no Facts; `--show-sames` for the
 * unchanged count).
 */
import * as fs from "node:fs";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { z } from "zod";
import { urnStack } from "../../api";
import { flag } from "../kit/args";
import { defineCommand } from "../kit/command";
import { CliError, EXIT_CODES } from "../kit/exit-codes";
import { parsePreviewJson } from "../engine/preview-json";
import { renderComment, type SummaryInput } from "../report/summary";
import { runOfEventLog, summaryOfRuns } from "../report/summary-runs";

function readSource(source: string): string {
  try {
    return source === "stdin" ? fs.readFileSync(0, "utf8") : fs.readFileSync(source, "utf8");
  } catch (err) {
    throw new CliError("usage", `cannot read ${source}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** What every line of an engine event log has. */
const EventLine = z.object({ sequence: z.number(), timestamp: z.number() }).loose();

/** The events of an event log, or undefined when `text` is not one (one JSON object per line). */
function eventLog(text: string): EngineEvent[] | undefined {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  if (lines.length === 0) return undefined;
  const events: EngineEvent[] = [];
  for (const line of lines) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return undefined;
    }
    const parsed = EventLine.safeParse(value);
    if (!parsed.success) return undefined;
    // The engine's own event (apitype.EngineEvent), as the Automation API reads the same log.
    events.push(parsed.data as EngineEvent);
  }
  return events;
}

/** `Stackwright preview: dev` for the per-file stack `dev.acme-web`, as `preview --summary` titles it. */
function titleOf(stackName: string | undefined): string {
  const target = stackName?.split(".")[0];
  return target === undefined || target === "" ? "Stackwright preview" : `Stackwright preview: ${target}`;
}

/** The comment's input for the text of FILE: an event log or a `pulumi preview --json`. */
export function summaryInputOf(text: string, source: string, title: string | undefined): SummaryInput {
  const events = eventLog(text);
  if (events !== undefined) {
    const run = runOfEventLog(events);
    return summaryOfRuns([run], { title: title ?? titleOf(run.stackName) });
  }
  const preview = parsePreviewJson(text, source);
  const urn = preview.steps[0]?.urn;
  const stackName = urn === undefined ? undefined : urnStack(urn);
  const errors = preview.diagnostics.filter((d) => d.severity === "error");
  return {
    title: title ?? titleOf(stackName),
    preview,
    failures:
      errors.length === 0
        ? []
        : [{ stack: stackName ?? "stack", result: "failed", line: errors[0]?.message.trim() ?? "" }],
  };
}

export const summaryCommand = defineCommand({
  name: "summary",
  args: ["FILE"],
  summary:
    "Reads the event log of `pulumi preview --event-log FILE` (the same comment as `preview --summary`) or the output of `pulumi preview --json` (FILE or stdin) and prints the Markdown summary, cut to fit a GitHub comment.",
  flags: {
    title: flag.string("the heading of the comment (default: Stackwright preview: TARGET)"),
    "summary-full": flag.string("FILE: write the summary uncut to this file too"),
  },
  run({ flags, positional }, { io }) {
    const file = positional[0];
    const source = file === undefined || file === "-" ? "stdin" : file;
    const input = summaryInputOf(readSource(source), source, flags.title);
    const fullFile = flags["summary-full"];
    const rendered = renderComment(input, fullFile === undefined ? {} : { fullText: fullFile });
    if (fullFile !== undefined) fs.writeFileSync(fullFile, rendered.full);
    io.stdout.write(rendered.text);
    return Promise.resolve(EXIT_CODES.ok);
  },
});
