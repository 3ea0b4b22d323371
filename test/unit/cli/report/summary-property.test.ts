import * as fs from "node:fs";
import * as path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fleetSummary } from "../../../../src/cli/fleet/fan-out";
import type { StackOutcome } from "../../../../src/cli/fleet/run-stack";
import { previewFromEvents } from "../../../../src/cli/engine/preview-events";
import { KIND_LABELS, plannedChanges, renderComment, type StepOp } from "../../../../src/cli/report/summary";
import { planEvents, type PlannedStep, type ResourceType } from "./summary-plan";

/** The operator guide's table of the words each engine step may show ("Reading the summary"). */
function readmeWords(): Record<StepOp, string[]> {
  const readme = fs.readFileSync(path.resolve(__dirname, "../../../../docs/guide.md"), "utf8");
  const start = readme.indexOf("| engine step | the change column says |");
  const rows = readme.slice(start).split("\n").slice(2);
  const words: Record<string, string[]> = {};
  for (const row of rows) {
    if (!row.startsWith("|")) break;
    const [op, said] = row
      .split("|")
      .slice(1, 3)
      .map((c) => c.trim());
    if (op !== undefined && said !== undefined) words[op] = said.split(",").map((w) => w.trim());
  }
  return words as Record<StepOp, string[]>;
}

const SHA = fc.stringMatching(/^[0-9a-f]{40}$/);
const ENV = fc.constantFrom("prod", "uat", "test");
const TYPES: ResourceType[] = [
  "Deployment",
  "EnvironmentLock",
  "Snapshot",
  "SnapshotRestore",
  "GitFetch",
  "RecordAction",
];
const OPS = ["create", "update", "replace", "delete", "delete-retain", "read", "import", "same"] as const;

/** One random step of any type and operation, with drift (a live sha unlike the recorded one). */
const stepArb = (stack: string): fc.Arbitrary<PlannedStep & { readonly kindOfOp: (typeof OPS)[number] }> =>
  fc
    .record({
      type: fc.constantFrom(...TYPES),
      op: fc.constantFrom(...OPS),
      environment: ENV,
      logical: fc.constantFrom("nightly-db", "before-release", "from-nightly"),
      live: fc.option(SHA, { nil: undefined }),
      recorded: fc.option(SHA, { nil: undefined }),
      locked: fc.boolean(),
      wasLocked: fc.boolean(),
      title: fc.constantFrom("Release", "Hotfix"),
    })
    .map((r) => {
      const where = { stack, environment: r.environment };
      const inputs: Record<string, unknown> =
        r.type === "Deployment"
          ? {
              ...where,
              ref_type: "tag",
              ref: "v1.2.0",
              title: r.title,
              ...(r.live === undefined ? {} : { observed_sha: r.live }),
            }
          : r.type === "EnvironmentLock"
            ? { ...where, message: "freeze", locked: r.locked }
            : r.type === "Snapshot"
              ? { ...where, mode: "db" }
              : r.type === "SnapshotRestore"
                ? { ...where, snapshot_id: "17", mode: "db" }
                : r.type === "GitFetch"
                  ? { stack }
                  : { class_name: "Page", record_id: "12", method: "publish" };
      const name =
        r.type === "RecordAction"
          ? `${stack}/Page/12/publish`
          : r.type === "GitFetch"
            ? `${stack}/fetch`
            : `${stack}/${r.environment}${r.type === "Snapshot" || r.type === "SnapshotRestore" ? `/${r.logical}` : ""}`;
      return {
        kindOfOp: r.op,
        op: r.op === "delete-retain" ? "delete" : r.op,
        type: r.type,
        name,
        inputs,
        oldInputs: r.type === "Deployment" ? { ...inputs, title: "Before" } : inputs,
        oldOutputs: {
          ...(r.recorded === undefined ? {} : { sha: r.recorded }),
          ...(r.type === "EnvironmentLock" ? { locked: r.wasLocked } : {}),
        },
        retain: r.op === "delete-retain",
        ...(r.op === "replace" ? { keys: ["ref"] } : {}),
      };
    });

