/**
 * `stackwright promote` gated by verification and soak time, and `history` showing what the checks
 * found, as an operator runs them: the built command (run in this process, as its
 * bin/stackwright.js runs it: test/helpers/in-process.ts), against an emulator on 127.0.0.1, on
 * stack files in a scratch git repository whose state backend holds what the last `up` recorded
 * (the Deployment resources' outputs, verification included, written as the engine writes its
 * checkpoint).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { stringify } from "yaml";
import type { SeedInput } from "../../src/emulator";
import { HistoryDocument } from "../../src/cli/commands/history";
import {
  createGitRepository,
  fixtures,
  type GitRepository,
  type InProcessEmulator,
} from "../helpers/fixtures";
import { repoRoot } from "../helpers/scratch-project";
import { runInProject } from "../helpers/in-process";
import {
  deploymentResource,
  failedVerification,
  verification,
  writeCheckpoint,
} from "../helpers/verifications";

const sha = (c: string) => c.repeat(40);
const UAT = sha("a");
const PROD = sha("c");
const CAFE_UAT = sha("b");
const ops = "ops@example.com";
const marked = (n: number) => `Made by Stackwright\n[stackwright sw-${String(n).padStart(20, "0")}]`;
/** When uat's builds completed, and the clock of the runs after it. */
const DEPLOYED = Date.parse("2026-11-25T09:00:00Z") / 1000;
const after = (minutes: number) => new Date((DEPLOYED + minutes * 60) * 1000).toISOString();

const SEED: SeedInput = {
  users: [{ email: ops, token: "demo-token", username: "ops", first_name: "Olivia", surname: "Ops" }],
  stacks: ["shop", "cafe", "plain"].map((name, i) => ({
    name,
    members: [{ email: ops, role: "Stack Manager" }],
    environments: [
      {
        name: "uat",
        usage: "UAT",
        build_sha: name === "cafe" ? CAFE_UAT : UAT,
        deployments: [
          {
            sha: name === "cafe" ? CAFE_UAT : UAT,
            title: "Deploy main to UAT",
            summary: marked(i + 1),
            deployer: ops,
            // cafe's build has run for a day by the clock of these runs; the others' for 30 minutes.
            created_unix: name === "cafe" ? DEPLOYED - 86_400 : DEPLOYED,
          },
        ],
      },
      {
        name: "prod",
        usage: "Production",
        build_sha: PROD,
        deployments: [{ sha: PROD, title: "Release 1", summary: marked(10 + i), deployer: ops }],
      },
    ],
  })),
};

const file = (stack: string, prod: string, uat = "") => `stack: ${stack}
environments:
  uat:
    deployment: { ref_type: branch, ref: main }${uat}
  prod:
    deployment: { ref_type: tag, ref: v1 }${prod}
`;

const test = fixtures({ seed: { yaml: stringify(SEED) } });
let emulator: InProcessEmulator;
/** The test's own ops repository: the three stack files, committed on main. */
let repo: GitRepository;
let dir = "";
const read = (stack: string) => readFileSync(join(dir, "stacks-config", `${stack}.yaml`), "utf8");
const git = (...args: string[]) => repo.git(...args);

test.beforeAll(({ emulatorInProcess }) => {
  emulator = emulatorInProcess;
});
test.beforeEach(({ scratchDir }) => {
  dir = scratchDir;
  repo = createGitRepository(dir, {
    "stacks-config/shop.yaml": file("shop", "\n    promotion: { from: uat, min_soak: 2h }"),
    "stacks-config/cafe.yaml": file("cafe", "\n    promotion: { from: uat, min_soak: 2h }"),
    "stacks-config/plain.yaml": file("plain", ""),
  });
});

async function stackwright(args: string[], now: string) {
  const env: Record<string, string> = {
    PATH: process.env["PATH"] ?? "",
    STACKWRIGHT_API_URL: emulator.url,
    STACKWRIGHT_EMAIL: ops,
    STACKWRIGHT_API_TOKEN: "demo-token",
    STACKWRIGHT_NOW: now,
    GIT_AUTHOR_NAME: "t",
    GIT_AUTHOR_EMAIL: "t@example.com",
    GIT_COMMITTER_NAME: "t",
    GIT_COMMITTER_EMAIL: "t@example.com",
  };
  const { status, out } = await runInProject(repoRoot, [...args, "--project", dir], env);
  expect(out).not.toContain("demo-token");
  return { status, out };
}

describe("promote gated by soak time", () => {
  test("refuses a build that has run on --from for less than --to's min_soak, in one line, and lets it through with --allow-early", async () => {
    const early = await stackwright(["promote", "shop", "--from", "uat", "--to", "prod"], after(30));
    expect(early.status).toBe(1);
    expect(early.out).toContain(
      "stackwright promote: shop/uat's build aaaaaaa has run there for 30m, less than shop/prod's promotion.min_soak 2h " +
        "(ready at 2026-11-25 11:00 UTC); promote it once it has soaked, or pass --allow-early",
    );
    expect(read("shop")).not.toContain(UAT);

    const allowed = await stackwright(
      ["promote", "shop", "--from", "uat", "--to", "prod", "--allow-early"],
      after(30),
    );
    expect(allowed.status).toBe(0);
    expect(read("shop")).toContain(`ref: ${UAT}`);
    expect(read("shop")).toContain('title: "Promote aaaaaaa from uat [override: early]"');
  });

  test("promotes once the build has soaked, and a file without promotion: as before", async () => {
    const soaked = await stackwright(["promote", "shop", "--from", "uat", "--to", "prod"], after(121));
    expect(soaked.status).toBe(0);
    expect(read("shop")).toContain("title: Promote aaaaaaa from uat }");
    const plain = await stackwright(["promote", "plain", "--from", "uat", "--to", "prod"], after(1));
    expect(plain.status).toBe(0);
    expect(read("plain")).toContain(`ref: ${UAT}`);
  });
});

