import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { Agent } from "undici";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { VerifySpec } from "../../../src/api";
import { DEFAULT_SEED_PATH } from "../../../src/emulator";
import type { SiteBehaviour } from "../../../src/emulator/sites";
import { answerText, runVerification, type VerifyRun } from "../../../providers/shared/verify";
import { type TestEmulator, startTestEmulator } from "../../helpers/emulator";

const UAT_SHA = "8f3c2a1d9e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a";

let emu: TestEmulator;
const dispatcher = new Agent({ connections: 4 });
beforeAll(async () => {
  emu = await startTestEmulator({ seed: DEFAULT_SEED_PATH });
});
afterAll(async () => {
  await emu.close();
  await dispatcher.close();
});
beforeEach(() => emu.hooks.reset());

const site = () => `${emu.url}/_sites/acme-web/uat`;

function spec(over: Partial<VerifySpec> = {}): VerifySpec {
  return {
    checks: [{ path: "/health", status: "200" }],
    within_seconds: 30,
    interval_seconds: 10,
    on_failure: "fail",
    ...over,
  };
}

/**
 * A run on a virtual clock: each wait between rounds moves the clock on by the interval (no real
 * sleep) and lets the test change what the site answers before the next round.
 */
function virtualRun(
  s: VerifySpec,
  beforeRound: (round: number) => Promise<void> = async () => {},
): VerifyRun {
  let clock = 1_000_000;
  let round = 1;
  return {
    spec: s,
    siteUrl: site(),
    deployment: { id: "100", sha: UAT_SHA },
    dispatcher,
    now: () => clock,
    sleep: async (ms) => {
      clock += ms;
      round++;
      await beforeRound(round);
    },
  };
}

