/**
 * The one line that says why an engine run failed, taken from the engine's own report: its first
 * error diagnostic (a resource's before the run's generic "update failed"), or failing that the
 * first `error:` line of its error stream. The user reads it as the last word on a failed stack
 * instead of being sent to look for it above.
 */
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { stripVTControlCharacters } from "node:util";
import { terminalText } from "../../safe-text";

/** The engine's `<{%reset%}>`-style colour markup (terminal colours go with stripVTControlCharacters). */
const MARKUP = /<\{%[a-z-]+%\}>/g;

/** The engine's own summaries of a failure, which name no cause. */
const GENERIC = /^(update|preview|refresh|destroy) failed$|^\d+ errors? occurred/i;

function oneLine(text: string): string {
  // The message may quote the platform: its control characters are shown, never interpreted.
  return terminalText(
    text
      .replace(MARKUP, "")
      .replace(/^error:\s*/i, "")
      // The engine's wrapper of one error ("1 error occurred:\n\t* <the error>") names no cause.
      .replace(/^1 error occurred:\s*\n\s*\* /, "")
      .replace(/\s+/g, " ")
      .trim(),
  );
}

/** The engine's first error diagnostic that names a cause, in one line; undefined when none. */
export function engineDiagnostic(events: readonly EngineEvent[], stderr = ""): string | undefined {
  const errors = events.flatMap((event) => {
    const diag = event.diagnosticEvent;
    return diag?.severity === "error" ? [{ urn: diag.urn, text: oneLine(diag.message) }] : [];
  });
  const named = errors.filter((e) => e.text !== "" && !GENERIC.test(e.text));
  const best = named.find((e) => e.urn !== undefined && e.urn !== "") ?? named[0];
  if (best !== undefined) return best.text;
  const line = stripVTControlCharacters(stderr)
    .replace(MARKUP, "")
    .split("\n")
    // A CommandError's text opens its error stream with "stderr: " on the first line's start.
    .map((l) => l.trim().replace(/^stderr:\s*/, ""))
    .find((l) => /^error: /i.test(l) && !GENERIC.test(oneLine(l)));
  return line === undefined ? undefined : oneLine(line);
}
