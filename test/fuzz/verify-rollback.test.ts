/**
 * `on_failure: rollback` as a property, through the providers' lifecycle (the engine's rules of
 * lifecycle.ts) against the emulator's sites: whatever the new build's site answers, and whatever
 * the build before it answers, an `up` never leaves the environment running a build that failed
 * verification unless the run failed saying the rollback failed too; and the next `up` of the same
 * file deploys nothing. And after a history of earlier pins, each checked (some failing, some rolled
 * back): a rollback never goes back to a build the record of verdicts says failed.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verdictsOf, type VerifySpec } from "../../src/api";
import { DEFAULT_SEED_PATH } from "../../src/emulator";
import type { SiteBehaviour } from "../../src/emulator/sites";
import { v1 } from "../../providers/provider-process";
import { TEST_USERS, startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { count, fuzz, runs } from "./harness";
import { up, type Declared, type State } from "./lifecycle";

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

const EARLIER = [
  "1111111111111111111111111111111111111111",
  "2222222222222222222222222222222222222222",
] as const;
const short = (sha: string) => sha.slice(0, 7);

/** The Deployment of acme-web/uat pinned to `sha`, checked with SPEC and `onFailure`. */
function pinned(
  sha: string,
  onFailure: "fail" | "rollback",
  observed: string,
  timeoutSeconds?: number,
): Declared[] {
  return [
    {
      name: "acme-web/uat",
      type: "deployment",
      inputs: () => ({
        stack: "acme-web",
        environment: "uat",
        ref_type: "sha",
        ref: sha,
        marker_seed: "verify-rollback-fuzz",
        observed_sha: observed,
        verify: { ...SPEC, on_failure: onFailure },
        ...(timeoutSeconds === undefined ? {} : { timeout_seconds: timeoutSeconds }),
      }),
    },
  ];
}

/** Each build's answers (the seeded one's, two earlier pins', the new one's) and how the earlier pins fail. */
const historyArb = fc.record({
  before: fc.oneof(passingArb, failingArb),
  earlier: fc.array(
    fc.record({
      answers: fc.oneof(passingArb, failingArb),
      onFailure: fc.constantFrom<"fail" | "rollback">("fail", "rollback"),
    }),
    { minLength: 1, maxLength: 2 },
  ),
  newAnswers: failingArb,
});

