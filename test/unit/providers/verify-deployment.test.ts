import { describe, expect, it } from "vitest";
import {
  type BuildVerdict,
  type Deployment,
  type Verification,
  type VerifySpec,
  VERDICTS_KEPT,
  parseStatusRange,
  rollbackMarker,
  rolledBackFrom,
  shownCheckUrl,
  verdictsOf,
  withVerdicts,
} from "../../../src/api";
import { verifySpecOf } from "../../../src/config";
import {
  failureLine,
  previousBuild,
  refusalLine,
  rollbackOf,
} from "../../../providers/behaviour/verify-deployment";

const A = "a".repeat(40);
const B = "b".repeat(40);
const C = "c".repeat(40);

function deployment(id: string, sha: string, state: string, created: number): Deployment {
  return { type: "deployments", id, attributes: { sha, state, date_created_unix: created } } as Deployment;
}

const SPEC: VerifySpec = {
  checks: [{ path: "/health", status: "200", body: "ok" }],
  within_seconds: 300,
  interval_seconds: 10,
  on_failure: "fail",
};

describe("the build a rollback goes back to", () => {
  const history = [
    deployment("100", A, "Completed", 1),
    deployment("101", C, "Completed", 2),
    deployment("102", A, "Failed", 3),
    deployment("103", B, "Completed", 4),
  ];
  const verdict = (sha: string, result: "passed" | "failed"): BuildVerdict => ({
    sha,
    deployment_id: "1",
    result,
    at: "2026-11-26T10:00:00.000Z",
  });

  it("is the build the environment ran when the run began", () => {
    expect(previousBuild(history, { id: "103", sha: B }, A).target?.id).toBe("100");
  });

  it("is otherwise the newest completed deployment of another sha", () => {
    expect(previousBuild(history, { id: "103", sha: B }, undefined).target?.id).toBe("101");
    expect(previousBuild(history, { id: "103", sha: B }, B).target?.id).toBe("101");
  });

  it("does not exist when every completed deployment has the failed sha", () => {
    expect(previousBuild([deployment("103", B, "Completed", 4)], { id: "103", sha: B }, A)).toEqual({
      target: undefined,
      skipped: [],
    });
  });

  it("is never a build the record says failed verification, even the one that ran before", () => {
    const choice = previousBuild(history, { id: "103", sha: B }, C, [
      verdict(C, "failed"),
      verdict(A, "passed"),
    ]);
    expect(choice.target?.id).toBe("100");
    expect(choice.skipped).toEqual([C]);
  });

  it("is never a build a rollback went back from, unless the record says it passed since", () => {
    const rollback = {
      ...deployment("104", A, "Completed", 5),
      attributes: {
        sha: A,
        state: "Completed",
        date_created_unix: 5,
        summary: `went back\n${rollbackMarker("101")}`,
      },
    } as Deployment;
    const withRollback = [...history, rollback];
    expect(previousBuild(withRollback, { id: "103", sha: B }, C).target?.attributes.sha).toBe(A);
    expect(previousBuild(withRollback, { id: "103", sha: B }, C, [verdict(C, "passed")]).target?.id).toBe(
      "101",
    );
  });

  it("does not exist when every other build failed, and says which were passed over", () => {
    const choice = previousBuild(history, { id: "103", sha: B }, A, [
      verdict(A, "failed"),
      verdict(C, "failed"),
    ]);
    expect(choice).toEqual({ target: undefined, skipped: [C, A] });
  });
});

describe("the record of verdicts on an environment's builds", () => {
  const failed: Verification = {
    result: "rolled_back",
    deployment_id: "7",
    sha: B,
    started_at: "2026-11-26T10:00:00.000Z",
    finished_at: "2026-11-26T10:01:00.000Z",
    attempts: 2,
    failed_check: null,
    answer: null,
    rolled_back_to: { deployment_id: "8", sha: A, result: "passed" },
  };

  it("keeps the newest verdict per build, newest first, both the failed build's and the rollback's", () => {
    const earlier: BuildVerdict[] = [
      { sha: B, deployment_id: "3", result: "passed", at: "2026-11-25T00:00:00.000Z" },
    ];
    expect(withVerdicts(earlier, failed).map((v) => [v.sha, v.result])).toEqual([
      [A, "passed"],
      [B, "failed"],
    ]);
  });

  it("records no verdict on a rollback target that was not checked", () => {
    const unverified = {
      ...failed,
      rolled_back_to: { deployment_id: "8", sha: A, result: "unverified" as const },
    };
    expect(withVerdicts([], unverified).map((v) => v.sha)).toEqual([B]);
  });

  it("is bounded", () => {
    const many = Array.from(
      { length: 40 },
      (_, i): BuildVerdict => ({
        sha: i.toString(16).padStart(40, "0"),
        deployment_id: String(i),
        result: "passed",
        at: "2026-11-25T00:00:00.000Z",
      }),
    );
    expect(withVerdicts(many, failed)).toHaveLength(VERDICTS_KEPT);
  });

  it("reads only well-formed verdicts back from a state", () => {
    expect(
      verdictsOf([{ sha: A, deployment_id: "1", result: "failed", at: "x" }, { sha: 1 }, null]),
    ).toHaveLength(1);
    expect(verdictsOf("nothing")).toEqual([]);
  });
});

