/**
 * What each kind of sink receives for an event: the signed JSON of a `webhook`, a Slack
 * incoming-webhook message (blocks with a plain-text fallback), a Teams Adaptive Card. The body is
 * built once per event and sink, so every retry sends the same bytes, signature and key.
 */
import { createHmac } from "node:crypto";
import type { NotifyEvent, SinkKind } from "../api";
import { httpUrl, mrkdwnText, oneLineText, slackLink, teamsText } from "../safe-text";

/** The request a sink gets, except the per-attempt timestamp header. */
export interface SinkRequest {
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

export const SIGNATURE_HEADER = "x-stackwright-signature";
export const TIMESTAMP_HEADER = "x-stackwright-timestamp";
export const EVENT_HEADER = "x-stackwright-event";
export const IDEMPOTENCY_HEADER = "idempotency-key";

/** `sha256=<hex HMAC-SHA256 of the raw body with the secret>`, the value of the signature header. */
export function signatureOf(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body, "utf8").digest("hex")}`;
}

/** The request for one sink: its body and headers (the key is the event's stable id). */
export function sinkRequest(kind: SinkKind, event: NotifyEvent, secret: string | undefined): SinkRequest {
  const common = {
    "content-type": "application/json; charset=utf-8",
    "user-agent": "stackwright-notify/1",
    [EVENT_HEADER]: event.event,
    [IDEMPOTENCY_HEADER]: event.id,
  };
  if (kind === "webhook") {
    const body = JSON.stringify(event);
    return {
      body,
      headers: {
        ...common,
        ...(secret === undefined ? {} : { [SIGNATURE_HEADER]: signatureOf(secret, body) }),
      },
    };
  }
  return {
    body: JSON.stringify(kind === "slack" ? slackMessage(event) : teamsMessage(event)),
    headers: common,
  };
}

const TITLES: Readonly<Record<NotifyEvent["event"], string>> = {
  "deployment.succeeded": "Deployment succeeded",
  "deployment.failed": "Deployment failed",
  "deployment.awaiting_approval": "Deployment awaiting approval",
  "verification.failed": "Verification failed",
  "verification.rolled_back": "Verification failed, rolled back",
  "restore.succeeded": "Restore succeeded",
  "restore.failed": "Restore failed",
  "restore.outcome_unknown": "Restore outcome unknown",
  "drift.detected": "Drift detected",
  "drift.resolved": "Drift resolved",
  "window.overridden": "Change window overridden",
  "lock.recovered": "Stale lock recovered",
  "run.failed": "Run failed",
};

/** The event's title, e.g. `Deployment failed: acme-web/prod`. */
export function titleOf(event: NotifyEvent): string {
  const where = event.environment === null ? event.stack : `${event.stack}/${event.environment}`;
  return `${event.test ? "[test] " : ""}${TITLES[event.event]}: ${where}`;
}

/** Label and value pairs shown in chat messages. */
export function factsOf(event: NotifyEvent): [string, string][] {
  const facts: [string, string][] = [
    ["Target", event.target],
    ["Stack", event.stack],
  ];
  if (event.environment !== null) facts.push(["Environment", event.environment]);
  const d = event.details;
  const add = (label: string, value: unknown) => {
    if (typeof value === "string" && value !== "") facts.push([label, value]);
    else if (typeof value === "number") facts.push([label, String(value)]);
  };
  if ("deployment_id" in d) {
    add("Deployment", d.deployment_id);
    add("State", d.state);
    add("Sha", d.sha);
    add("Ref", d.ref);
  }
  if ("checked_deployment_id" in d) {
    add("Deployment", d.checked_deployment_id);
    add("Sha", d.sha);
    add("Check", d.check);
    if (d.answer !== null)
      add("Answer", `${d.answer.url}: ${d.answer.status ?? d.answer.error ?? "no answer"}`);
    if (d.rolled_back_to !== null) {
      add(
        "Rolled back to",
        `${d.rolled_back_to.sha} (deployment ${d.rolled_back_to.deployment_id}, ${d.rolled_back_to.result})`,
      );
    }
    add("Make the file match", d.rollback_command);
  }
  if ("transfer_id" in d) {
    add("Restore", d.restore);
    add("Transfer", d.transfer_id);
    add("Status", d.status);
  }
  if ("kind" in d) {
    add("Drifted", d.kind);
    add("Desired", d.desired);
    add("Live", d.live);
  }
  if ("environments" in d) {
    add("Reason", d.reason);
    add("Environments", d.environments.join(", "));
  }
  if ("holder" in d) {
    add("Holder", d.holder);
    add("Why stale", d.reason);
  }
  if ("exit_code" in d) {
    add("Reason", d.reason);
    add("Exit code", d.exit_code);
  }
  add("Time", event.time);
  return facts;
}

function logTail(event: NotifyEvent): string[] {
  return "log_tail" in event.details ? event.details.log_tail : [];
}

function links(event: NotifyEvent): { label: string; url: string }[] {
  const out: { label: string; url: string }[] = [];
  if (event.links.deployment !== null) out.push({ label: "Deployment", url: event.links.deployment });
  if (event.links.ci_run !== null) out.push({ label: "CI run", url: event.links.ci_run });
  return out;
}

/** Cuts `text` to `max` characters, marking the cut. */
function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * Slack's mrkdwn escapes (`&`, `<`, `>`: docs.slack.dev, "Formatting text") for every value:
 * names, summaries, reasons and log lines may hold the platform's words, which must not link or
 * mention.
 */
const esc = (text: string) => mrkdwnText(text);

/**
 * A Slack incoming-webhook message: `text` is the plain-text fallback (notifications, clients
 * without blocks); `blocks` a header, the summary, the facts, the log tail and the links. Lengths
 * stay within Slack's limits (header 150, section text 3000, 10 fields of 2000).
 */
export function slackMessage(event: NotifyEvent): Record<string, unknown> {
  const tail = logTail(event);
  const facts = factsOf(event);
  const blocks: Record<string, unknown>[] = [
    {
      type: "header",
      text: { type: "plain_text", text: cut(oneLineText(titleOf(event)), 150), emoji: false },
    },
    {
      type: "section",
      text: { type: "mrkdwn", text: cut(mrkdwnText(event.summary, { multiLine: true }), 3000) },
    },
  ];
  for (let i = 0; i < facts.length; i += 10) {
    blocks.push({
      type: "section",
      fields: facts
        .slice(i, i + 10)
        .map(([label, value]) => ({ type: "mrkdwn", text: cut(`*${esc(label)}*\n${esc(value)}`, 2000) })),
    });
  }
  if (tail.length > 0) {
    blocks.push({
      type: "section",
      text: {
        type: "mrkdwn",
        text: cut(
          `*Last lines of the log*\n\`\`\`${mrkdwnText(tail.join("\n"), { multiLine: true })}\`\`\``,
          3000,
        ),
      },
    });
  }
  const linkList = links(event);
  if (linkList.length > 0) {
    blocks.push({
      type: "context",
      // A link only to an http(s) URL, with our label; any other is shown as text.
      elements: linkList.map((l) => ({ type: "mrkdwn", text: slackLink(l.url, l.label) })),
    });
  }
  // The fallback `text` is mrkdwn too.
  return { text: cut(esc(`${titleOf(event)}. ${event.summary}`), 3000), blocks };
}

