import * as fs from "node:fs";
import * as path from "node:path";
import Ajv from "ajv";
import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { DeploymentState, StatedDeployment } from "../../../src/api";
import {
  Budget,
  DRIFT_SCHEMA_FILE,
  Reads,
  STATUS_SCHEMA_FILE,
  countsLine,
  driftJsonSchemaText,
  driftChecks,
  driftMarkdown,
  driftReport,
  statusHtml,
  statusJsonSchemaText,
  statusTable,
  observedDeployment,
  syncOf,
  withEngineChecks,
  type DriftMemory,
  type EngineCheck,
  type ProofVerdict,
  type EnvironmentStatus,
  type FleetStatus,
} from "../../../src/observe";
import { countSync } from "../../../src/observe/model";

const root = path.join(__dirname, "../../..");
const SHA_A = "8f3c2a1d9e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a";
const SHA_B = "2b7e151628aed2a6abf7158809cf4f3c762e7160";

function deployment(
  id: number,
  state: DeploymentState,
  sha = SHA_A,
  email = "ops@example.com",
): StatedDeployment {
  return {
    type: "deployments",
    id: String(id),
    attributes: {
      id: String(id),
      date_created_unix: 1_700_000_000 + id,
      date_started_unix: 1_700_000_000 + id,
      date_requested_unix: 1_700_000_000 + id,
      date_approved_unix: 1_700_000_000 + id,
      date_updated_unix: 1_700_000_000 + id,
      title: `deploy ${id}`,
      summary: "",
      deployment_type: "code-only",
      deployment_estimate: "",
      sha,
      short_sha: sha.slice(0, 7),
      commit_subject: "",
      commit_message: "",
      commit_url: "",
      deployer: { id: 1, email, role: "Stack Manager", name: "Olivia Ops" },
      state,
      is_current_build: true,
    },
    links: { self: `https://api.example/deploys/${id}` },
  };
}

const desired = { ref_type: "branch", ref: "main" };
const applied = { ref_type: "branch", ref: "main", sha: SHA_A, deployment_id: "1" };

describe("the sync state of an environment", () => {
  it("is in sync when the platform runs what the last up deployed and the file still asks for it", () => {
    expect(syncOf({ desired, applied, liveSha: SHA_A, deployments: [deployment(1, "Completed")] }).sync).toBe(
      "in sync",
    );
  });

  it("is drifted by a hand deployment, naming who made it and since when", () => {
    const hand = deployment(2, "Completed", SHA_B, "dev@example.com");
    const verdict = syncOf({
      desired,
      applied,
      liveSha: SHA_B,
      deployments: [deployment(1, "Completed"), hand],
    });
    expect(verdict.sync).toBe("drifted");
    expect(verdict.drift).toEqual({
      kind: "hand deployment",
      since: "2023-11-14T22:13:22.000Z",
      by: "dev@example.com",
    });
  });

  it("never takes a deployment without a sha (an unbuilt package) for the live build or for drift", () => {
    const built = deployment(1, "Completed");
    const unbuilt: StatedDeployment = {
      ...built,
      id: "2",
      attributes: { ...built.attributes, sha: null, short_sha: null },
    };
    const verdict = syncOf({ desired, applied, liveSha: SHA_A, deployments: [built, unbuilt] });
    expect(verdict.sync).toBe("in sync");
    expect(verdict.liveDeployment?.id).toBe("1");
    expect(observedDeployment(unbuilt)).toMatchObject({ sha: "-", short_sha: "-" });
  });

  it("is drifted when the file asks for another ref than the last up deployed", () => {
    const verdict = syncOf({
      desired: { ref_type: "tag", ref: "v2" },
      applied,
      liveSha: SHA_A,
      deployments: [deployment(1, "Completed")],
    });
    expect(verdict).toMatchObject({ sync: "drifted", drift: { kind: "desired changed" } });
    expect(verdict.reason).toContain("tag v2");
  });

  it("follows the newest deployment while it runs, waits or failed", () => {
    const with2 = (state: DeploymentState) =>
      syncOf({
        desired,
        applied,
        liveSha: SHA_A,
        deployments: [deployment(1, "Completed"), deployment(2, state)],
      }).sync;
    expect(with2("Deploying")).toBe("deploying");
    expect(with2("Queued")).toBe("deploying");
    expect(with2("Submitted")).toBe("awaiting approval");
    expect(with2("Approved")).toBe("awaiting approval");
    expect(with2("Failed")).toBe("failed");
    expect(with2("Rejected")).toBe("failed");
  });

  it("is not yet deployed when no up recorded a deployment, and not managed without a desired one", () => {
    expect(syncOf({ desired, applied: undefined, liveSha: SHA_A, deployments: [] }).sync).toBe(
      "not yet deployed",
    );
    expect(syncOf({ desired: undefined, applied, liveSha: SHA_B, deployments: [] }).sync).toBe("not managed");
  });

  it("gives every combination one state and a drift exactly when it is drifted, failed or not yet deployed", () => {
    const states: DeploymentState[] = [
      "Completed",
      "Failed",
      "Deploying",
      "Submitted",
      "Rejected",
      "Deleted",
    ];
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom(SHA_A, SHA_B),
        fc.array(fc.constantFrom(...states), { maxLength: 4 }),
        (hasDesired, hasApplied, live, history) => {
          const v = syncOf({
            desired: hasDesired ? desired : undefined,
            applied: hasApplied ? applied : undefined,
            liveSha: live,
            deployments: history.map((s, i) => deployment(i + 1, s)),
          });
          const drifting = v.sync === "drifted" || v.sync === "failed" || v.sync === "not yet deployed";
          expect(v.drift !== null).toBe(drifting);
          if (v.sync !== "in sync" && v.sync !== "not managed") expect(v.reason).not.toBeNull();
        },
      ),
    );
  });
});

