import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closingTable, fleetSummary } from "../../../../src/cli/fleet/fan-out";
import type { StackOutcome } from "../../../../src/cli/fleet/run-stack";
import { plannedChanges, renderComment } from "../../../../src/cli/report/summary";
import { summaryInputOf } from "../../../../src/cli/commands/summary";
import { writeSummary } from "../../../../src/cli/report/summary-file";
import { summaryOfRuns } from "../../../../src/cli/report/summary-runs";
import { previewFromEvents } from "../../../../src/cli/engine/preview-events";
import { eventLogText, planEvents, type PlannedStep } from "./summary-plan";

const STACK = "dev.acme-web";
const deployment = (environment: string, extra: Record<string, unknown> = {}) => ({
  stack: "acme-web",
  environment,
  ref_type: "branch",
  ref: "main",
  ...extra,
});

const outcome = (events: ReturnType<typeof planEvents>, over: Partial<StackOutcome> = {}): StackOutcome => ({
  job: { apiStack: "acme-web", stackName: STACK, destroy: false },
  exitCode: 0,
  changes: {},
  durationMs: 1000,
  events,
  ...over,
});

const comment = (steps: PlannedStep[], over: Partial<StackOutcome> = {}, diagnostics = []) =>
  renderComment(
    fleetSummary(
      "Stackwright preview: dev",
      "preview",
      [outcome(planEvents(STACK, steps, { diagnostics }), over)],
      [],
    ),
  ).text;

// Each case is one of issue 27's "Why" 4, tried on the summary as a reviewer reads it.
describe("the summary says what the engine's plan says", () => {
  it("shows a retained snapshot removed from the file as no longer managed, staying on the platform", () => {
    const md = comment([
      {
        op: "delete",
        type: "Snapshot",
        name: "acme-web/uat/nightly-db",
        inputs: { stack: "acme-web", environment: "uat", mode: "db" },
        retain: true,
      },
    ]);
    expect(md).toContain(
      "| uat | no longer managed | Snapshot `nightly-db`: no longer managed; it stays on the platform |",
    );
    expect(md).not.toContain("delete snapshot");
    expect(md).toContain("**1 no longer managed**");
  });

  it("shows a removed records entry as no longer managed with nothing run, not as a record action", () => {
    const md = comment([
      {
        op: "delete",
        type: "RecordAction",
        name: "acme-web/Page/12/publish",
        inputs: { class_name: "Page", record_id: "12", method: "publish" },
      },
    ]);
    expect(md).toContain("`Page#12.publish`: no longer managed (nothing runs)");
    expect(md).not.toContain("record action");
  });

  it("says a redeploy goes from the live sha read in this run, not the one recorded", () => {
    const md = comment([
      {
        op: "replace",
        type: "Deployment",
        name: "acme-web/prod",
        inputs: deployment("prod", { observed_sha: "3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f" }),
        oldOutputs: { sha: "8f3c2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f" },
        keys: ["trigger"],
      },
    ]);
    expect(md).toContain("| prod | redeploy | from `3c4d5e6` to branch `main` (changed: trigger) |");
    expect(md).not.toContain("8f3c2a1");
  });

  it("never starts a refused preview with No changes", () => {
    const md = comment([], {
      exitCode: 1,
      failure: "stackwright preview failed: acme-web/prod is locked",
    });
    expect(md).not.toContain("No changes");
    expect(md.split("\n")[2]).toBe("**1 stack failed** · no change planned in the others (0 unchanged)");
    expect(md).toContain("- **dev.acme-web** failed: stackwright preview failed: acme-web/prod is locked");
  });

  it("lists a deleted file's stack in a preview as a destroy planned, never as destroyed", () => {
    const planned = outcome([], { job: { apiStack: "gone", stackName: "dev.gone", destroy: true } });
    expect(closingTable([planned], "preview")).toContain("ok (destroy planned)");
    expect(closingTable([planned], "preview")).not.toContain("destroyed");
    expect(closingTable([planned], "destroy")).toContain("destroyed");
  });

  it("gives the same comment from `stackwright summary` of the event log as `preview --summary` of the run", () => {
    const facts = {
      "acme-web": {
        environments: { prod: { url: "https://www.acme.example.com" } },
      },
    };
    const steps: PlannedStep[] = [
      {
        op: "replace",
        type: "Deployment",
        name: "acme-web/uat",
        inputs: deployment("uat", { observed_sha: "8f3c2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f" }),
        keys: ["trigger"],
      },
      { op: "same", type: "Deployment", name: "acme-web/prod", inputs: deployment("prod") },
      {
        op: "same",
        type: "EnvironmentLock",
        name: "acme-web/prod",
        inputs: { stack: "acme-web", environment: "prod" },
      },
    ];
    const events = planEvents(STACK, steps, {
      facts,
      diagnostics: [
        { message: "acme-web/prod: live sha abc1234 differs from desired def5678", severity: "warning" },
      ],
    });
    const fromRun = renderComment(
      fleetSummary("Stackwright preview: dev", "preview", [outcome(events)], []),
    ).text;
    const fromLog = renderComment(
      summaryInputOf(eventLogText(events), "preview-events.json", undefined),
    ).text;
    expect(fromLog).toBe(fromRun);
    expect(fromRun).toContain("(2 unchanged)");
    expect(fromRun).toContain("### Facts");
  });
});