describe("the check runner against the emulator's sites", () => {
  it("passes at the first round when the site answers, asking each check once", async () => {
    const verdict = await runVerification(
      virtualRun(
        spec({
          checks: [
            { path: "/health", status: "200", body: UAT_SHA },
            { path: "/", status: "200-299" },
          ],
        }),
      ),
    );
    expect(verdict).toMatchObject({
      result: "passed",
      attempts: 1,
      failed_check: null,
      answer: null,
      sha: UAT_SHA,
    });
    expect((await emu.hooks.siteRequests("acme-web", "uat")).requests).toBe(2);
  });

  it("fails when within runs out, naming the check and what came back", async () => {
    await emu.hooks.site("acme-web", "uat", { status: 503, body: "down for maintenance" });
    const verdict = await runVerification(virtualRun(spec()));
    expect(verdict).toMatchObject({
      result: "failed",
      attempts: 3,
      failed_check: { index: 0, target: "/health", expected: "status 200" },
      answer: { url: `${site()}/health`, status: 503, body_excerpt: "down for maintenance", error: null },
    });
  });

  it("passes at the round in which the site recovers", async () => {
    await emu.hooks.site("acme-web", "uat", { status: 502 });
    const verdict = await runVerification(
      virtualRun(spec(), async (round) => {
        if (round === 2) await emu.hooks.clearSite("acme-web", "uat");
      }),
    );
    expect(verdict).toMatchObject({ result: "passed", attempts: 2 });
  });

  it("judges a huge body on its first 64 KiB only", async () => {
    await emu.hooks.site("acme-web", "uat", { body: `${"a".repeat(65_536)}END` });
    const bounded = await runVerification(
      virtualRun(spec({ checks: [{ path: "/", status: "200", body: "^a+$" }] })),
    );
    expect(bounded.result).toBe("passed");
    const beyond = await runVerification(
      virtualRun(spec({ within_seconds: 1, checks: [{ path: "/", status: "200", body: "END" }] })),
    );
    expect(beyond.result).toBe("failed");
    expect(beyond.answer?.body_excerpt.length).toBeLessThan(300);
    expect(answerText(beyond.answer!, { path: "/", status: "200", body: "END" })).toBe(
      "answered 200 with a body that does not match",
    );
  });

  it("stops a body pattern that backtracks for ever and says so", async () => {
    await emu.hooks.site("acme-web", "uat", { body: "a", body_bytes: 65_536 });
    const verdict = await runVerification(
      virtualRun(spec({ within_seconds: 1, checks: [{ path: "/", status: "200", body: "^(a|a)*b" }] })),
    );
    expect(verdict.result).toBe("failed");
    expect(verdict.answer?.error).toBe(
      "the body pattern ran longer than 1000 ms on the first 64 KiB; make it simpler",
    );
  });

  it("follows no redirect to another host", async () => {
    await emu.hooks.site("acme-web", "uat", { status: 302, location: "https://elsewhere.example.com/" });
    const verdict = await runVerification(virtualRun(spec({ checks: [{ path: "/", status: "200-399" }] })));
    expect(verdict.result).toBe("failed");
    expect(verdict.answer).toMatchObject({
      status: 302,
      error: "redirect to another host (https://elsewhere.example.com), not followed",
    });
  });

  it("follows redirects on the same host a bounded few times", async () => {
    await emu.hooks.site("acme-web", "uat", { status: 301, location: "/_sites/acme-web/uat/again" });
    const verdict = await runVerification(virtualRun(spec({ within_seconds: 1 })));
    expect(verdict.answer).toMatchObject({ status: 301, error: "more than 5 redirects" });
    expect((await emu.hooks.siteRequests("acme-web", "uat")).requests).toBe(6);
  });

  it("says a reset connection got no answer", async () => {
    await emu.hooks.site("acme-web", "uat", { reset: true });
    const verdict = await runVerification(virtualRun(spec({ within_seconds: 1 })));
    expect(verdict.answer).toMatchObject({ status: null, latency_ms: null });
    expect(answerText(verdict.answer!)).toMatch(/^got no answer \(.+\)$/);
  });

  it("fails a check whose answer is slower than its max_latency", async () => {
    await emu.hooks.site("acme-web", "uat", { delay_ms: 1500 });
    const verdict = await runVerification(
      virtualRun(spec({ within_seconds: 1, checks: [{ path: "/", status: "200", max_latency_seconds: 1 }] })),
    );
    expect(verdict.result).toBe("failed");
  });

  it("says when the environment has no URL to join a path to", async () => {
    const verdict = await runVerification({ ...virtualRun(spec({ within_seconds: 1 })), siteUrl: "" });
    expect(verdict.answer?.error).toBe("the platform gives the environment no URL to join the path to");
  });

  it("sends no Authorization header or cookie, whatever the process holds", async () => {
    const seen: IncomingHttpHeaders[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers);
      res.end("ok");
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    try {
      const { port } = server.address() as AddressInfo;
      const verdict = await runVerification({
        ...virtualRun(
          spec({ checks: [{ url: `http://127.0.0.1:${port}/health`, status: "200", body: "^ok$" }] }),
        ),
      });
      expect(verdict.result).toBe("passed");
      expect(seen).toHaveLength(1);
      expect(Object.keys(seen[0] ?? {}).filter((h) => /authorization|cookie/i.test(h))).toEqual([]);
    } finally {
      await new Promise((done) => server.close(done));
    }
  });

  it("passes exactly when some round's answers meet every check (property)", async () => {
    const answerArb = fc.record({
      status: fc.constantFrom(200, 204, 404, 500, 503),
      body: fc.constantFrom("ok", "maintenance", "OK ok", ""),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(answerArb, { minLength: 1, maxLength: 4 }), async (rounds) => {
        await emu.hooks.reset();
        const check = { path: "/", status: "200-299", body: "ok" };
        const set = async (round: number) => {
          const a = rounds[Math.min(round, rounds.length) - 1];
          if (a === undefined) return;
          const behaviour: SiteBehaviour = { status: a.status, body: a.body };
          await emu.hooks.site("acme-web", "uat", behaviour);
        };
        await set(1);
        const verdict = await runVerification(
          virtualRun(
            spec({ checks: [check], within_seconds: rounds.length * 10, interval_seconds: 10 }),
            set,
          ),
        );
        // A 204 has no body, whatever the site meant to send.
        const firstGood = rounds.findIndex(
          (a) => a.status >= 200 && a.status <= 299 && a.status !== 204 && /ok/.test(a.body),
        );
        if (firstGood === -1) {
          expect(verdict.result).toBe("failed");
          expect(verdict.attempts).toBe(rounds.length);
        } else {
          expect(verdict).toMatchObject({ result: "passed", attempts: firstGood + 1 });
        }
      }),
      { numRuns: 20 },
    );
  });
});
