import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  NOTIFY_EVENT_NAMES,
  NOTIFY_SCHEMA_FILE,
  NotifyEvent,
  notifyEventJsonSchemaText,
} from "../../../src/api";
import { driftEvents, eventContext, sampleEvents } from "../../../src/notify";

const root = join(__dirname, "../../..");

describe("the notification events' JSON Schema", () => {
  it("is up to date with the zod schema (regenerate: UPDATE_SCHEMA=1 npx vitest run test/unit/notify/event-schema.test.ts)", () => {
    const path = join(root, NOTIFY_SCHEMA_FILE);
    const expected = notifyEventJsonSchemaText();
    if (process.env["UPDATE_SCHEMA"] === "1") writeFileSync(path, expected);
    expect(readFileSync(path, "utf8"), `${NOTIFY_SCHEMA_FILE} is stale; regenerate it`).toBe(expected);
  });

  it("names every event, and the samples of notify test are one valid payload of each", () => {
    const schema = readFileSync(join(root, NOTIFY_SCHEMA_FILE), "utf8");
    const samples = sampleEvents(NOTIFY_EVENT_NAMES, "acme-web", "uat", eventContext("dev", {}));
    expect(samples.map((e) => e.event).sort()).toEqual([...NOTIFY_EVENT_NAMES].sort());
    for (const name of NOTIFY_EVENT_NAMES) expect(schema).toContain(`"${name}"`);
    for (const sample of samples) {
      expect(NotifyEvent.parse(sample)).toEqual(sample);
      expect(sample.test).toBe(true);
    }
  });

  it("gives notify test's deployment samples a link of the stack they name and the failure a real log tail", () => {
    const samples = sampleEvents(
      ["deployment.succeeded", "deployment.failed", "deployment.awaiting_approval"],
      "acme-intranet",
      "test",
      eventContext("dev", {}),
    );
    expect(samples).toHaveLength(3);
    for (const sample of samples) {
      expect(sample.links.deployment).toMatch(
        /^https:\/\/deploy\.example\.com\/naut\/project\/acme-intranet\/environment\/test\/deploy\/\d+$/,
      );
    }
    const failed = samples.find((e) => e.event === "deployment.failed");
    expect(failed?.summary).toBe("acme-intranet/test: deployment 102 failed (Failed)");
    const details = failed?.details ?? {};
    expect("log_tail" in details ? details.log_tail : []).toEqual([
      "Fetching branch main (8f3c2a1)",
      "Running composer install --no-dev --optimize-autoloader",
      "Installing silverstripe/framework (5.2.1)",
      "PHP Fatal error:  Allowed memory size of 536870912 bytes exhausted",
      "Deployment failed: composer install exited with code 255",
    ]);
    expect("message" in details ? details.message : "").toMatch(
      /^Deployment 102 "Sample release" on acme-intranet\/test ended Failed/,
    );
  });

  it("gives the same drift the same id in two runs, so a receiver can drop a repeat", () => {
    const entry = {
      apiStack: "acme-web",
      environment: "prod",
      kind: "deployment",
      desired: "a",
      live: "b",
      message: "m",
    };
    const first = driftEvents({ new: [entry], resolved: [] }, eventContext("production", {}));
    const second = driftEvents({ new: [entry], resolved: [] }, eventContext("production", {}));
    expect(first[0]?.id).toBe(second[0]?.id);
    expect(driftEvents({ new: [], resolved: [entry] }, eventContext("production", {}))[0]?.event).toBe(
      "drift.resolved",
    );
  });
});
