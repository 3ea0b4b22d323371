import type { EngineEvent } from "@pulumi/pulumi/automation";
import { describe, expect, it } from "vitest";
import { NotifyEvent } from "../../../src/api";
import { ciRunOf, driftEvents, stackRunEvents, type EventContext } from "../../../src/notify";

const ctx: EventContext = {
  target: "production",
  env: {},
  runId: "run-1",
  now: () => new Date("2026-11-25T12:00:00Z"),
};
const TYPE = "pulumi-nodejs:dynamic/stackwright:";
let sequence = 0;

function step(
  kind: "resOutputsEvent" | "resOpFailedEvent",
  type: string,
  name: string,
  op: string,
  values: { inputs?: Record<string, unknown>; outputs?: Record<string, unknown> },
): EngineEvent {
  const urn = `urn:pulumi:production.acme-web::stackwright::${type}::${name}`;
  const metadata = {
    op,
    urn,
    type: `${TYPE}${type}`,
    provider: "",
    new: {
      type: `${TYPE}${type}`,
      urn,
      id: "1",
      parent: "",
      provider: "",
      inputs: values.inputs ?? {},
      outputs: values.outputs ?? {},
    },
  };
  sequence += 1;
  const event = { sequence, timestamp: 0 };
  return (kind === "resOutputsEvent"
    ? { ...event, resOutputsEvent: { metadata } }
    : { ...event, resOpFailedEvent: { metadata, status: 1, steps: 1 } }) as unknown as EngineEvent;
}

function diagnostic(name: string, type: string, message: string): EngineEvent {
  sequence += 1;
  return {
    sequence,
    timestamp: 0,
    diagnosticEvent: {
      urn: `urn:pulumi:production.acme-web::stackwright::${type}::${name}`,
      message,
      color: "never",
      severity: "error",
    },
  } as EngineEvent;
}

const run = (events: EngineEvent[], extra: Partial<Parameters<typeof stackRunEvents>[0]> = {}) =>
  stackRunEvents(
    { apiStack: "acme-web", pulumiStack: "production.acme-web", exitCode: 0, events, ...extra },
    ctx,
  );

