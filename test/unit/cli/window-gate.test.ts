import { clockNow } from "../../../src/cli/kit/clock";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { describe, expect, it } from "vitest";
import { validateSources } from "../../../src/config";
import type { PlannedChange } from "../../../src/cli/report/summary";
import {
  closedEnvironments,
  gatedEngineRun,
  overrideNotice,
  overrideReason,
  windowGate,
  windowRefusals,
  windowSummary,
  type GatedRun,
} from "../../../src/cli/gates/windows";
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
  op: "create",
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

  it("puts the overrides used into the pull-request summary", () => {
    expect(windowSummary(["overridden"])).toBe("\n### Change windows: overridden\n\n- overridden\n");
    expect(windowSummary([])).toBe("");
  });

  it("wants a reason with --override-window", () => {
    expect(overrideReason(undefined)).toBeUndefined();
    expect(overrideReason("  INC-42: checkout down ")).toBe("INC-42: checkout down");
    expect(() => overrideReason("  ")).toThrow(/--override-window needs a reason/);
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

/** The engine event of a planned step of acme-web/prod's deployment (`same` or `replace`). */
function deploymentStep(op: "same" | "replace"): EngineEvent {
  const type = "pulumi-nodejs:dynamic/stackwright:Deployment";
  const urn = `urn:pulumi:dev.acme-web::stackwright::stackwright:index:Stack$${type}::acme-web/prod`;
  const inputs = { stack: "acme-web", environment: "prod", ref_type: "tag", ref: "v1.5.0" };
  const state = { urn, type, inputs, outputs: {}, id: "", parent: "", provider: "" };
  return {
    sequence: 1,
    timestamp: 0,
    resourcePreEvent: { metadata: { op, urn, type, old: state, new: state, provider: "" } },
  };
}

describe("the change-window gate of one stack's run", () => {
  const FRIDAY = new Date("2026-11-27T18:00:00Z");
  const TUESDAY = new Date("2026-11-24T10:00:00Z");
  /** Runs the gate with a stand-in engine; says what ran, in order, and what was said. */
  async function gated(options: {
    at: Date;
    operation: GatedRun["operation"];
    plan: "same" | "replace";
    override?: string;
    stackName?: string;
  }) {
    const ran: string[] = [];
    const said: string[] = [];
    const events: EngineEvent[] = [];
    const run: GatedRun = {
      gate: windowGate(state(), options.at, options.override),
      stackName: options.stackName ?? "dev.acme-web",
      operation: options.operation,
      events,
      plan: () => {
        ran.push("plan");
        return Promise.resolve([deploymentStep(options.plan)]);
      },
      say: (text) => said.push(text),
    };
    const engine = () => {
      ran.push(options.operation);
      if (options.operation === "preview") events.push(deploymentStep(options.plan));
      return Promise.resolve("done");
    };
    const result = await gatedEngineRun(run, engine).catch((e: unknown) => e);
    return { ran, said: said.join(""), result };
  }

  it("refuses an up that would change a closed environment after a plan, before the engine runs", async () => {
    const { ran, result } = await gated({ at: FRIDAY, operation: "up", plan: "replace" });
    expect(ran).toEqual(["plan"]);
    expect(String(result)).toContain(
      "change windows refuse this run, so nothing was changed: acme-web/prod is outside its change windows at 2026-11-27 18:00 UTC",
    );
    expect(String(result)).toContain(
      "the next window opens Mon 2026-11-30 09:00 UTC+00:00 (Europe/London), 2026-11-30 09:00 UTC. Refused: redeploy",
    );
  });

  it("lets an up through that changes nothing in the closed environment", async () => {
    expect(await gated({ at: FRIDAY, operation: "up", plan: "same" })).toMatchObject({
      ran: ["plan", "up"],
      result: "done",
    });
  });

  it("judges a preview on its own plan, without a second one", async () => {
    const refused = await gated({ at: FRIDAY, operation: "preview", plan: "replace" });
    expect(refused.ran).toEqual(["preview"]);
    expect(String(refused.result)).toContain("Refused: redeploy");
    expect(await gated({ at: FRIDAY, operation: "preview", plan: "same" })).toMatchObject({ result: "done" });
  });

  it("plans nothing extra while every window is open, for refresh, or for a stack of another file", async () => {
    expect((await gated({ at: TUESDAY, operation: "up", plan: "replace" })).ran).toEqual(["up"]);
    expect((await gated({ at: FRIDAY, operation: "refresh", plan: "replace" })).ran).toEqual(["refresh"]);
    const other = await gated({ at: FRIDAY, operation: "up", plan: "replace", stackName: "dev.shop" });
    expect(other.ran).toEqual(["up"]);
  });

  it("lets an override through without a plan and says so, with the reason", async () => {
    const { ran, said, result } = await gated({
      at: FRIDAY,
      operation: "up",
      plan: "replace",
      override: "INC-42: checkout down",
    });
    expect(ran).toEqual(["up"]);
    expect(result).toBe("done");
    expect(said).toContain(
      'Change windows overridden (--override-window): "INC-42: checkout down". Closed now: acme-web/prod',
    );
    expect(overrideNotice(windowGate(state(), TUESDAY, "INC-42"), "dev.acme-web")).toBeUndefined();
  });
});
