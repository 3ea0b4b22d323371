import * as fs from "node:fs";
import * as path from "node:path";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import Ajv from "ajv";
import { describe, expect, it } from "vitest";
import { closingLines } from "../../../../src/cli/display/closing";
import { RunDisplay, liveDisplay } from "../../../../src/cli/display/display";
import { RUN_SCHEMA_FILE, runDocument, runJsonSchemaText } from "../../../../src/cli/display/run-document";

const root = path.resolve(__dirname, "..", "..", "..", "..");
const TYPE = "pulumi-nodejs:dynamic/stackwright:";
let sequence = 0;

function urnOf(type: string, name: string): string {
  return `urn:pulumi:dev.acme-web::stackwright::${TYPE}${type}::${name}`;
}

function event(body: Omit<EngineEvent, "sequence" | "timestamp">): EngineEvent {
  return { sequence: sequence++, timestamp: 0, ...body } as EngineEvent;
}

/** The engine's event when a step starts (`planning` in a preview). */
function pre(
  op: string,
  type: string,
  name: string,
  inputs: Record<string, unknown>,
  planning = false,
): EngineEvent {
  const urn = urnOf(type, name);
  return event({
    resourcePreEvent: {
      metadata: {
        op,
        urn,
        type: `${TYPE}${type}`,
        provider: "",
        new: { urn, type: `${TYPE}${type}`, inputs, outputs: {} },
      },
      ...(planning ? { planning } : {}),
    },
  } as unknown as EngineEvent);
}

/** The engine's event when a step has ended, with the resource's outputs. */
function outs(op: string, type: string, name: string, outputs: Record<string, unknown>): EngineEvent {
  const urn = urnOf(type, name);
  return event({
    resOutputsEvent: {
      metadata: {
        op,
        urn,
        type: `${TYPE}${type}`,
        provider: "",
        new: { urn, type: `${TYPE}${type}`, inputs: outputs, outputs },
      },
    },
  } as unknown as EngineEvent);
}

function failed(type: string, name: string): EngineEvent {
  const urn = urnOf(type, name);
  return event({
    resOpFailedEvent: {
      metadata: { op: "create", urn, type: `${TYPE}${type}`, provider: "" },
      status: 0,
      steps: 1,
    },
  } as unknown as EngineEvent);
}

function diag(severity: string, message: string): EngineEvent {
  return event({ diagnosticEvent: { message, color: "never", severity } } as unknown as EngineEvent);
}

const uat = { stack: "acme-web", environment: "uat", ref_type: "branch", ref: "main" };
const prod = { stack: "acme-web", environment: "prod", ref_type: "tag", ref: "v1.4.0", approval: "request" };
const adopted = { stack: "acme-web", environment: "qa", ref_type: "tag", ref: "v1.3.0", adopt: 99 };
const link = (id: number) => `http://127.0.0.1:1/svc/project/acme-web/environment/x/deploys/${id}`;

/** An `up` of one stack: an adopt, a deployment awaiting approval, one that fails with its log's tail. */
const upEvents = (): EngineEvent[] => [
  pre("create", "Deployment", "acme-web/qa", adopted),
  diag("info", "[stackwright] adopting deployment 99 on acme-web/qa (Completed)\n\n"),
  outs("create", "Deployment", "acme-web/qa", {
    ...adopted,
    deployment_id: "99",
    state: "Completed",
    link: link(99),
  }),
  pre("create", "Deployment", "acme-web/prod", prod),
  diag(
    "info",
    `[stackwright] deployment 102 on acme-web/prod waits for approval (${link(102)}); once it is approved, the next up with --refresh starts it\n\n`,
  ),
  outs("create", "Deployment", "acme-web/prod", {
    ...prod,
    deployment_id: "102",
    state: "Submitted",
    link: link(102),
  }),
  pre("create", "Deployment", "acme-web/uat", uat),
  diag("info", `[stackwright] deployment 103 on acme-web/uat created (Queued): ${link(103)}\n\n`),
  diag("info", "[stackwright] deployment 103 on acme-web/uat: Deploying (0s)\n\n"),
  diag("info", "[stackwright] deployment 103 on acme-web/uat | Building 8f3c2a1\n\n"),
  diag("info", "[stackwright] deployment 103 on acme-web/uat: Deploying (3s)\n\n"),
  diag("info", "[stackwright] deployment 103 on acme-web/uat: Failed (4s)\n\n"),
  diag(
    "error",
    // As the engine wraps a resource's error.
    `1 error occurred:\n\t* Deployment 103 "Build" on acme-web/uat ended Failed: ${link(103)}. The state records it; the next up deploys again.\nLast 2 lines of its log:\n  Running composer\n  Deployment failed: out of memory\n`,
  ),
  failed("Deployment", "acme-web/uat"),
  diag("error", "update failed"),
];

