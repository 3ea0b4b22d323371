import { describe, expect, it } from "vitest";
import {
  formatErrorLine,
  unsetSinkVariables,
  validateStackFile,
  validateTargetNotify,
} from "../../../src/config";

const lines = (errors: readonly Parameters<typeof formatErrorLine>[0][]) => errors.map(formatErrorLine);

describe("notification sinks in a stack file", () => {
  it("reads a sink with the failures as its default events", () => {
    const result = validateStackFile(
      "a.yaml",
      "stack: shop\nnotify:\n  - name: releases\n    kind: slack\n    url_env: SLACK_WEBHOOK_RELEASES\n",
    );
    expect(result.errors).toEqual([]);
    expect(result.stack?.notify).toEqual([
      {
        name: "releases",
        kind: "slack",
        url_env: "SLACK_WEBHOOK_RELEASES",
        events: ["deployment.failed", "restore.failed", "restore.outcome_unknown", "run.failed"],
      },
    ]);
  });

  it("places an unknown event, a URL instead of a variable name, a webhook without its secret and a repeated name at their lines", () => {
    const text = [
      "stack: shop",
      "notify:",
      "  - name: audit",
      "    kind: webhook",
      "    url_env: AUDIT_URL",
      "    events: [deployment.failed, deployment.exploded]",
      "  - name: audit",
      "    kind: teams",
      "    url_env: https://example.webhook.office.com/x",
      "    secret_env: TEAMS_SECRET",
      "",
    ].join("\n");
    expect(lines(validateStackFile("a.yaml", text).errors)).toEqual([
      "a.yaml:4:11: notify[0].secret_env: is required for a webhook sink: the name of the variable that holds its signing secret",
      expect.stringMatching(
        /^a\.yaml:6:33: notify\[0\]\.events\[1\]: must be one of: deployment\.succeeded, .*run\.failed; got 'deployment\.exploded'$/,
      ),
      "a.yaml:7:11: notify[1].name: sink 'audit' is already declared at notify[0]; give each sink its own name",
      "a.yaml:9:14: notify[1].url_env: must be the NAME of an environment variable (letters, digits and _), not a URL or a secret; got 'https://example.webhook.office.com/x'",
      "a.yaml:10:5: notify[1].secret_env: is for webhook sinks only; a teams webhook's URL is its secret, so remove it",
    ]);
  });

  it("names the variables a sink needs that are unset (a warning at validate)", () => {
    const result = validateStackFile(
      "a.yaml",
      "stack: shop\nnotify:\n  - { name: w, kind: webhook, url_env: W_URL, secret_env: W_SECRET }\n",
    );
    expect(
      unsetSinkVariables(result.stack?.notify ?? [], { W_URL: "http://127.0.0.1:1/x", W_SECRET: "" }),
    ).toEqual([{ index: 0, key: "secret_env", variable: "W_SECRET", sink: "w" }]);
  });
});

describe("the target's sinks in Pulumi.<target>.yaml", () => {
  it("reads stackwright:notify and ignores the rest of the settings file", () => {
    const text = [
      "config:",
      "  stackwright:apiUrl: http://127.0.0.1:8787",
      "  stackwright:notify:",
      "    - name: oncall",
      "      kind: teams",
      "      url_env: TEAMS_ONCALL_URL",
      "      environments: [prod]",
      "",
    ].join("\n");
    const result = validateTargetNotify("Pulumi.production.yaml", text);
    expect(result.errors).toEqual([]);
    expect(result.sinks[0]).toMatchObject({ name: "oncall", kind: "teams", environments: ["prod"] });
    expect(formatErrorLine(result.locate([0, "url_env"], "x"))).toBe(
      'Pulumi.production.yaml:6:16: config["stackwright:notify"][0].url_env: x',
    );
  });

  it("places its errors in the settings file", () => {
    const text = "config:\n  stackwright:notify:\n    - name: oncall\n      kind: pager\n      url_env: X\n";
    expect(lines(validateTargetNotify("Pulumi.production.yaml", text).errors)).toEqual([
      "Pulumi.production.yaml:4:13: config[\"stackwright:notify\"][0].kind: must be one of: webhook, slack, teams; got 'pager'",
    ]);
  });

  it("has no sinks when the key is absent", () => {
    expect(validateTargetNotify("Pulumi.dev.yaml", "config:\n  stackwright:email: a@b.c\n")).toMatchObject({
      sinks: [],
      errors: [],
    });
  });
});