// Issue 21 item 6: a fleet-wide preview's comment fits where GitHub posts it.
describe("a summary above GitHub's comment size", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** 300 sites whose three environments all redeploy; a few failed, with drift warnings. */
  function fleet(): StackOutcome[] {
    return Array.from({ length: 300 }, (_, i) => {
      const site = `site-${String(i).padStart(3, "0")}`;
      const stackName = `production.${site}`;
      const steps: PlannedStep[] = ["prod", "uat", "test"].map((environment) => ({
        op: "replace",
        type: "Deployment",
        name: `${site}/${environment}`,
        inputs: {
          stack: site,
          environment,
          ref_type: "tag",
          ref: "v2.4.0",
          observed_sha: "0123456789abcdef0123456789abcdef01234567",
        },
        keys: ["ref"],
      }));
      const failed = i % 100 === 7;
      const events = planEvents(stackName, steps, {
        diagnostics:
          i % 50 === 3
            ? [
                {
                  message: `${site}/prod: live sha abc1234 differs from desired def5678`,
                  severity: "warning",
                },
              ]
            : [],
      });
      return {
        job: { apiStack: site, stackName, destroy: false },
        exitCode: failed ? 1 : 0,
        changes: failed ? {} : { replace: 3 },
        durationMs: 1000,
        events: failed ? [] : events,
        ...(failed ? { failure: `stackwright preview failed: ${site}/prod is locked` } : {}),
      };
    });
  }

  it("keeps counts, failures and warnings, then stacks in order, and says how many are left out and where the rest is", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-summary-"));
    dirs.push(dir);
    const file = path.join(dir, "summary.md");
    const full = path.join(dir, "summary-full.md");
    const input = fleetSummary("Stackwright preview: production", "preview", fleet(), []);
    const told: string[] = [];
    writeSummary(input, file, full, (line) => told.push(line));

    // Where it wrote goes through the caller's line (stderr when stdout carries --json -).
    expect(told).toEqual([
      expect.stringMatching(
        /^summary written to .*summary\.md \(cut to fit a GitHub comment: \d+ stack\(s\) left out\); the full text to .*summary-full\.md$/,
      ),
    ]);
    const text = fs.readFileSync(file, "utf8");
    const whole = fs.readFileSync(full, "utf8");
    expect(whole.length).toBeGreaterThan(65_536);
    expect(text.length).toBeLessThanOrEqual(60_000);
    expect(text.split("\n")[2]).toBe("**3 stacks failed** · 891 redeploy (0 unchanged)");
    for (const failed of ["production.site-007", "production.site-107", "production.site-207"]) {
      expect(text).toContain(`- **${failed}** failed: stackwright preview failed:`);
    }
    expect(text).toContain("- **warning**: site-003/prod: live sha abc1234 differs from desired def5678");
    expect(text).toContain("- **warning**: site-253/prod: live sha abc1234 differs from desired def5678");
    // Stacks in order, a prefix of the full list, each table whole.
    const shown = [...text.matchAll(/^### (site-\d+)$/gm)].map((m) => m[1]);
    const all = [...whole.matchAll(/^### (site-\d+)$/gm)].map((m) => m[1]);
    expect(all).toHaveLength(297);
    expect(shown).toEqual(all.slice(0, shown.length));
    expect(shown.length).toBeGreaterThan(100);
    const lastLine = text.trimEnd().split("\n").at(-1);
    expect(lastLine).toBe(
      `_${297 - shown.length} of 297 stacks left out to stay under 60000 characters (GitHub's comment limit is 65,536); the full text is in ${full}._`,
    );
  });

  it("writes the full text beside a cut summary when the run named no file for it", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-summary-"));
    dirs.push(dir);
    const file = path.join(dir, "summary.md");
    writeSummary(
      fleetSummary("Stackwright preview: production", "preview", fleet(), []),
      file,
      undefined,
      () => undefined,
    );
    const beside = path.join(dir, "summary.full.md");
    expect(fs.readFileSync(file, "utf8").trimEnd()).toMatch(new RegExp(`the full text is in ${beside}\\._$`));
    expect(fs.readFileSync(beside, "utf8")).toContain("### site-299");
  });

  it("leaves a summary that fits as it is", () => {
    const rendered = renderComment(
      summaryOfRuns([{ stackName: STACK, events: [], result: "ok" }], { title: "Stackwright preview: dev" }),
    );
    expect(rendered).toEqual({ text: rendered.full, full: rendered.full, omitted: 0 });
    expect(plannedChanges(previewFromEvents([])).changes).toEqual([]);
  });
});
