import { describe, expect, it } from "vitest";
import { validateSources } from "../../../src/config";
import type { PlannedChange } from "../../../src/cli/summary";
import { clockNow, closedEnvironments, windowRefusals, windowSummary } from "../../../src/cli/window-gate";
import { summaryWithOverride, windowOverrideNote } from "../../../src/program/windows";

const yaml = `stack: acme-web
windows:
  - deny: { schedule: "0 0 20 12 *", duration: 14d, timezone: Europe/London }
environments:
  uat: {}
  prod:
    windows:
      - allow: { schedule: "0 9 * * 1-4", duration: 7h, timezone: Europe/London }
`;
function state() {
  const loaded = validateSources([{ file: "acme-web.yaml", text: yaml }]);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  return loaded.state;
}
const change = (environment: string, kind: PlannedChange["kind"], text: string): PlannedChange => ({
  stack: "acme-web",
  environment,
  kind,
  text,
});

describe("the change-window gate", () => {
  it("finds the environments closed at an instant, with the stack's windows applied to each", () => {
    // Friday evening: prod is outside its allow window, uat has only the stack's deny window.
    expect(closedEnvironments(state(), new Date("2026-11-27T18:00:00Z")).map((c) => c.environment)).toEqual([
      "prod",
    ]);
    // Christmas: the stack's deny window closes both.
    expect(closedEnvironments(state(), new Date("2026-12-22T10:00:00Z")).map((c) => c.environment)).toEqual([
      "uat",
      "prod",
    ]);
    expect(closedEnvironments(state(), new Date("2026-11-24T10:00:00Z"))).toEqual([]);
  });

  it("refuses only closed environments the plan would change, naming the next window", () => {
    const closed = closedEnvironments(state(), new Date("2026-11-27T18:00:00Z"));
    const refusals = windowRefusals(
      [
        change("prod", "deploy", "to tag `v1.5.0`"),
        change("prod", "metadata", "in place (title)"),
        change("uat", "lock", '"freeze"'),
      ],
      closed,
    );
    expect(refusals).toEqual([
      'acme-web/prod is outside its change windows at 2026-11-27 18:00 UTC: outside every allow window (allow "0 9 * * 1-4" Europe/London for 7h); the next window opens Mon 2026-11-30 09:00 UTC+00:00 (Europe/London), 2026-11-30 09:00 UTC. Refused: deploy to tag `v1.5.0`.',
    ]);
  });

  it("never refuses a run that changes nothing, or only titles and fetches", () => {
    const closed = closedEnvironments(state(), new Date("2026-12-22T10:00:00Z"));
    expect(windowRefusals([], closed)).toEqual([]);
    expect(
      windowRefusals([change("prod", "metadata", "in place (title)"), change("—", "fetch", "fetch")], closed),
    ).toEqual([]);
  });

  it("puts refusals and an override into the pull-request summary", () => {
    expect(windowSummary(["a | b"], undefined)).toBe("### Change windows: refused\n\n- a \\| b\n");
    expect(windowSummary([], "overridden")).toBe("### Change windows: overridden\n\noverridden\n");
    expect(windowSummary([], undefined)).toBe("");
  });

  it("reads the clock from STACKWRIGHT_NOW and refuses a value that is no instant", () => {
    expect(clockNow({ STACKWRIGHT_NOW: "2026-03-29T01:30:00Z" }).toISOString()).toBe(
      "2026-03-29T01:30:00.000Z",
    );
    expect(() => clockNow({ STACKWRIGHT_NOW: "tomorrow" })).toThrow(
      /STACKWRIGHT_NOW must be an ISO 8601 instant/,
    );
  });
});

describe("the override in the deployment summary", () => {
  const stack = state().stacks[0]!;
  const prod = stack.environments["prod"]!;
  const friday = {
    STACKWRIGHT_NOW: "2026-11-27T18:00:00Z",
    STACKWRIGHT_WINDOW_OVERRIDE: "INC-42: checkout down",
  };

  it("records the reason where the windows are closed", () => {
    const note = windowOverrideNote(stack, prod, friday);
    expect(note).toBe(
      'Change window overridden at 2026-11-27 18:00 UTC: INC-42: checkout down (outside every allow window (allow "0 9 * * 1-4" Europe/London for 7h))',
    );
    expect(summaryWithOverride("Release 1.5", note)).toBe(`Release 1.5\n\n${note}`);
    expect(summaryWithOverride(undefined, note)).toBe(note);
  });

  it("records nothing where the windows are open or no reason is given", () => {
    expect(
      windowOverrideNote(stack, prod, { ...friday, STACKWRIGHT_NOW: "2026-11-24T10:00:00Z" }),
    ).toBeUndefined();
    expect(windowOverrideNote(stack, prod, { STACKWRIGHT_NOW: friday.STACKWRIGHT_NOW })).toBeUndefined();
    expect(summaryWithOverride("Release 1.5", undefined)).toBe("Release 1.5");
  });
});
