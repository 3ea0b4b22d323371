import { describe, expect, it } from "vitest";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { factsFromEvents, factsSummary } from "../../../../src/cli/report/facts";

const facts = {
  "acme-web": {
    manifest_release: { label: "2026.11.2", released: "2025-11-19T00:00:00Z" },
    environments: {
      prod: {
        deployment: {
          sha: "3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f",
          ref: "tag v1.4.0",
          title: "Release 1.4.0",
          deployer: "release@example.com",
          deployed_at: "2025-01-01T01:00:00Z",
        },
        url: "https://www.acme.example.com",
        domains: [
          { name: "www.acme.example.com", primary: true, ssl: true, www: true },
          { name: "acme.example.com", primary: false, ssl: true, www: false },
        ],
        framework: "5.2.1",
        modules: { "silverstripe/framework": "5.2.1" },
        configuration: { names: ["APP_ENV"], pending_changes: true },
        whitelist: { enabled: true, entries: 1, pending_changes: false },
      },
    },
  },
};

describe("the facts section of the pull-request summary", () => {
  it("reads the stack's facts output from the engine's events and shows one row per fact", () => {
    const events = [
      { resOutputsEvent: { metadata: { type: "pulumi:pulumi:Stack", new: { outputs: { facts } } } } },
    ] as unknown as EngineEvent[];
    expect(factsSummary(factsFromEvents(events))).toBe(
      [
        "",
        "### Facts",
        "",
        "| where | fact | value |",
        "|---|---|---|",
        "| acme-web | manifest release | `2026.11.2`, 2025-11-19T00:00:00Z |",
        '| acme-web/prod | live build | `3c4d5e6` (tag v1.4.0) "Release 1.4.0" by release\\@\u2060example.com, 2025-01-01T01:00:00Z |',
        "| acme-web/prod | url | <https://www.acme.example.com/> |",
        "| acme-web/prod | domains | www\u2060.acme.example.com (primary, ssl, www); acme.example.com (ssl) |",
        "| acme-web/prod | framework | 5.2.1 |",
        "| acme-web/prod | modules | silverstripe/framework 5.2.1 |",
        "| acme-web/prod | configuration | APP\\_ENV (changes wait for a deployment) |",
        "| acme-web/prod | whitelist | on, 1 entry |",
        "",
      ].join("\n"),
    );
  });

  it("is empty when no file asks for a fact or the output is not known yet", () => {
    expect(factsSummary(undefined)).toBe("");
    const unknown = [
      {
        resOutputsEvent: {
          metadata: {
            type: "pulumi:pulumi:Stack",
            new: { outputs: { facts: "04da6b54-80e4-46f7-96ec-b56ff0331ba9" } },
          },
        },
      },
    ] as unknown as EngineEvent[];
    expect(factsFromEvents(unknown)).toBeUndefined();
  });
});