describe("the events of a stack's run", () => {
  it("reads a failed deployment's id, link, state and log tail from the provider's error when it recorded no outputs", () => {
    const message =
      'Deployment 77 "Release" on acme-web/prod ended Failed: https://deploy.example.com/naut/project/acme-web/environment/prod/deploy/77. The state records it; the next up deploys again.\nLast 2 lines of its log:\n  Running composer\n  Deployment failed: out of memory';
    const events = run(
      [
        step("resOpFailedEvent", "Deployment", "acme-web/prod", "create", {
          inputs: { stack: "acme-web", environment: "prod", ref: "v1" },
        }),
        diagnostic("acme-web/prod", "Deployment", `1 error occurred:\n\t* ${message}`),
      ],
      { exitCode: 1, failure: "the engine reported an error\nmore" },
    );
    expect(events.map((e) => e.event)).toEqual(["deployment.failed", "run.failed"]);
    expect(events[0]).toMatchObject({
      environment: "prod",
      links: { deployment: "https://deploy.example.com/naut/project/acme-web/environment/prod/deploy/77" },
      details: {
        deployment_id: "77",
        state: "Failed",
        ref: "v1",
        log_tail: ["Running composer", "Deployment failed: out of memory"],
      },
    });
    // The run's reason is the engine's first error about a resource, not the run's generic line.
    expect(events[1]).toMatchObject({
      details: {
        reason: expect.stringMatching(/^Deployment 77 "Release" on acme-web\/prod ended Failed: /),
        exit_code: 1,
      },
    });
    expect(run([], { exitCode: 2, failure: "the API cannot be reached\nmore" })[0]).toMatchObject({
      event: "run.failed",
      details: { reason: "the API cannot be reached", exit_code: 2 },
    });
    for (const e of events) expect(NotifyEvent.parse(e)).toEqual(e);
  });

  it("says nothing of a deployment still running, or of a resource the run left as it was", () => {
    expect(
      run([
        step("resOutputsEvent", "Deployment", "acme-web/uat", "create", {
          outputs: { state: "Deploying", deployment_id: "5" },
        }),
        step("resOutputsEvent", "Deployment", "acme-web/prod", "same", {
          outputs: { state: "Completed", deployment_id: "6" },
        }),
      ]),
    ).toEqual([]);
  });

  it("tells a finished, a failed and an unknown restore apart", () => {
    const events = run(
      [
        step("resOutputsEvent", "SnapshotRestore", "acme-web/uat/ok", "create", {
          inputs: { environment: "uat" },
          outputs: { transfer_id: "9", status: "Finished" },
        }),
        step("resOpFailedEvent", "SnapshotRestore", "acme-web/uat/bad", "create", {
          inputs: { environment: "uat" },
        }),
        diagnostic(
          "acme-web/uat/bad",
          "SnapshotRestore",
          "SnapshotRestore 10 on acme-web/uat ended Failed: disk full",
        ),
        step("resOutputsEvent", "SnapshotRestore", "acme-web/uat/lost", "create", {
          inputs: { environment: "uat" },
          outputs: { transfer_id: "unknown", status: "unknown" },
        }),
      ],
      { unknownRestores: [{ name: "killed", why: "an earlier run stopped" }] },
    );
    expect(events.map((e) => [e.event, "restore" in e.details ? e.details.restore : ""])).toEqual([
      ["restore.outcome_unknown", "killed"],
      ["restore.succeeded", "ok"],
      ["restore.failed", "bad"],
      ["restore.outcome_unknown", "lost"],
    ]);
    expect(events[2]?.summary).toContain("disk full");
  });

  it("gives a deployment's event the same id in every run that reports it (the idempotency key)", () => {
    const made = () => [
      step("resOutputsEvent", "Deployment", "acme-web/uat", "create", {
        outputs: { state: "Completed", deployment_id: "5" },
      }),
    ];
    const first = run(made())[0];
    const second = stackRunEvents(
      { apiStack: "acme-web", pulumiStack: "production.acme-web", exitCode: 0, events: made() },
      { ...ctx, runId: "run-2" },
    )[0];
    expect(first?.id).toBe(second?.id);
  });
});

describe("drift events", () => {
  it("reports new entries as detected and resolved ones as resolved, and nothing else", () => {
    const entry = {
      apiStack: "acme-web",
      environment: "prod",
      kind: "deployment",
      desired: "aaa",
      live: "bbb",
      message: "deployed by hand",
    };
    const events = driftEvents({ new: [entry], resolved: [{ ...entry, environment: "uat" }] }, ctx);
    expect(events.map((e) => `${e.event} ${e.environment}`)).toEqual([
      "drift.detected prod",
      "drift.resolved uat",
    ]);
    expect(events[0]).toMatchObject({
      pulumi_stack: "production.acme-web",
      details: { kind: "deployment", desired: "aaa", live: "bbb" },
    });
    expect(driftEvents({ new: [], resolved: [] }, ctx)).toEqual([]);
  });
});

describe("the CI run's link", () => {
  it("comes from GitHub Actions' or GitLab CI's variables, and is absent elsewhere", () => {
    expect(
      ciRunOf({
        GITHUB_ACTIONS: "true",
        GITHUB_SERVER_URL: "https://github.com",
        GITHUB_REPOSITORY: "acme/sites",
        GITHUB_RUN_ID: "7",
        GITHUB_RUN_ATTEMPT: "2",
      }),
    ).toEqual({ provider: "github", url: "https://github.com/acme/sites/actions/runs/7/attempts/2" });
    expect(
      ciRunOf({ GITLAB_CI: "true", CI_JOB_URL: "https://gitlab.example.com/acme/sites/-/jobs/9" }),
    ).toEqual({
      provider: "gitlab",
      url: "https://gitlab.example.com/acme/sites/-/jobs/9",
    });
    expect(ciRunOf({})).toBeUndefined();
  });
});