/**
 * A Teams message with one Adaptive Card (version 1.4, what Teams' incoming webhooks and
 * Workflows render): title, summary, a FactSet, the log tail in monospace, and a button per link.
 */
export function teamsMessage(event: NotifyEvent): Record<string, unknown> {
  const tail = logTail(event);
  const failed = /failed|unknown/.test(event.event);
  const body: Record<string, unknown>[] = [
    // Text blocks and facts render a Markdown subset: every value is escaped (src/safe-text).
    {
      type: "TextBlock",
      text: teamsText(titleOf(event)),
      weight: "Bolder",
      size: "Medium",
      wrap: true,
      ...(failed ? { color: "Attention" } : {}),
    },
    { type: "TextBlock", text: teamsText(event.summary, { multiLine: true }), wrap: true },
    {
      type: "FactSet",
      facts: [
        ...factsOf(event),
        // A link that is not http(s) is no button: its URL is shown as text.
        ...links(event)
          .filter((l) => httpUrl(l.url) === null)
          .map((l): [string, string] => [`${l.label} link`, l.url]),
      ].map(([title, value]) => ({ title: teamsText(title), value: teamsText(value) })),
    },
  ];
  if (tail.length > 0) {
    body.push({
      type: "TextBlock",
      text: teamsText(tail.join("\n"), { multiLine: true }),
      fontType: "Monospace",
      wrap: true,
      isSubtle: true,
    });
  }
  return {
    type: "message",
    summary: oneLineText(titleOf(event)),
    attachments: [
      {
        contentType: "application/vnd.microsoft.card.adaptive",
        contentUrl: null,
        content: {
          $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
          type: "AdaptiveCard",
          version: "1.4",
          body,
          actions: links(event).flatMap((l) => {
            const url = httpUrl(l.url);
            return url === null ? [] : [{ type: "Action.OpenUrl", title: l.label, url }];
          }),
        },
      },
    ],
  };
}
