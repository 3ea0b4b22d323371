/** The engine's events of a run, in the shape of `pulumi preview --json`, for the summary. */
import type { EngineEvent } from "@pulumi/pulumi/automation";
import type { PreviewJson } from "./preview-json";

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
          : {
              urn: s.urn,
              type: s.type,
              inputs: s.inputs ?? {},
              outputs: s.outputs ?? {},
              ...(s.retainOnDelete === true ? { retainOnDelete: true } : {}),
            };
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