describe("promote --all --ready", () => {
  test("pins every environment whose source is ready, one branch each, and skips the others with their reason", async () => {
    const run = await stackwright(["promote", "--all", "--ready", "--branch", "promote-ready"], after(30));
    expect(run.status).toBe(0);
    expect(run.out).toContain("skip shop/prod: shop/uat's build aaaaaaa has run there for 30m, less than");
    expect(run.out).not.toMatch(/plain/);
    const branches = git("branch", "--list", "promote-ready/*", "--format=%(refname:short)");
    expect(branches).toBe("promote-ready/cafe-prod-bbbbbbb");
    expect(git("show", `${branches}:stacks-config/cafe.yaml`)).toContain(`ref: ${CAFE_UAT}`);
    expect(git("log", "-1", "--format=%s", branches)).toBe("Promote cafe/prod to bbbbbbb (ready)");
    // Nothing in the working tree changed: each promotion is its own branch.
    expect(read("cafe")).not.toContain(CAFE_UAT);

    const later = await stackwright(["promote", "--all", "--ready"], after(121));
    expect(later.status).toBe(0);
    expect(read("shop")).toContain(`ref: ${UAT}`);
    expect(read("cafe")).toContain(`ref: ${CAFE_UAT}`);
  });

  test("says so when no selected environment declares promotion.from", async () => {
    const run = await stackwright(["promote", "plain", "--ready"], after(1));
    expect(run.status).toBe(0);
    expect(run.out).toContain(
      "stackwright promote: no selected environment declares promotion.from: nothing to do",
    );
  });
});

describe("history of a verified environment", () => {
  test("shows where Stackwright checked a deployment what the checks found, as a column and in --json", async () => {
    const before = HistoryDocument.parse(
      JSON.parse((await stackwright(["history", "shop", "uat", "--json"], after(1))).out),
    );
    const id = before.deployments[0]?.id ?? "";
    expect(before.deployments[0]?.verification).toBeNull();
    writeCheckpoint(dir, "dev.shop", [
      deploymentResource("shop", "uat", { sha: UAT, id, verification: failedVerification(UAT, id) }),
    ]);
    const json = await stackwright(["history", "shop", "uat", "--json"], after(1));
    expect(json.status).toBe(0);
    expect(HistoryDocument.parse(JSON.parse(json.out)).deployments[0]?.verification).toMatchObject({
      result: "failed",
      text: 'failed after 30 attempts: check 1 (/health): expected status 200; got 503 "Down for maintenance" in 12 ms',
    });
    const table = await stackwright(["history", "shop", "uat"], after(1));
    expect(table.out).toMatch(new RegExp(`^\\* ${id} +Completed +aaaaaaa .* failed$`, "m"));
    expect(table.out).toContain(`deployment ${id}: failed after 30 attempts: check 1 (/health)`);
  });
});

describe("promote gated by verification", () => {
  const verify = "\n    verify: { checks: [{ path: /health, status: 200 }] }";

  test("refuses a build of a source with verify: that failed its checks or was not checked, and lets it through with --allow-unverified", async () => {
    writeFileSync(join(dir, "stacks-config", "shop.yaml"), file("shop", "", verify));
    const unverified = await stackwright(["promote", "shop", "--from", "uat", "--to", "prod"], after(1));
    expect(unverified.status).toBe(1);
    expect(unverified.out).toContain(
      "stackwright promote: uat declares verify: but shop/uat's build aaaaaaa was not verified",
    );

    writeCheckpoint(dir, "dev.shop", [
      deploymentResource("shop", "uat", { sha: UAT, id: "1", verification: failedVerification(UAT, "1") }),
    ]);
    const failed = await stackwright(["promote", "shop", "--from", "uat", "--to", "prod"], after(1));
    expect(failed.status).toBe(1);
    expect(failed.out).toContain(
      `stackwright promote: shop/uat's build aaaaaaa failed verification: check 1 (/health): expected status 200; got 503 "Down for maintenance" in 12 ms; promote a build that passed its checks, or pass --allow-unverified`,
    );

    const allowed = await stackwright(
      ["promote", "shop", "--from", "uat", "--to", "prod", "--allow-unverified"],
      after(1),
    );
    expect(allowed.status).toBe(0);
    expect(read("shop")).toContain("[override: unverified]");

    writeFileSync(join(dir, "stacks-config", "shop.yaml"), file("shop", "", verify));
    writeCheckpoint(dir, "dev.shop", [
      deploymentResource("shop", "uat", { sha: UAT, id: "1", verification: verification(UAT, "1") }),
    ]);
    const passed = await stackwright(["promote", "shop", "--from", "uat", "--to", "prod"], after(1));
    expect(passed.status).toBe(0);
  });
});