describe("the API budget", () => {
  it("never has more reads in flight than its concurrency, and reads each key once", async () => {
    const reads = new Reads(new Budget(3));
    let inFlight = 0;
    let most = 0;
    let calls = 0;
    const gates: (() => void)[] = [];
    const read = () => {
      calls += 1;
      inFlight += 1;
      most = Math.max(most, inFlight);
      return new Promise<number>((done) =>
        gates.push(() => {
          inFlight -= 1;
          done(1);
        }),
      );
    };
    const answers = Promise.all(Array.from({ length: 20 }, (_, i) => reads.once(`k${i % 10}`, read)));
    while (calls < 10 || gates.length > 0) {
      await new Promise((r) => setImmediate(r));
      gates.shift()?.();
    }
    expect(await answers).toHaveLength(20);
    expect(most).toBe(3);
    expect(calls).toBe(10);
  });
});

function env(stack: string, environment: string, patch: Partial<EnvironmentStatus> = {}): EnvironmentStatus {
  return {
    stack,
    environment,
    desired,
    applied,
    verification: null,
    live: { sha: SHA_A, short_sha: SHA_A.slice(0, 7), deployment: null },
    sync: "in sync",
    reason: null,
    drift: null,
    lock: null,
    window: null,
    newest: null,
    recent: [],
    failure_log: null,
    ...patch,
  };
}

function fleet(
  envs: EnvironmentStatus[],
  at = "2026-11-25T10:00:00.000Z",
  errors: Record<string, string> = {},
): FleetStatus {
  const stacks = [...new Set(envs.map((e) => e.stack))].map((stack) => ({
    stack,
    pulumi_stack: `dev.${stack}`,
    file: `stacks-config/${stack}.yaml`,
    last_up: null,
    confirmed_at: null,
    error: errors[stack] ?? null,
    environments: envs.filter((e) => e.stack === stack),
  }));
  return {
    kind: "stackwright.status",
    version: 1,
    target: "dev",
    generated_at: at,
    counts: countSync(stacks),
    stacks,
  };
}

const handDrift = {
  sync: "drifted" as const,
  reason: "hand",
  drift: { kind: "hand deployment" as const, since: null, by: "dev@example.com" },
  live: { sha: SHA_B, short_sha: SHA_B.slice(0, 7), deployment: null },
};