const planArb = fc
  .array(
    fc.record({
      site: fc.constantFrom("acme-web", "shop", "intranet", "blog"),
      failed: fc.boolean(),
    }),
    { minLength: 1, maxLength: 4 },
  )
  .chain((stacks) => {
    const unique = [...new Map(stacks.map((s) => [s.site, s])).values()];
    return fc.tuple(
      ...unique.map((s) =>
        fc.record({
          site: fc.constant(s.site),
          failed: fc.constant(s.failed),
          steps: fc.array(stepArb(s.site), { maxLength: 8 }),
        }),
      ),
    );
  });

describe("the summary of a random plan", () => {
  const words = readmeWords();

  it("has the guide's table for every engine step", () => {
    expect(Object.keys(words).sort()).toEqual(
      ["create", "delete", "delete-retain", "import", "read", "replace", "update"].sort(),
    );
  });

  it("gives every step the words of its operation, and counts that add up to its rows", () => {
    fc.assert(
      fc.property(planArb, (stacks) => {
        const outcomes: StackOutcome[] = stacks.map((s) => ({
          job: { apiStack: s.site, stackName: `dev.${s.site}`, destroy: false },
          exitCode: s.failed ? 1 : 0,
          changes: {},
          durationMs: 0,
          events: planEvents(`dev.${s.site}`, s.steps),
          ...(s.failed ? { failure: `stackwright preview failed: ${s.site} refused` } : {}),
        }));
        // Each step alone: at most one row, of the step's own operation, in the guide's words.
        for (const s of stacks) {
          for (const step of s.steps) {
            const { changes, unchanged } = plannedChanges(
              previewFromEvents(planEvents(`dev.${s.site}`, [step])),
            );
            if (step.kindOfOp === "same") {
              expect(changes).toEqual([]);
              continue;
            }
            if (changes.length === 0) {
              // Only a lock resource may change nothing: an environment that stays unlocked.
              expect(step.type).toBe("EnvironmentLock");
              expect(unchanged).toBe(1);
              continue;
            }
            const [row] = changes;
            if (row === undefined) throw new Error("no row");
            expect(row.op).toBe(step.kindOfOp);
            expect(words[row.op]).toContain(KIND_LABELS[row.kind]);
            if (row.op === "delete-retain") expect(row.text).toContain("stays on the platform");
            if (step.type === "RecordAction" && row.op === "delete") {
              expect(row.text).toContain("no longer managed (nothing runs)");
              expect(row.kind).not.toBe("record");
            }
            const live = step.inputs["observed_sha"];
            if (step.type === "Deployment" && (row.op === "create" || row.op === "replace")) {
              const recorded = step.oldOutputs?.["sha"];
              const from = typeof live === "string" ? live : row.op === "replace" ? recorded : undefined;
              if (typeof from === "string") expect(row.text).toContain(`from \`${from.slice(0, 7)}\``);
            }
          }
        }
        // The whole comment: counts by label equal the rows; failures counted first, never "No changes".
        const input = fleetSummary("Stackwright preview: dev", "preview", outcomes, []);
        const { changes, unchanged } = plannedChanges(input.preview);
        const total = stacks.reduce((n, s) => n + s.steps.length, 0);
        expect(unchanged).toBe(total - changes.length);
        const text = renderComment(input).text;
        const counts = text.split("\n")[2] ?? "";
        const failed = stacks.filter((s) => s.failed).length;
        const expected = new Map<string, number>();
        for (const c of changes)
          expected.set(KIND_LABELS[c.kind], (expected.get(KIND_LABELS[c.kind]) ?? 0) + 1);
        const parts = [...expected].map(([label, n]) => `${n} ${label}`);
        if (failed > 0) {
          expect(counts).toBe(
            `**${failed} ${failed === 1 ? "stack" : "stacks"} failed** · ${parts.length === 0 ? "no change planned in the others" : parts.join(" · ")} (${unchanged} unchanged)`,
          );
        } else {
          expect(counts).toBe(
            `**${parts.length === 0 ? "No changes" : parts.join(" · ")}** (${unchanged} unchanged)`,
          );
        }
        expect(text).not.toContain("destroyed");
        // One table row per planned change.
        expect(text.split("\n").filter((l) => /^\| (prod|uat|test|—) \|/.test(l))).toHaveLength(
          changes.length,
        );
      }),
      { numRuns: 300 },
    );
  });
});
