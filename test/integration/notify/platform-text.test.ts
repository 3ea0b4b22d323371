/**
 * What the platform says (a deployment's link, its ref, log lines) reaches Slack and Teams as
 * text: no link but ours, with our own link text, no mention, no formatting; the webhook's JSON
 * keeps it as data.
 */
import MarkdownIt from "markdown-it";
import { afterEach, describe, expect, it } from "vitest";
import { NOTIFY_EVENT_NAMES, NotifyEvent } from "../../../src/api";
import type { SinkConfig } from "../../../src/config";
import { eventContext, sampleEvents, sendEvents, type PlacedSink } from "../../../src/notify";
import { mrkdwnTexts } from "../../helpers/hostile-text";
import { slackProblem, startReceiver, teamsProblem, type Receiver } from "../../helpers/receivers";

/** The link of the probe: a real https URL whose tail, unescaped, spoofs Slack's link text and pings everyone. */
const SPOOF = "https://evil.example/x|*URGENT* approve here: https://evil.example/login> <!channel";
const HOSTILE_LINES = [
  "\u001b[2Jcleared <!here> <@U0123ABC>",
  "[click](https://evil.example/) **bold** <b>x</b>",
];

const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

function sink(kind: SinkConfig["kind"]): PlacedSink {
  return {
    sink: { name: kind, kind, url_env: `${kind.toUpperCase()}_URL`, events: [...NOTIFY_EVENT_NAMES] },
    places: { url_env: "stacks-config/acme-web.yaml:3:5" },
  };
}

/** A failed deployment whose link, ref, message and log lines are the platform's hostile words. */
function hostileFailure(link: string): NotifyEvent {
  const [event] = sampleEvents(["deployment.failed"], "acme-web", "prod", eventContext("production", {}));
  if (event === undefined) throw new Error("no sample event");
  return NotifyEvent.parse({
    ...event,
    summary: `${event.summary} <!channel> *now*`,
    links: { ...event.links, deployment: link },
    details: { ...event.details, ref: "main <!channel>", message: HOSTILE_LINES[0], log_tail: HOSTILE_LINES },
  });
}

/** Every TextBlock text and fact of a Teams card. */
function cardTexts(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) cardTexts(v, out);
  else if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    if (record["type"] === "TextBlock" && typeof record["text"] === "string") out.push(record["text"]);
    if (typeof record["title"] === "string" && typeof record["value"] === "string") {
      out.push(record["title"], record["value"]);
    }
    for (const v of Object.values(record)) cardTexts(v, out);
  }
  return out;
}

async function deliver(event: NotifyEvent): Promise<{ slack: unknown; teams: unknown; webhook: unknown }> {
  const slack = await startReceiver({ check: slackProblem });
  const teams = await startReceiver({ check: teamsProblem });
  const webhook = await startReceiver();
  receivers.push(slack, teams, webhook);
  const results = await sendEvents([event], () => [sink("slack"), sink("teams"), sink("webhook")], {
    SLACK_URL: slack.url,
    TEAMS_URL: teams.url,
    WEBHOOK_URL: webhook.url,
  });
  expect(results.filter((r) => !r.delivered)).toEqual([]);
  const body = (r: Receiver): unknown => JSON.parse(r.received[0]?.body ?? "null");
  return { slack: body(slack), teams: body(teams), webhook: body(webhook) };
}

describe("the platform's words in notifications", () => {
  it("make a Slack message with our link text only, no <!channel> and no spoofed link", async () => {
    const { slack } = await deliver(hostileFailure(SPOOF));
    const texts = mrkdwnTexts(slack);
    expect(texts.length).toBeGreaterThan(3);
    for (const text of texts) {
      expect(text).not.toMatch(/<[!@#]/);
      for (const [link] of text.matchAll(/<[^>]*>/g)) {
        expect(link).toMatch(/^<https:\/\/evil\.example\/x%7C[^|<>\s]*\|Deployment>$/);
      }
      expect(text).not.toContain("\u001b");
    }
    expect(texts.join("\n")).toContain("&lt;!channel&gt;");
  });

  it("make a Teams card whose buttons open only http(s) URLs and whose text has no formatting or link", async () => {
    const { teams } = await deliver(hostileFailure("javascript:alert(document.domain)//"));
    const json = JSON.stringify(teams);
    expect(json).not.toMatch(/"Action\.OpenUrl"[^}]*javascript:/);
    const markdown = new MarkdownIt({ linkify: false });
    for (const text of cardTexts(teams)) {
      expect(markdown.renderInline(text)).not.toMatch(/<(a|strong|em|img|code)\b/);
      expect(text).not.toContain("\u001b");
    }
    // The link is shown as text instead.
    expect(cardTexts(teams).join("\n")).toContain("javascript:alert(document.domain)//");
    const spoofed = await deliver(hostileFailure(SPOOF));
    const actions = JSON.stringify(spoofed.teams).match(/"url":"[^"]*"/g) ?? [];
    expect(actions).toHaveLength(1);
    expect(actions[0]).toMatch(/^"url":"https:\/\/evil\.example\//);
  });

  it("keep the webhook's JSON as the data the platform gave", async () => {
    const event = hostileFailure(SPOOF);
    const { webhook } = await deliver(event);
    expect(webhook).toEqual(JSON.parse(JSON.stringify(event)));
    expect((webhook as NotifyEvent).links.deployment).toBe(SPOOF);
  });
});
