import { createHmac } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { NotifyEvent } from "../../../src/api";
import { deliverAll, eventContext, sampleEvents, sinkRequest } from "../../../src/notify";
import { startReceiver, type Answer } from "../../helpers/receivers";

const SECRET = "whsec-property";
const event = sampleEvents(
  ["deployment.failed"],
  "acme-web",
  "prod",
  eventContext("production", {}),
)[0] as NotifyEvent;

const answer: fc.Arbitrary<Answer> = fc.oneof(
  fc.constantFrom<Answer>({ status: 200 }, { status: 202 }, { status: 204 }),
  fc.constantFrom<Answer>({ status: 500 }, { status: 502 }, { status: 503 }, { status: 408 }),
  fc.constant<Answer>({ status: 429, headers: { "retry-after": "0" } }),
  fc.constantFrom<Answer>({ status: 400 }, { status: 404 }, { status: 410 }),
  fc.constant<Answer>("reset"),
);

const retried = (a: Answer) =>
  a === "reset" || (typeof a === "object" && (a.status >= 500 || a.status === 408 || a.status === 429));
const ok = (a: Answer) => typeof a === "object" && a.status < 300;

describe("delivery against any sequence of answers (property)", () => {
  it("delivers at most once, exactly when a 2xx comes before a refusal and within the attempts, and sends identical, signed requests", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(answer, { minLength: 1, maxLength: 6 }), async (answers) => {
        const hook = await startReceiver({ fallback: { status: 200 } });
        try {
          hook.script(...answers);
          const maxAttempts = 4;
          const [result] = await deliverAll(
            [
              {
                sink: "s",
                kind: "webhook",
                url: hook.url,
                event: event.event,
                eventId: event.id,
                request: sinkRequest("webhook", event, SECRET),
              },
            ],
            { maxAttempts, backoffBaseMs: 1, backoffCapMs: 4, boundMs: 20_000 },
          );
          // What the answers say should happen: retried ones continue, the first other one ends it.
          const script = [...answers, ...Array<Answer>(maxAttempts).fill({ status: 200 })].slice(
            0,
            maxAttempts,
          );
          const end = script.findIndex((a) => !retried(a));
          const expectedDelivered = end >= 0 && ok(script[end] as Answer);
          const expectedAttempts = end >= 0 ? end + 1 : maxAttempts;
          expect(result?.delivered).toBe(expectedDelivered);
          expect(result?.attempts).toBe(expectedAttempts);
          expect(hook.received).toHaveLength(expectedAttempts);
          expect(hook.received.filter((r) => r.status >= 200 && r.status < 300).length).toBe(
            expectedDelivered ? 1 : 0,
          );
          const signature = `sha256=${createHmac("sha256", SECRET).update(JSON.stringify(event)).digest("hex")}`;
          for (const r of hook.received) {
            expect(r.headers["idempotency-key"]).toBe(event.id);
            expect(r.body).toBe(JSON.stringify(event));
            expect(r.headers["x-stackwright-signature"]).toBe(signature);
          }
        } finally {
          await hook.close();
        }
      }),
      { numRuns: 200 },
    );
  });
});
