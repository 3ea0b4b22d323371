import type { EngineEvent, OpType } from "@pulumi/pulumi/automation";
import { describe, expect, it } from "vitest";
import { provedNoChange } from "../../../../src/cli/fleet/shortcut";
import { plannedChanges } from "../../../../src/cli/report/summary";

const DEPLOYMENT = "pulumi-nodejs:dynamic/stackwright:Deployment";
const SHA = "a".repeat(40);

function step(
  op: OpType,
  type: string,
  inputs: Record<string, unknown>,
  outputs: Record<string, unknown>,
): EngineEvent {
  const urn = `urn:pulumi:dev.site::stackwright::${type}::r`;
  return {
    sequence: 1,
    timestamp: 0,
    resOutputsEvent: {
      metadata: {
        op,
        urn,
        type,
        provider: "",
        new: { type, urn, id: "1", parent: "", inputs, outputs, provider: "" },
      },
    },
  };
}

// The first `up` after `stackwright import` creates every resource in state; when it only adopted
// finished deployments, it proves the next run as a no-change run would (docs/state.md).
describe("a first up that only adopted deployments", () => {
  const component = step("create", "stackwright:index:Environment", {}, {});
  const adopted = step(
    "create",
    DEPLOYMENT,
    { adopt: "101", ref_type: "sha", observed_sha: SHA },
    { state: "Completed", sha: SHA },
  );

  it("counts as proving the next run when every create is a component, an unlocked lock or an adopted finished deployment", () => {
    const unlocked = step(
      "create",
      "pulumi-nodejs:dynamic/stackwright:EnvironmentLock",
      { locked: false },
      {},
    );
    expect(provedNoChange({ create: 3 }, [component, unlocked, adopted])).toBe(true);
  });

  it("does not when a deployment was created without adopt, adopted while it still ran, or started", () => {
    const created = step("create", DEPLOYMENT, { ref_type: "sha" }, { state: "Completed" });
    const waited = step("create", DEPLOYMENT, { adopt: "7" }, { state: "Submitted" });
    expect(provedNoChange({ create: 2 }, [component, created])).toBe(false);
    expect(provedNoChange({ create: 2 }, [component, waited])).toBe(false);
    // Approved when adopted, so started in this run: the environment now runs another build.
    const started = step(
      "create",
      DEPLOYMENT,
      { adopt: "7", observed_sha: SHA },
      { state: "Completed", sha: "b".repeat(40) },
    );
    expect(provedNoChange({ create: 1 }, [started])).toBe(false);
  });

  it("does not when anything else was created, updated or warned about", () => {
    const lock = step("create", "pulumi-nodejs:dynamic/stackwright:EnvironmentLock", { locked: true }, {});
    expect(provedNoChange({ create: 2 }, [adopted, lock])).toBe(false);
    expect(provedNoChange({ create: 1, update: 1 }, [adopted])).toBe(false);
    const warned: EngineEvent = {
      sequence: 2,
      timestamp: 0,
      diagnosticEvent: { message: "drift", color: "never", severity: "warning" },
    };
    expect(provedNoChange({ create: 1 }, [adopted, warned])).toBe(false);
  });
});

describe("the summary of a preview after import", () => {
  it("shows an adopted deployment as adopt, nothing deploying, and a deployment without adopt as deploy", () => {
    const urn = (name: string) => `urn:pulumi:dev.site::stackwright::${DEPLOYMENT}::${name}`;
    const create = (name: string, inputs: Record<string, unknown>) => ({
      op: "create",
      urn: urn(name),
      newState: { urn: urn(name), type: DEPLOYMENT, inputs },
    });
    const { changes } = plannedChanges({
      steps: [
        create("site/uat", { stack: "site", environment: "uat", ref_type: "sha", ref: "abc", adopt: "101" }),
        create("site/prod", { stack: "site", environment: "prod", ref_type: "branch", ref: "main" }),
      ],
      diagnostics: [],
      changeSummary: {},
    });
    expect(changes.map((c) => [c.environment, c.kind])).toEqual([
      ["uat", "adopt"],
      ["prod", "deploy"],
    ]);
    expect(changes[0]?.text).toContain("nothing deploys");
  });
});
