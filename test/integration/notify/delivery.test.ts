import { createHmac, timingSafeEqual } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { NOTIFY_EVENT_NAMES, NotifyEvent } from "../../../src/api";
import type { SinkConfig } from "../../../src/config";
import {
  deliverAll,
  driftEvents,
  eventContext,
  retryAfterMs,
  sampleEvents,
  sendEvents,
  sinkRequest,
  type PlacedSink,
} from "../../../src/notify";
import { slackProblem, startReceiver, teamsProblem, type Receiver } from "../../helpers/receivers";

const SECRET = "whsec-test-0123456789";
const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
async function receiver(options: Parameters<typeof startReceiver>[0] = {}): Promise<Receiver> {
  const r = await startReceiver(options);
  receivers.push(r);
  return r;
}

/** The documented verification (docs/notifications.md): HMAC-SHA256 of the raw body with the secret. */
function verify(secret: string, rawBody: string, header: string | undefined): boolean {
  const expected = Buffer.from(`sha256=${createHmac("sha256", secret).update(rawBody).digest("hex")}`);
  const given = Buffer.from(header ?? "");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const ctx = eventContext("production", {});
const failed = () => sampleEvents(["deployment.failed"], "acme-web", "prod", ctx)[0] as NotifyEvent;

function sink(kind: SinkConfig["kind"], name = kind): PlacedSink {
  return {
    sink: {
      name,
      kind,
      url_env: `${name.toUpperCase()}_URL`,
      ...(kind === "webhook" ? { secret_env: `${name.toUpperCase()}_SECRET` } : {}),
      events: [...NOTIFY_EVENT_NAMES],
    },
    places: { url_env: "stacks-config/acme-web.yaml:3:5" },
  };
}

const fast = { backoffBaseMs: 10, backoffCapMs: 50 };

describe("notification delivery to real receivers", () => {
  it("signs a webhook's raw body with the secret, and a receiver verifies it with the documented snippet", async () => {
    const hook = await receiver();
    const event = failed();
    const [result] = await sendEvents([event], () => [sink("webhook")], {
      WEBHOOK_URL: hook.url,
      WEBHOOK_SECRET: SECRET,
    });
    expect(result).toMatchObject({ delivered: true, attempts: 1, detail: "HTTP 200" });
    const got = hook.received[0];
    expect(got).toBeDefined();
    if (got === undefined) return;
    expect(verify(SECRET, got.body, got.headers["x-stackwright-signature"])).toBe(true);
    expect(verify("another secret", got.body, got.headers["x-stackwright-signature"])).toBe(false);
    expect(got.headers["x-stackwright-timestamp"]).toMatch(/^\d{10}$/);
    expect(got.headers["x-stackwright-event"]).toBe("deployment.failed");
    expect(got.headers["idempotency-key"]).toBe(event.id);
    expect(NotifyEvent.parse(JSON.parse(got.body))).toEqual(event);
  });

  it("retries a 500 and delivers once, with the same idempotency key, body and signature on both attempts", async () => {
    const hook = await receiver();
    hook.script({ status: 500 });
    const [result] = await sendEvents(
      [failed()],
      () => [sink("webhook")],
      { WEBHOOK_URL: hook.url, WEBHOOK_SECRET: SECRET },
      fast,
    );
    expect(result).toMatchObject({ delivered: true, attempts: 2 });
    expect(hook.received.map((r) => r.status)).toEqual([500, 200]);
    expect(hook.received.filter((r) => r.status === 200)).toHaveLength(1);
    const [first, second] = hook.received;
    expect(second?.headers["idempotency-key"]).toBe(first?.headers["idempotency-key"]);
    expect(second?.body).toBe(first?.body);
    expect(second?.headers["x-stackwright-signature"]).toBe(first?.headers["x-stackwright-signature"]);
  });

  it("retries after a connection reset and after a 429 that says when (Retry-After)", async () => {
    const hook = await receiver();
    hook.script("reset", { status: 429, headers: { "retry-after": "0" } }, { status: 503 });
    const [result] = await sendEvents(
      [failed()],
      () => [sink("webhook")],
      { WEBHOOK_URL: hook.url, WEBHOOK_SECRET: SECRET },
      fast,
    );
    expect(result).toMatchObject({ delivered: true, attempts: 4 });
    expect(hook.received.map((r) => r.status)).toEqual([0, 429, 503, 200]);
  });

  it("gives up at once when Retry-After asks for longer than the delivery bound, and says so", async () => {
    const hook = await receiver({ fallback: { status: 429, headers: { "retry-after": "3600" } } });
    const [result] = await sendEvents(
      [failed()],
      () => [sink("webhook")],
      { WEBHOOK_URL: hook.url, WEBHOOK_SECRET: SECRET },
      { ...fast, boundMs: 5_000 },
    );
    expect(result?.delivered).toBe(false);
    expect(result?.attempts).toBe(1);
    expect(result?.detail).toMatch(/HTTP 429; the next attempt .* would pass the delivery bound \(5 s\)/);
    expect(retryAfterMs("120")).toBe(120_000);
    expect(retryAfterMs(new Date(Date.now() + 60_000).toUTCString())).toBeGreaterThan(50_000);
    expect(retryAfterMs("soon")).toBeUndefined();
  });

  it("does not retry a 4xx other than 408 and 429", async () => {
    const hook = await receiver({ fallback: { status: 404 } });
    const [result] = await sendEvents([failed()], () => [sink("webhook")], {
      WEBHOOK_URL: hook.url,
      WEBHOOK_SECRET: SECRET,
    });
    expect(result).toMatchObject({ delivered: false, attempts: 1, detail: "HTTP 404" });
  });

  it("stops at the bound when a receiver never answers, costing at most the bound, and names no URL", async () => {
    const hook = await receiver({ fallback: "hang" });
    const bound = 1_500;
    const started = performance.now();
    const results = await sendEvents(
      sampleEvents(["deployment.failed", "run.failed", "deployment.succeeded"], "acme-web", "prod", ctx),
      () => [sink("webhook")],
      { WEBHOOK_URL: hook.url, WEBHOOK_SECRET: SECRET },
      { ...fast, boundMs: bound, concurrency: 2 },
    );
    const elapsed = performance.now() - started;
    // An upper bound, not a timing: the bound plus the moment it takes to abort the sockets.
    expect(elapsed).toBeLessThan(bound + 2_000);
    expect(results).toHaveLength(3);
    for (const r of results) {
      expect(r.delivered).toBe(false);
      expect(r.detail).not.toContain("127.0.0.1");
      expect(r.detail).not.toContain(hook.url);
    }
  });

  it("reports a sink whose variable is unset as not sent, without sending anything", async () => {
    const results = await sendEvents([failed()], () => [sink("slack")], {});
    expect(results).toEqual([
      expect.objectContaining({
        delivered: false,
        attempts: 0,
        detail: "not sent: the variable SLACK_URL is not set",
      }),
    ]);
  });

  it("sends every event in Slack's incoming-webhook format and as a Teams Adaptive Card, which shaped receivers accept", async () => {
    const slack = await receiver({ check: slackProblem });
    const teams = await receiver({ check: teamsProblem });
    const events = sampleEvents(NOTIFY_EVENT_NAMES, "acme-web", "prod", ctx);
    const results = await sendEvents(events, () => [sink("slack"), sink("teams")], {
      SLACK_URL: slack.url,
      TEAMS_URL: teams.url,
    });
    expect(results.filter((r) => !r.delivered)).toEqual([]);
    expect(slack.received).toHaveLength(NOTIFY_EVENT_NAMES.length);
    expect(teams.received).toHaveLength(NOTIFY_EVENT_NAMES.length);
    const failure = slack.received.find((r) => r.headers["x-stackwright-event"] === "deployment.failed");
    expect(JSON.parse(failure?.body ?? "{}")).toMatchObject({
      text: expect.stringContaining("Deployment failed"),
    });
    // A wrong shape is refused by the receivers (they check what the services check).
    expect(slackProblem({ blocks: [] })).toBe("no_text");
    expect(teamsProblem({ type: "message", attachments: [] })).toBe("one attachment expected");
  });

  it("sends drift detected once, nothing while it stays, and resolved once, over three drift runs", async () => {
    const hook = await receiver();
    const env = { WEBHOOK_URL: hook.url, WEBHOOK_SECRET: SECRET };
    const entry = {
      apiStack: "acme-web",
      environment: "prod",
      kind: "deployment",
      desired: "3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f",
      live: "0123456789abcdef0123456789abcdef01234567",
      message: "prod runs a build deployed by hand",
    };
    // The drift command's memory says: new, then still drifted (not in the changes), then resolved.
    for (const changes of [
      { new: [entry], resolved: [] },
      { new: [], resolved: [] },
      { new: [], resolved: [entry] },
    ]) {
      await sendEvents(driftEvents(changes, eventContext("production", {})), () => [sink("webhook")], env);
    }
    const got = hook.received.map((r) => NotifyEvent.parse(JSON.parse(r.body)));
    expect(got.map((e) => e.event)).toEqual(["drift.detected", "drift.resolved"]);
    expect(got[0]).toMatchObject({ stack: "acme-web", environment: "prod", details: { live: entry.live } });
    for (const r of hook.received)
      expect(verify(SECRET, r.body, r.headers["x-stackwright-signature"])).toBe(true);
  });

  it("keeps the same bytes for every attempt of a request (built once)", () => {
    const event = failed();
    expect(sinkRequest("webhook", event, SECRET)).toEqual(sinkRequest("webhook", event, SECRET));
  });

  it("has at most `concurrency` requests open at once: two hanging requests hold back the rest until the bound", async () => {
    const hook = await receiver({ fallback: "hang" });
    const jobs = sampleEvents(NOTIFY_EVENT_NAMES, "acme-web", "prod", ctx).map((event) => ({
      sink: "w",
      kind: "webhook" as const,
      url: hook.url,
      event: event.event,
      eventId: event.id,
      request: sinkRequest("webhook", event, SECRET),
    }));
    const results = await deliverAll(jobs, { ...fast, concurrency: 2, boundMs: 600, maxAttempts: 1 });
    expect(
      hook.received.length,
      JSON.stringify({ results, received: hook.received.map((r) => r.path) }),
    ).toBe(2);
    expect(results.filter((r) => r.attempts === 0)).toHaveLength(jobs.length - 2);
  });
});
