/**
 * `on_failure: rollback` as a property, through the providers' lifecycle (the engine's rules of
 * lifecycle.ts) against the emulator's sites: whatever the new build's site answers, and whatever
 * the build before it answers, an `up` never leaves the environment running a build that failed
 * verification unless the run failed saying the rollback failed too; and the next `up` of the same
 * file deploys nothing.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { VerifySpec } from "../../src/api";
import { DEFAULT_SEED_PATH } from "../../src/emulator";
import type { SiteBehaviour } from "../../src/emulator/sites";
import { v1 } from "../../providers/provider-process";
import { TEST_USERS, startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { count, fuzz, runs } from "./harness";
import { up, type State } from "./lifecycle";

const BEFORE = "8f3c2a1d9e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a";
const NEW = "2b7e151628aed2a6abf7158809cf4f3c762e7160";
const SPEC: VerifySpec = {
  checks: [{ path: "/health", status: "200-299", body: "runs build" }],
  within_seconds: 1,
  interval_seconds: 1,
  on_failure: "rollback",
};

const passingArb = fc.oneof(
  fc.constant<SiteBehaviour | undefined>(undefined),
  fc.record({
    status: fc.constantFrom(200, 203, 299),
    body: fc.constantFrom("runs build", "it runs build 1"),
  }),
);
const failingArb = fc.oneof(
  fc.record({
    status: fc.constantFrom(200, 302, 404, 500, 503),
    body: fc.constantFrom("maintenance", "", "RUNS BUILD"),
  }),
  fc.record({ status: fc.constantFrom(302, 404, 500, 503), body: fc.constant("runs build") }),
  fc.constant<SiteBehaviour>({ reset: true }),
);
/** The new build's answers and the previous build's, in three strata drawn alike. */
const caseArb = fc.oneof(
  fc.tuple(passingArb, fc.oneof(passingArb, failingArb)),
  fc.tuple(failingArb, passingArb),
  fc.tuple(failingArb, failingArb),
);

/** Whether a site answering `b` passes SPEC (undefined: the default page, which names the build). */
function passes(b: SiteBehaviour | undefined): boolean {
  if (b === undefined) return true;
  if (b.reset === true) return false;
  return b.status !== undefined && b.status >= 200 && b.status <= 299 && /runs build/.test(b.body ?? "");
}

let emulator: TestEmulator;
beforeAll(async () => {
  emulator = await startTestEmulator({ seed: DEFAULT_SEED_PATH, speed: "instant" });
  const values: Record<string, string> = {
    "stackwright:apiUrl": emulator.url,
    "stackwright:email": TEST_USERS.stackManager.email,
    "stackwright:apiToken": TEST_USERS.stackManager.token,
  };
  await v1.configure({ config: { get: (key) => values[key] } });
});
afterAll(() => emulator?.close());

const declared = [
  {
    name: "acme-web/uat",
    type: "deployment" as const,
    inputs: () => ({
      stack: "acme-web",
      environment: "uat",
      ref_type: "sha",
      ref: NEW,
      marker_seed: "verify-rollback-fuzz",
      observed_sha: BEFORE,
      verify: SPEC,
    }),
  },
];

async function failure(run: Promise<void>): Promise<string | undefined> {
  try {
    await run;
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

describe("on_failure: rollback (property)", () => {
  it(
    "never leaves a build that failed verification running unless it says the rollback failed, and never loops",
    async () => {
      const counts = await fuzz(
        "verify rollback",
        caseArb,
        async ([newAnswers, beforeAnswers], tally) => {
          await emulator.hooks.reset();
          if (newAnswers !== undefined)
            await emulator.hooks.site("acme-web", "uat", { ...newAnswers, sha: NEW });
          if (beforeAnswers !== undefined)
            await emulator.hooks.site("acme-web", "uat", { ...beforeAnswers, sha: BEFORE });
          const state: State = new Map();
          const message = await failure(up(state, declared));
          const running = (await emulator.hooks.siteRequests("acme-web", "uat")).build_sha;
          const fails = (sha: string) => !passes(sha === NEW ? newAnswers : beforeAnswers);

          count(
            tally,
            fails(NEW) ? (fails(BEFORE) ? "both builds failing" : "new build failing") : "passing",
          );
          if (!fails(NEW)) {
            expect(message).toBeUndefined();
            expect(running).toBe(NEW);
            return;
          }
          expect(message).toMatch(/^acme-web\/uat: verify failed: GET /);
          if (fails(running)) {
            // Still on a failing build: only when the run said its rollback failed.
            expect(message).toMatch(
              /which failed verification too|rollback to \w+ failed|nothing rolled back/,
            );
          } else {
            expect(running).toBe(BEFORE);
            expect(message).toMatch(/rolled back to 8f3c2a1 \(deployment \d+, verified\)/);
          }
          // The next up of the same file refuses the failed build and deploys nothing.
          await emulator.hooks.clearRequests();
          const next = await failure(up(state, declared));
          expect(next).toMatch(/failed verification and was rolled back/);
          const posts = (await emulator.hooks.requests()).filter((r) => r.method === "POST");
          expect(posts).toEqual([]);
        },
        { bounded: 12, file: "test/fuzz/verify-rollback.test.ts" },
      );
      expect(counts["cases"]).toBe(runs(12));
    },
    runs(12) * 20_000,
  );
});
