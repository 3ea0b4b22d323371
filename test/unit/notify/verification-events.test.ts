import type { EngineEvent } from "@pulumi/pulumi/automation";
import { describe, expect, it } from "vitest";
import { NOTIFY_EVENT_NAMES, NotifyEvent } from "../../../src/api";
import { sampleEvents, sinkRequest, stackRunEvents, type EventContext } from "../../../src/notify";
import { failedVerification, verification } from "../../helpers/verifications";

const ctx: EventContext = {
  target: "production",
  env: {},
  runId: "run-1",
  now: () => new Date("2026-11-25T12:00:00Z"),
};
const TYPE = "pulumi-nodejs:dynamic/stackwright:Deployment";
const FAILED = "8f3c2a1d9e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a";
const BEFORE = "2b7e151628aed2a6abf7158809cf4f3c762e7160";
const LINK = "https://deploy.example.com/naut/project/acme-web/environment/prod/deploy/12";

function deployed(outputs: Record<string, unknown>): EngineEvent[] {
  const urn = `urn:pulumi:production.acme-web::stackwright::${TYPE}::acme-web/prod`;
  const state = {
    type: TYPE,
    urn,
    id: "12",
    parent: "",
    provider: "",
    inputs: { environment: "prod" },
    outputs,
  };
  return [
    {
      sequence: 1,
      timestamp: 0,
      resOutputsEvent: { metadata: { op: "update", urn, type: TYPE, provider: "", new: state } },
    } as EngineEvent,
  ];
}

const run = (outputs: Record<string, unknown>) =>
  stackRunEvents(
    { apiStack: "acme-web", pulumiStack: "production.acme-web", exitCode: 1, events: deployed(outputs) },
    ctx,
  ).filter((e) => e.event.startsWith("verification."));

const base = {
  stack: "acme-web",
  environment: "prod",
  deployment_id: "12",
  state: "Completed",
  sha: FAILED,
  link: LINK,
};

describe("the verification events of a run", () => {
  it("sends verification.failed with the check's answer and the deployment's link", () => {
    const [event, ...rest] = run({ ...base, verification: failedVerification(FAILED, "12") });
    expect(rest).toEqual([]);
    expect(NotifyEvent.parse(event)).toMatchObject({
      event: "verification.failed",
      environment: "prod",
      links: { deployment: LINK },
      summary:
        'acme-web/prod: deployment 12 (8f3c2a1) failed verification: check 1 (/health): expected status 200; got 503 "Down for maintenance" in 12 ms',
      details: {
        checked_deployment_id: "12",
        sha: FAILED,
        check: "check 1 (/health): expected status 200",
        answer: { status: 503, body_excerpt: "Down for maintenance" },
        rolled_back_to: null,
        rollback_command: null,
      },
    });
  });

  it("sends verification.rolled_back with the rollback --branch command that makes the file match", () => {
    const rolledBack = failedVerification(FAILED, "12", {
      result: "rolled_back",
      rolled_back_to: { deployment_id: "9", sha: BEFORE, result: "passed" },
    });
    const [event] = run({ ...base, verification: rolledBack });
    expect(event?.event).toBe("verification.rolled_back");
    const command =
      "stackwright rollback acme-web prod --to 9 --target production --branch rollback/acme-web-prod-2b7e151";
    expect(event?.details).toMatchObject({
      rolled_back_to: { deployment_id: "9", sha: BEFORE, result: "passed" },
      rollback_command: command,
    });
    expect(event?.summary).toContain(`rolled back to 2b7e151; make the file match: ${command}`);
  });

  it("sends verification.failed when the failed check fails the deployment's step, its outputs kept with the failure", () => {
    const [ok] = deployed({ ...base, verification: failedVerification(FAILED, "12") }) as unknown as {
      resOutputsEvent: { metadata: unknown };
    }[];
    const failedStep = {
      sequence: 2,
      timestamp: 0,
      resOpFailedEvent: { metadata: ok?.resOutputsEvent.metadata, status: 1, steps: 1 },
    } as unknown as EngineEvent;
    const events = stackRunEvents(
      {
        apiStack: "acme-web",
        pulumiStack: "production.acme-web",
        exitCode: 1,
        failure: "the check failed",
        events: [failedStep],
      },
      ctx,
    );
    expect(events.map((e) => e.event)).toEqual(["deployment.failed", "verification.failed", "run.failed"]);
  });

  it("sends nothing about a verification that passed, or a deployment without one", () => {
    expect(run({ ...base, verification: verification(FAILED, "12") })).toEqual([]);
    expect(run(base)).toEqual([]);
  });

  it("shows the site's answer as text in Slack and Teams, never as their markup", () => {
    const hostile = failedVerification(FAILED, "12", {
      answer: {
        url: "https://www.example.com/health",
        status: 500,
        latency_ms: 3,
        body_excerpt: "<!channel> *boom* [click](https://evil.example)",
        error: null,
      },
    });
    const [event] = run({ ...base, verification: hostile });
    if (event === undefined) throw new Error("no event");
    const slack = sinkRequest("slack", event, undefined).body;
    expect(slack).not.toContain("<!channel>");
    const teams = sinkRequest("teams", event, undefined).body;
    expect(teams).not.toContain("[click](https://evil.example)");
  });

  it("has a sample of each for notify test", () => {
    const samples = sampleEvents(NOTIFY_EVENT_NAMES, "acme-web", "prod", ctx);
    expect(samples.map((e) => e.event)).toEqual(
      expect.arrayContaining(["verification.failed", "verification.rolled_back"]),
    );
    expect(samples.length).toBe(NOTIFY_EVENT_NAMES.length);
  });
});