describe("the drift report over three runs", () => {
  it("says new, then still, then resolved, keeping when it was first reported", () => {
    const first = driftReport(fleet([env("a", "uat", handDrift), env("b", "uat")]), new Map());
    expect(first.report.result).toBe("drift");
    expect(first.report.drift.map((d) => d.status)).toEqual(["new"]);
    const second = driftReport(
      fleet([env("a", "uat", handDrift), env("b", "uat")], "2026-11-26T10:00:00.000Z"),
      first.memories,
    );
    expect(second.report.drift).toMatchObject([
      { status: "still", first_reported: "2026-11-25T10:00:00.000Z" },
    ]);
    const third = driftReport(
      fleet([env("a", "uat"), env("b", "uat")], "2026-11-27T10:00:00.000Z"),
      second.memories,
    );
    expect(third.report.result).toBe("clean");
    expect(third.report.drift).toMatchObject([{ status: "resolved", stack: "a", environment: "uat" }]);
    expect(third.memories.get("a")?.reported).toEqual([]);
  });

  it("is an error when a stack could not be checked, and keeps that stack's memory as it was", () => {
    const first = driftReport(fleet([env("a", "uat", handDrift)]), new Map());
    const blind = driftReport(
      fleet([env("a", "uat", { sync: "unknown" })], undefined, { a: "cannot see" }),
      first.memories,
    );
    expect(blind.report.result).toBe("error");
    expect(blind.report.drift).toEqual([]);
    expect(blind.memories.has("a")).toBe(false);
  });
});

describe("the versioned documents", () => {
  it.each([
    [STATUS_SCHEMA_FILE, statusJsonSchemaText],
    [DRIFT_SCHEMA_FILE, driftJsonSchemaText],
  ])(
    "%s is up to date with the zod schema (regenerate: UPDATE_SCHEMA=1 npx vitest run test/unit/observe/observe.test.ts)",
    (file, text) => {
      const target = path.join(root, file);
      if (process.env["UPDATE_SCHEMA"] === "1") {
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.writeFileSync(target, text());
      }
      expect(fs.readFileSync(target, "utf8"), `${file} is stale`).toBe(text());
    },
  );

  it("a status and a drift report validate against the committed JSON Schemas", () => {
    const ajv = new Ajv({ strict: false });
    const status = fleet([
      env("a", "uat", handDrift),
      env("a", "prod"),
      env("b", "uat", { sync: "unknown", reason: "x" }),
    ]);
    const validStatus = ajv.compile(JSON.parse(fs.readFileSync(path.join(root, STATUS_SCHEMA_FILE), "utf8")));
    expect(validStatus(JSON.parse(JSON.stringify(status))), JSON.stringify(validStatus.errors)).toBe(true);
    const validDrift = ajv.compile(JSON.parse(fs.readFileSync(path.join(root, DRIFT_SCHEMA_FILE), "utf8")));
    const { report } = driftReport(status, new Map());
    expect(validDrift(JSON.parse(JSON.stringify(report))), JSON.stringify(validDrift.errors)).toBe(true);
  });
});