describe("a rollback deployment's marker", () => {
  it("names the deployment rolled back from, and no other", () => {
    const rollback = {
      type: "deployments",
      id: "9",
      attributes: { summary: `x\n${rollbackMarker("42")}` },
    } as Deployment;
    expect(rolledBackFrom(rollback)).toBe("42");
    expect(rollbackOf([rollback], "4")).toBeUndefined();
    expect(rollbackOf([rollback], "42")?.id).toBe("9");
  });

  it("is taken over only while its rollback is under way or done, not once it ended Failed", () => {
    const rollback = (id: string, state: string, created: number) =>
      ({
        type: "deployments",
        id,
        attributes: { state, date_created_unix: created, summary: rollbackMarker("42") },
      }) as Deployment;
    expect(rollbackOf([rollback("9", "Failed", 1)], "42")).toBeUndefined();
    expect(rollbackOf([rollback("9", "Completed", 1), rollback("10", "Failed", 2)], "42")?.id).toBe("9");
    expect(rollbackOf([rollback("9", "Failed", 1), rollback("10", "Deploying", 2)], "42")?.id).toBe("10");
  });
});

describe("the lines of a failed verification", () => {
  const failed: Verification = {
    result: "failed",
    deployment_id: "103",
    sha: B,
    started_at: "2026-11-26T10:00:00.000Z",
    finished_at: "2026-11-26T10:05:00.000Z",
    attempts: 31,
    failed_check: { index: 0, target: "/health", expected: "status 200, body /ok/" },
    answer: {
      url: "https://www.example.com/health",
      status: 503,
      latency_ms: 12,
      body_excerpt: "down",
      error: null,
    },
    rolled_back_to: null,
  };

  it("names the check, the answer, how long and how many attempts", () => {
    expect(failureLine({ stack: "acme-web", environment: "prod" }, SPEC, failed)).toBe(
      "acme-web/prod: verify failed: GET https://www.example.com/health answered 503 (expected status 200, body /ok/) after 5m, 31 attempts",
    );
  });

  it("says a later run does not deploy the rolled-back build again", () => {
    const rolled: Verification = {
      ...failed,
      result: "rolled_back",
      rolled_back_to: { deployment_id: "104", sha: A, result: "passed" },
    };
    expect(refusalLine({ stack: "acme-web", environment: "prod" }, rolled)).toBe(
      "acme-web/prod: build bbbbbbb failed verification and was rolled back to aaaaaaa; not deploying it again until the file changes (pin another build, or change its trigger to try it again)",
    );
  });
});

describe("verify: as the provider receives it", () => {
  const check = { path: "/health", status: "200" };
  const verify = { checks: [check], interval: 10, on_failure: "fail" as const };

  it("applies the file's verify to an environment that has none, and not without a deployment or to one not waited for", () => {
    const env = { deployment: { timeout: 1800 } };
    expect(verifySpecOf({ verify }, env)).toMatchObject({ within_seconds: 300, checks: [check] });
    expect(verifySpecOf({ verify }, {})).toBeUndefined();
    expect(verifySpecOf({}, env)).toBeUndefined();
    expect(verifySpecOf({ verify }, { deployment: { timeout: 1800, wait: false } })).toBeUndefined();
  });

  it("keeps within to the deployment's timeout when the file gives none", () => {
    expect(verifySpecOf({}, { verify, deployment: { timeout: 60 } })?.within_seconds).toBe(60);
    expect(verifySpecOf({}, { verify: { ...verify, within: 20 }, deployment: {} })?.within_seconds).toBe(20);
  });
});

describe("the rules of a check", () => {
  it("reads one status or a range from 100 to 599", () => {
    expect(parseStatusRange(200)).toMatchObject({ ok: true, min: 200, max: 200 });
    expect(parseStatusRange("200-299")).toMatchObject({ ok: true, min: 200, max: 299 });
    for (const bad of [99, 600, "299-200", "2xx", "200-"]) expect(parseStatusRange(bad).ok).toBe(false);
  });

  it("never shows the credentials of a URL", () => {
    expect(shownCheckUrl("https://user:secret@www.example.com/x")).toBe("https://***@www.example.com/x");
  });
});