function collect(live: boolean, events: readonly EngineEvent[], operation: "up" | "preview" = "up"): string {
  let text = "";
  const display = new RunDisplay({
    operation,
    out: { write: (t) => void (text += t) },
    live,
    columns: () => 200,
  });
  const view = display.stack("acme-web");
  for (const e of events) view.event(e);
  view.end();
  display.close();
  return text;
}

describe("Stackwright's display of a run", () => {
  it("says each made change once it ends, in the summary's words, with the deployment's id and link", () => {
    const text = collect(false, upEvents());
    expect(text).toContain(
      `acme-web/qa  adopt record deployment 99 (tag v1.3.0) as it is; nothing deploys: deployment 99 Completed ${link(99)}\n`,
    );
    expect(text).toContain(`acme-web/prod  deploy to tag v1.4.0: deployment 102 Submitted ${link(102)}\n`);
    expect(text).toContain("acme-web/uat  deploy to branch main: failed\n");
    expect(text).not.toMatch(/\bcreate\b/);
  });

  it("in a CI log says each state of a deployment once, leaves its log lines for the failure, and writes no escape code", () => {
    const text = collect(false, upEvents());
    expect(text.match(/deployment 103: Deploying/g)).toHaveLength(1);
    expect(text).toContain("acme-web/uat  deployment 103: Failed (4s)\n");
    expect(text).not.toContain("| Building");
    expect(text).not.toContain("\x1b");
  });

  it("ends a failed deployment with its error and the last lines of its log, and leaves out the engine's 'update failed'", () => {
    const text = collect(false, upEvents());
    expect(text).toContain(
      'acme-web: error: Deployment 103 "Build" on acme-web/uat ended Failed: ' +
        `${link(103)}. The state records it; the next up deploys again.\n` +
        "    Last 2 lines of its log:\n      Running composer\n      Deployment failed: out of memory\n",
    );
    expect(text).not.toContain("update failed");
  });

  it("on a terminal shows progress as a live line redrawn in place, and keeps the changes' lines", () => {
    const text = collect(true, upEvents());
    expect(text).toContain("\x1b[1A\r\x1b[J");
    expect(text).toContain("acme-web/uat  deployment 103 | Building 8f3c2a1");
    expect(text).toContain(`acme-web/prod  deploy to tag v1.4.0: deployment 102 Submitted ${link(102)}\n`);
    // Nothing is left of the live line at the end.
    expect(text.endsWith("\x1b[1A\r\x1b[J")).toBe(true);
  });

  it("draws live lines only on a terminal that allows colour", () => {
    expect(liveDisplay({ isTTY: true }, {})).toBe(true);
    expect(liveDisplay({ isTTY: true }, { NO_COLOR: "1" })).toBe(false);
    expect(liveDisplay({ isTTY: true }, { TERM: "dumb" })).toBe(false);
    expect(liveDisplay({ isTTY: false }, {})).toBe(false);
    expect(liveDisplay({}, {})).toBe(false);
  });

  it("says a step the engine reported no outputs for once the run has ended, as done only when it succeeded", () => {
    const summary = (result: string) =>
      event({ summaryEvent: { result, resourceChanges: {} } } as unknown as EngineEvent);
    const retire = () => pre("delete", "Deployment", "acme-web/uat", uat);
    expect(collect(false, [retire(), summary("succeeded")])).toBe(
      "acme-web/uat  retire stop managing the deployment (history kept)\n",
    );
    expect(collect(false, [retire(), summary("failed")])).toBe(
      "acme-web/uat  retire stop managing the deployment (history kept): not finished\n",
    );
  });

  it("says a preview's planned changes as they are planned", () => {
    const text = collect(false, [pre("create", "Deployment", "acme-web/uat", uat, true)], "preview");
    expect(text).toBe("acme-web/uat  deploy to branch main\n");
  });
});