describe("the renderings", () => {
  const status = fleet([
    env("a", "uat", handDrift),
    env("a", "prod"),
    env("b", "uat", { lock: { message: "Freeze" } }),
  ]);

  it("count the states first, as one line", () => {
    expect(countsLine(status.counts)).toBe("2 in sync · 1 drifted");
    expect(statusTable(status, { colour: false }).split("\n")[0]).toBe("dev: 2 in sync · 1 drifted");
  });

  it("colour the sync column only when asked, and spell every state out either way", () => {
    const plain = statusTable(status, { colour: false });
    expect(plain).not.toContain("\u001b[");
    expect(plain).toContain("drifted");
    const coloured = statusTable(status, { colour: true });
    expect(coloured).toContain("\u001b[33mdrifted");
  });

  it("show a deployment the platform gives no date for as unknown, never as 1970, and null in the JSON", () => {
    const undated = deployment(7, "Completed", SHA_B, "dev@example.com");
    const { attributes } = undated;
    undated.attributes = {
      ...attributes,
      date_created_unix: undefined,
      date_started_unix: undefined,
      date_requested_unix: undefined,
      date_approved_unix: undefined,
      // 0 is no date either.
      date_updated_unix: 0,
    };
    const seen = observedDeployment(undated);
    expect(seen.at).toBeNull();
    const verdict = syncOf({ desired, applied, liveSha: SHA_B, deployments: [undated] });
    expect(verdict.drift).toEqual({ kind: "hand deployment", since: null, by: "dev@example.com" });
    const undatedFleet = fleet([
      env("a", "uat", {
        ...handDrift,
        live: { sha: SHA_B, short_sha: SHA_B.slice(0, 7), deployment: seen },
        newest: seen,
        recent: [seen],
      }),
    ]);
    const table = statusTable(undatedFleet, { colour: false });
    const html = statusHtml(undatedFleet);
    for (const text of [table, html, JSON.stringify(undatedFleet)]) expect(text).not.toContain("1970");
    expect(table).toMatch(/#7 Completed unknown/);
    expect(html).toContain("dev@example.com, unknown)");
    expect(html).toContain("<li>date unknown <strong>a</strong> Completed");
    const ajv = new Ajv({ strict: false });
    const valid = ajv.compile(JSON.parse(fs.readFileSync(path.join(root, STATUS_SCHEMA_FILE), "utf8")));
    expect(valid(JSON.parse(JSON.stringify(undatedFleet))), JSON.stringify(valid.errors)).toBe(true);
  });

  it("escape what the platform says in the page, also inside its embedded data", () => {
    const evil = fleet([env("a", "uat", { reason: "</script><script>alert(1)</script>", sync: "drifted" })]);
    const html = statusHtml(evil);
    expect(html).not.toContain("<script>alert(1)");
    // Our own three: the details, the environments and the script.
    expect(html.match(/<script/g)).toHaveLength(3);
  });
});

describe("drift with the engine's preview (--full)", () => {
  it("adds what the preview plans where the reads found nothing, and fails a stack whose preview failed", () => {
    const status = fleet([env("a", "uat"), env("a", "prod", handDrift), env("b", "uat")]);
    const checked = withEngineChecks(
      status,
      new Map<string, EngineCheck>([
        [
          "a",
          {
            ok: true,
            planned: [
              { environment: "uat", text: "lock" },
              { environment: "prod", text: "redeploy" },
            ],
          },
        ],
        ["b", { ok: false, reason: "exit 1" }],
      ]),
    );
    const [uat, prod] = checked.stacks[0]?.environments ?? [];
    expect(uat).toMatchObject({ sync: "drifted", drift: { kind: "planned change" } });
    expect(prod?.drift?.kind).toBe("hand deployment");
    expect(checked.stacks[1]?.error).toContain("preview failed");
    expect(checked.counts.drifted).toBe(2);
  });

  it("keeps a planned change in memory, neither still nor resolved, until the engine checks again", () => {
    const planned = {
      sync: "drifted" as const,
      drift: { kind: "planned change" as const, since: null, by: null },
    };
    const engine = new Map([["a", { stack: "a", checked_by: "engine" as const, reason: "no proof: x" }]]);
    const proof = new Map([["a", { stack: "a", checked_by: "proof" as const, reason: null }]]);
    const first = driftReport(fleet([env("a", "uat", planned)]), new Map(), engine);
    const proved = driftReport(fleet([env("a", "uat")]), first.memories, proof);
    expect(proved.report.drift).toEqual([]);
    expect(proved.memories.get("a")?.reported).toHaveLength(1);
    const readsOnly = driftReport(fleet([env("a", "uat")]), proved.memories);
    expect(readsOnly.memories.get("a")?.reported).toHaveLength(1);
    const again = driftReport(fleet([env("a", "uat")]), readsOnly.memories, engine);
    expect(again.report.drift).toMatchObject([{ status: "resolved", kind: "planned change" }]);
    expect(again.report.stacks).toEqual([{ stack: "a", checked_by: "engine", reason: "no proof: x" }]);
    expect(driftMarkdown(again.report)).toContain(
      "0 of 1 stack(s) proved without the engine; the engine's preview ran for 1: a (no proof: x)",
    );
    expect(driftMarkdown(proved.report)).toContain("1 of 1 stack(s) proved without the engine\n");
  });
});

describe("where drift runs the engine", () => {
  const proved: ProofVerdict = { confirmed: true };
  const unproved = (reason: string): ProofVerdict => ({ confirmed: false, reason, record: true });
  const plannedMemory = (stack: string): DriftMemory => ({
    version: 1,
    stack,
    reported: [
      {
        environment: "uat",
        kind: "planned change",
        live_sha: SHA_A,
        first_reported: "2026-11-24T10:00:00.000Z",
      },
    ],
  });
  const byOf = (checks: ReturnType<typeof driftChecks>) =>
    Object.fromEntries([...checks.values()].map((c) => [c.stack, c.checked_by]));

  it("runs it only for the stacks whose proof does not hold, and says why for each", () => {
    const status = fleet([env("a", "uat"), env("b", "uat"), env("b", "prod")]);
    const checks = driftChecks(
      status,
      new Map([
        ["a", proved],
        ["b", unproved("inputs changed: file")],
      ]),
      new Map(),
      false,
    );
    expect(byOf(checks)).toEqual({ a: "proof", b: "engine" });
    expect(checks.get("b")?.reason).toBe("no proof: inputs changed: file");
    expect(checks.get("a")?.reason).toBeNull();
  });

  it("previews no stack whose reads failed, nor one whose every environment drifted already", () => {
    const status = fleet(
      [
        env("hidden", "uat", { sync: "unknown", reason: "not visible" }),
        env("blind", "uat", { sync: "unknown", reason: "503" }),
        env("blind", "prod"),
        env("by-hand", "uat", handDrift),
        env("half", "uat", handDrift),
        env("half", "prod"),
      ],
      undefined,
      { hidden: "not visible" },
    );
    const none = unproved("live read: environment of x/uat changed");
    const proofs = new Map([
      ["by-hand", none],
      ["half", none],
    ]);
    const checks = driftChecks(status, proofs, new Map(), false);
    expect(byOf(checks)).toEqual({ hidden: "reads", blind: "reads", "by-hand": "reads", half: "engine" });
    expect(checks.get("by-hand")?.reason).toContain("every environment drifted already");
    // --full previews every stack it could observe, proven or not.
    expect(byOf(driftChecks(status, new Map(), new Map(), true))).toEqual({
      hidden: "reads",
      blind: "reads",
      "by-hand": "engine",
      half: "engine",
    });
  });

  it("previews a proven stack again while a planned change of it is remembered, so that it can be resolved", () => {
    const status = fleet([env("a", "uat"), env("b", "uat")]);
    const checks = driftChecks(
      status,
      new Map([
        ["a", proved],
        ["b", proved],
      ]),
      new Map([["a", plannedMemory("a")]]),
      false,
    );
    expect(byOf(checks)).toEqual({ a: "engine", b: "proof" });
  });

  it("never previews a stack whose reads failed and always previews an unproven one the reads found clean", () => {
    const sync = fc.constantFrom<EnvironmentStatus["sync"]>("in sync", "drifted", "unknown", "deploying");
    fc.assert(
      fc.property(
        fc.array(fc.tuple(sync, fc.boolean(), fc.boolean()), { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        (rows, full) => {
          const envs = rows.map(([state], i) =>
            env(`s${i}`, "uat", state === "drifted" ? handDrift : { sync: state }),
          );
          const status = fleet(envs);
          const proofs = new Map(rows.map(([, ok], i) => [`s${i}`, ok ? proved : unproved("x")]));
          const memories = new Map(
            rows.map(([, , planned], i) => [`s${i}`, planned ? plannedMemory(`s${i}`) : undefined]),
          );
          const checks = driftChecks(status, proofs, memories, full);
          rows.forEach(([state, ok, planned], i) => {
            const by = checks.get(`s${i}`)?.checked_by;
            if (state === "unknown") expect(by).toBe("reads");
            else if (full) expect(by).toBe("engine");
            else if (state === "drifted") expect(by).not.toBe("engine");
            else expect(by).toBe(ok && !planned ? "proof" : "engine");
          });
        },
      ),
    );
  });
});
