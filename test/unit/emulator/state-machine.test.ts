import { describe, expect, it } from "vitest";
import { DEPLOYMENT_STATES } from "../../../src/api";
import { TRANSITIONS, transition } from "../../../src/emulator/state-machine";

describe("deployment state machine", () => {
  it.each([
    ["New", "submit", "Submitted"],
    ["New", "approve", "Approved"],
    ["Submitted", "approve", "Approved"],
    ["Submitted", "reject", "Rejected"],
    ["Rejected", "invalidate", "Invalid"],
    ["Approved", "invalidate", "Invalid"],
    ["Approved", "start", "Queued"],
    ["Queued", "run", "Deploying"],
    ["Deploying", "complete", "Completed"],
    ["Deploying", "fail", "Failed"],
    ["Invalid", "delete", "Deleted"],
  ] as const)("moves %s via %s to %s", (from, via, to) => {
    expect(transition(from, via)).toEqual({ ok: true, to });
  });

  it("refuses every transition from a finished state except deleting Invalid and Rejected", () => {
    for (const from of ["Completed", "Failed", "Deleted"] as const) {
      for (const via of Object.keys(TRANSITIONS) as (keyof typeof TRANSITIONS)[]) {
        expect(transition(from, via).ok).toBe(false);
      }
    }
  });

  it("names the transition and the state when refusing", () => {
    expect(transition("Completed", "start")).toEqual({
      ok: false,
      message: "Cannot start a deployment in state 'Completed' (allowed from: Approved)",
    });
  });

  it("only leads to known states", () => {
    for (const rule of Object.values(TRANSITIONS)) {
      expect(DEPLOYMENT_STATES).toContain(rule.to);
      for (const from of rule.from) expect(DEPLOYMENT_STATES).toContain(from);
    }
  });
});