describe("the end of a run", () => {
  const run = (events: EngineEvent[]) => ({ job: { stackName: "dev.acme-web" }, events });

  it("counts the changes in the summary's words and says what awaits approval with the user's command", () => {
    const lines = closingLines([run(upEvents())], {
      operation: "up",
      upRefresh: "npx stackwright up --refresh",
      showOutputs: false,
    });
    expect(lines).toEqual([
      "2 deploy · 1 adopt (0 unchanged)",
      "1 awaiting approval: approve it, then run npx stackwright up --refresh",
      `  acme-web/prod  deployment 102 Submitted ${link(102)}`,
    ]);
  });

  it("says a deployment still awaiting approval instead of 'no changes' when nothing changed", () => {
    const same = [
      pre("same", "Deployment", "acme-web/prod", prod),
      outs("same", "Deployment", "acme-web/prod", {
        ...prod,
        deployment_id: "102",
        state: "Submitted",
        link: link(102),
      }),
    ];
    const lines = closingLines([run(same)], { operation: "up", upRefresh: "U", showOutputs: false });
    expect(lines.join("\n")).not.toContain("no changes");
    expect(lines[0]).toBe("1 awaiting approval: approve it, then run U");
  });
});

describe("the run document (--json)", () => {
  it(`${RUN_SCHEMA_FILE} is up to date with the zod schema (regenerate: UPDATE_SCHEMA=1 npx vitest run test/unit/cli/display/display.test.ts)`, () => {
    const target = path.join(root, RUN_SCHEMA_FILE);
    if (process.env["UPDATE_SCHEMA"] === "1") fs.writeFileSync(target, runJsonSchemaText());
    expect(fs.readFileSync(target, "utf8"), `${RUN_SCHEMA_FILE} is stale`).toBe(runJsonSchemaText());
  });

  it("says per stack its result, changes in the summary's words, deployments with ids and links, and errors; and validates", () => {
    const document = runDocument("up", "dev", 1, [
      {
        stackName: "dev.acme-web",
        apiStack: "acme-web",
        result: "failed",
        exitCode: 1,
        durationMs: 1234.5,
        engineReason: "--full runs every engine",
        events: upEvents(),
      },
    ]);
    expect(document.counts).toEqual({ adopt: 1, deploy: 2 });
    expect(document.awaiting_approval).toBe(1);
    const stack = document.stacks[0];
    expect(stack?.changes.map((c) => `${c.where} ${c.change}`)).toEqual([
      "acme-web/qa adopt",
      "acme-web/prod deploy",
      "acme-web/uat deploy",
    ]);
    expect(stack?.deployments.map((d) => [d.id, d.state, d.link])).toEqual([
      ["99", "Completed", link(99)],
      ["102", "Submitted", link(102)],
    ]);
    expect(stack?.errors[0]).toContain("Deployment failed: out of memory");
    const valid = new Ajv({ strict: false }).compile(
      JSON.parse(fs.readFileSync(path.join(root, RUN_SCHEMA_FILE), "utf8")),
    );
    expect(valid(JSON.parse(JSON.stringify(document))), JSON.stringify(valid.errors)).toBe(true);
  });
});