describe("the rollback target after a history of verdicts (property)", () => {
  it(
    "never is a build the record says failed verification, and is the build before only when that one did not fail",
    async () => {
      const counts = await fuzz(
        "verify rollback target",
        historyArb,
        async ({ before, earlier, newAnswers }, tally) => {
          await emulator.hooks.reset();
          const answers = new Map<string, SiteBehaviour | undefined>([
            [BEFORE, before],
            ...earlier.map((e, i): [string, SiteBehaviour | undefined] => [EARLIER[i] ?? "", e.answers]),
            [NEW, newAnswers],
          ]);
          for (const [sha, behaviour] of answers) {
            if (behaviour !== undefined) await emulator.hooks.site("acme-web", "uat", { ...behaviour, sha });
          }
          const live = async () => (await emulator.hooks.siteRequests("acme-web", "uat")).build_sha;
          const state: State = new Map();
          for (const [i, e] of earlier.entries()) {
            await failure(up(state, pinned(EARLIER[i] ?? "", e.onFailure, await live())));
          }
          const recorded = verdictsOf(state.get("acme-web/uat")?.outs["verdicts"]);
          const recordedFailed = new Set(recorded.filter((v) => v.result === "failed").map((v) => v.sha));
          const ranBefore = await live();

          const message = await failure(up(state, pinned(NEW, "rollback", ranBefore)));
          const running = await live();
          expect(message).toMatch(/^acme-web\/uat: verify failed: GET /);
          const target = /rolled back to (\w{7}) \(deployment \d+/.exec(message ?? "")?.[1];
          count(tally, target === undefined ? "nothing rolled back" : "rolled back");
          count(tally, `${recordedFailed.size} recorded failed`);
          if (target === undefined) {
            expect(message).toMatch(/nothing rolled back|rollback to \w+ failed/);
            expect(running).toBe(NEW);
            return;
          }
          expect(short(running)).toBe(target);
          expect([...recordedFailed].map(short), "a build recorded as failed").not.toContain(target);
          // The build before is taken unless the record says it failed.
          if (ranBefore !== NEW && !recordedFailed.has(ranBefore)) expect(running).toBe(ranBefore);
          // What the rollback found is recorded too.
          const after = verdictsOf(state.get("acme-web/uat")?.outs["verdicts"]);
          expect(after.find((v) => v.sha === running)?.result).toBe(
            passes(answers.get(running)) ? "passed" : "failed",
          );
          expect(after.find((v) => v.sha === NEW)?.result).toBe("failed");
        },
        { bounded: 8, file: "test/fuzz/verify-rollback.test.ts" },
      );
      expect(counts["cases"]).toBe(runs(8));
    },
    runs(8) * 40_000,
  );
});

describe("a run stopped after its rollback, before the state recorded it", () => {
  it("is taken over by the next up, which deploys nothing, verifies the rollback and refuses the failed build", async () => {
    await emulator.hooks.reset();
    await emulator.hooks.site("acme-web", "uat", { sha: NEW, status: 503, body: "down" });
    const state: State = new Map();
    // The stopped run: everything happened on the platform, and its state was never written.
    const lost: State = new Map(state);
    expect(await failure(up(lost, pinned(NEW, "rollback", BEFORE)))).toMatch(/rolled back to 8f3c2a1/);
    expect(state.size).toBe(0);

    await emulator.hooks.clearRequests();
    const next = await failure(up(state, pinned(NEW, "rollback", BEFORE)));
    expect(next).toMatch(
      /^acme-web\/uat: build 2b7e151 failed verification in a run that stopped while rolling back; rolled back to 8f3c2a1 \(deployment \d+, verified\); not deploying 2b7e151 again until the file changes$/,
    );
    const posts = async () => (await emulator.hooks.requests()).filter((r) => r.method === "POST");
    expect(await posts()).toEqual([]);
    expect((await emulator.hooks.siteRequests("acme-web", "uat")).build_sha).toBe(BEFORE);
    const outs = state.get("acme-web/uat")?.outs;
    expect(outs?.["verification"]).toMatchObject({
      result: "rolled_back",
      sha: NEW,
      rolled_back_to: { sha: BEFORE, result: "passed" },
    });
    expect(verdictsOf(outs?.["verdicts"]).map((v) => [v.sha, v.result])).toEqual([
      [BEFORE, "passed"],
      [NEW, "failed"],
    ]);

    const after = await failure(up(state, pinned(NEW, "rollback", BEFORE)));
    expect(after).toMatch(
      /build 2b7e151 failed verification and was rolled back to 8f3c2a1; not deploying it again/,
    );
    expect(await posts()).toEqual([]);
  }, 60_000);

  it("is taken over as well when the state recorded the failed deployment still running", async () => {
    await emulator.hooks.reset();
    await emulator.hooks.site("acme-web", "uat", { sha: NEW, status: 503, body: "down" });
    await emulator.hooks.stallNext("acme-web", "uat", 4_000);
    const state: State = new Map();
    // The deployment outlives the wait: the state records it running, and the next up moves it on.
    expect(await failure(up(state, pinned(NEW, "rollback", BEFORE, 1)))).toMatch(/did not finish within 1 s/);
    expect(state.get("acme-web/uat")?.outs["state"]).toBe("Deploying");
    // The stopped run: it verified the deployment, rolled back, and its state was never written.
    const lost: State = new Map(state);
    expect(await failure(up(lost, pinned(NEW, "rollback", BEFORE, 60)))).toMatch(/rolled back to 8f3c2a1/);

    await emulator.hooks.clearRequests();
    const next = await failure(up(state, pinned(NEW, "rollback", BEFORE, 60)));
    expect(next).toMatch(
      /failed verification in a run that stopped while rolling back; rolled back to 8f3c2a1/,
    );
    const posts = (await emulator.hooks.requests()).filter((r) => r.method === "POST");
    expect(posts).toEqual([]);
    expect((await emulator.hooks.siteRequests("acme-web", "uat")).build_sha).toBe(BEFORE);
  }, 60_000);
});
