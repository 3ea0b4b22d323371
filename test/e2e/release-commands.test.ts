/**
 * `stackwright history`, `promote` and `rollback` as an operator runs them: the built command (run
 * in this process, as its bin/stackwright.js runs it: test/helpers/in-process.ts), against an
 * emulator on 127.0.0.1 seeded with completed, failed and hand-made deployments, on stack files in
 * a scratch directory (a git repository for `--branch`). None of them writes to the platform; the
 * engine-backed end of the story (preview, up, `rollback --up`) is in release-flow.test.ts.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { stringify } from "yaml";
import type { SeedInput } from "../../src/emulator";
import type { StackwrightClient } from "../../src/client";
import { HistoryDocument } from "../../src/cli/commands/history";
import { defaultTestAnswers } from "../helpers/emulator";
import { fixtures, type InProcessEmulator } from "../helpers/fixtures";
import { repoRoot } from "../helpers/scratch-project";
import { runInProject } from "../helpers/in-process";

const sha = (c: string) => c.repeat(40);
const HAND = sha("1");
const UAT = sha("a");
const P0 = sha("c");
const P1 = sha("d");
const FAILED = sha("e");
const P2 = sha("f");
const INTRANET_UAT = sha("b");
const marked = (n: number) => `Made by Stackwright\n[stackwright sw-${String(n).padStart(20, "0")}]`;
const ops = "ops@example.com";

const SEED: SeedInput = {
  users: [{ email: ops, token: "demo-token", username: "ops", first_name: "Olivia", surname: "Ops" }],
  stacks: [
    {
      name: "acme-web",
      members: [{ email: ops, role: "Stack Manager" }],
      refs: { main: UAT },
      environments: [
        {
          name: "uat",
          usage: "UAT",
          build_sha: UAT,
          deployments: [
            { sha: HAND, title: "Hot fix by hand", deployer: ops },
            { sha: UAT, title: "Deploy main to UAT", summary: marked(1), deployer: ops },
          ],
        },
        {
          name: "prod",
          usage: "Production",
          build_sha: P2,
          deployments: [
            { sha: P0, title: "Release 0", summary: marked(2), deployer: ops },
            { sha: P1, title: "Release 1", summary: marked(3), deployer: ops },
            { sha: FAILED, state: "Failed", title: "Release 2 (broken)", summary: marked(4), deployer: ops },
            { sha: P2, title: "Release 2", summary: marked(5), deployer: ops },
          ],
        },
        {
          name: "test",
          usage: "Test",
          build_sha: UAT,
          deployments: [
            { sha: HAND, title: "By hand", deployer: ops },
            { sha: UAT, title: "Deploy main", summary: marked(6), deployer: ops },
            { sha: FAILED, state: "Failed", title: "Deploy broken", summary: marked(7), deployer: ops },
          ],
        },
      ],
    },
    {
      name: "acme-intranet",
      members: [{ email: ops, role: "Stack Manager" }],
      environments: [
        {
          name: "uat",
          usage: "UAT",
          build_sha: INTRANET_UAT,
          deployments: [{ sha: INTRANET_UAT, title: "Intranet main", summary: marked(8), deployer: ops }],
        },
        { name: "prod", usage: "Production", build_sha: P0 },
      ],
    },
  ],
};

const ACME_WEB = `# yaml-language-server: $schema=./schema.json
stack: acme-web   # the public site

environments:
  uat:
    deployment:
      ref_type: branch
      ref: main
  prod:
    # what prod runs
    deployment:
      ref_type: promote_from_uat
      approval: request   # a person approves
      title: Promote UAT to production
`;
const ACME_INTRANET = `stack: acme-intranet
environments:
  prod: { deployment: { ref_type: tag, ref: "v2" } }
`;

const test = fixtures({ seed: { yaml: stringify(SEED) } });
let emulator: InProcessEmulator;
let client: StackwrightClient;
/** The test's own ops directory (its stacks-config/ as ACME_WEB and ACME_INTRANET). */
let dir = "";
const files = () => ({
  web: readFileSync(join(dir, "stacks-config", "acme-web.yaml"), "utf8"),
  intranet: readFileSync(join(dir, "stacks-config", "acme-intranet.yaml"), "utf8"),
});
const writeWeb = (text: string) => writeFileSync(join(dir, "stacks-config", "acme-web.yaml"), text);

test.beforeAll(({ emulatorInProcess, client: operators }) => {
  [emulator, client] = [emulatorInProcess, operators];
});
test.beforeEach(async ({ scratchDir }) => {
  await emulator.hooks.reset();
  dir = scratchDir;
  mkdirSync(join(dir, "stacks-config"));
  writeWeb(ACME_WEB);
  writeFileSync(join(dir, "stacks-config", "acme-intranet.yaml"), ACME_INTRANET);
});

/** Runs the built `stackwright` as the seeded operator, against the scratch project. */
async function stackwright(args: string[], extra: Record<string, string> = {}) {
  const env: Record<string, string> = {
    PATH: process.env["PATH"] ?? "",
    STACKWRIGHT_API_URL: emulator.url,
    STACKWRIGHT_EMAIL: ops,
    STACKWRIGHT_API_TOKEN: "demo-token",
    ...extra,
  };
  const project = ["history"].includes(args[0] ?? "") ? [] : ["--project", dir];
  const { status, out } = await runInProject(repoRoot, [...args, ...project], env);
  expect(out).not.toContain("demo-token");
  return { status, out };
}

const ids = async (environment: string) =>
  (await client.deployments.list("acme-web", environment)).map((d) => ({ id: d.id, sha: d.attributes.sha }));
const idOf = async (environment: string, which: string) =>
  (await ids(environment)).find((d) => d.sha === which)?.id ?? "";

describe("stackwright history", () => {
  test("lists completed, failed, running and hand-made deployments newest first, as JSON and as a table", async () => {
    await emulator.hooks.stallNext("acme-web", "test", 120_000);
    const running = await client.deployments.create("acme-web", "test", {
      ref_type: "sha",
      ref: P1,
      bypass_and_start: true,
      title: "Still running",
    });
    const json = await stackwright(["history", "acme-web", "test", "--json"]);
    expect(json.status).toBe(0);
    const document = HistoryDocument.parse(JSON.parse(json.out));
    expect(
      document.deployments.map((d) => [d.state, d.short_sha, d.title, d.current_build, d.stackwright_marker]),
    ).toEqual([
      [expect.stringMatching(/^(Queued|Deploying)$/), "ddddddd", "Still running", false, null],
      ["Failed", "eeeeeee", "Deploy broken", false, "sw-00000000000000000007"],
      ["Completed", "aaaaaaa", "Deploy main", true, "sw-00000000000000000006"],
      ["Completed", "1111111", "By hand", false, null],
    ]);
    expect(document.deployments[0]?.id).toBe(running.id);
    expect(document.deployments[0]?.finished_at).toBeNull();
    // The platform's list items carry no dates and no deployer: history shows none ("-") then.
    const documented = defaultTestAnswers() === "documented";
    expect(document.deployments[1]?.finished_at === null).toBe(!documented);
    expect(document.deployments[3]?.deployer).toEqual(documented ? { name: "Olivia Ops", email: ops } : null);

    const table = await stackwright(["history", "acme-web", "test", "--limit", "3"]);
    expect(table.status).toBe(0);
    const rows = table.out.split("\n");
    expect(rows[0]).toMatch(
      /^ {2}ID +STATE +SHA +TITLE +DEPLOYER +REQUESTED \(UTC\) +STARTED +FINISHED +MADE BY$/,
    );
    expect(rows.find((r) => r.includes("Deploy main"))).toMatch(
      new RegExp(`^\\* \\d+ +Completed +aaaaaaa +Deploy main +${documented ? "Olivia Ops" : "-"} .* sw-0+6$`),
    );
    expect(rows.find((r) => r.includes("Deploy broken"))).toMatch(/Failed .* sw-0+7$/);
    expect(table.out).not.toContain("By hand");
    expect(table.out).toContain(
      "* current build of acme-web/test; 1 older deployment(s) not shown (--limit)",
    );
  });
});

describe("stackwright promote", () => {
  test("pins --to to the full sha --from runs, keeping every other byte, and says so again as a no-op", async () => {
    const first = await stackwright(["promote", "acme-web", "--from", "uat", "--to", "prod"]);
    expect(first.status).toBe(0);
    expect(files().web).toBe(
      ACME_WEB.replace(
        "      ref_type: promote_from_uat\n",
        `      ref_type: sha\n      ref: ${UAT}\n`,
      ).replace("title: Promote UAT to production", "title: Promote aaaaaaa from uat"),
    );
    expect(first.out).toContain(
      `-      ref_type: promote_from_uat\n+      ref_type: sha\n+      ref: ${UAT}`,
    );
    expect(first.out).toContain(
      `acme-web/prod: pinned to ${UAT}, the live build of uat: aaaaaaa "Deploy main to UAT"`,
    );

    const promoted = files().web;
    const again = await stackwright(["promote", "acme-web", "--from", "uat", "--to", "prod"]);
    expect(again.status).toBe(0);
    expect(again.out).toContain("acme-web/prod already pins aaaaaaa in ");
    expect(again.out).toContain(": nothing to change");
    expect(files().web).toBe(promoted);
  });

  test("promotes several files at once", async () => {
    const run = await stackwright(["promote", "--all", "--from", "uat", "--to", "prod"]);
    expect(run.status).toBe(0);
    expect(files().web).toContain(`ref: ${UAT}`);
    expect(files().intranet).toBe(
      `stack: acme-intranet\nenvironments:\n  prod: { deployment: { ref_type: sha, ref: "${INTRANET_UAT}", title: Promote bbbbbbb from uat } }\n`,
    );
  });

  test("refuses, with one line each, a source that is drifted, failed, deploying or awaiting approval, until its flag is given", async () => {
    const refused = async (line: string, flag: string, title: string) => {
      const before = files();
      const run = await stackwright(["promote", "acme-web", "--from", "uat", "--to", "prod"]);
      expect(run.status).toBe(1);
      // The refusal is the only line: it says what is wrong, what to pass, and that nothing changed.
      const lines = run.out.trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`stackwright promote: ${line}`);
      expect(lines[0]).toMatch(/; no file was changed$/);
      expect(files()).toEqual(before);
      const overridden = await stackwright(["promote", "acme-web", "--from", "uat", "--to", "prod", flag]);
      expect(overridden.status, overridden.out).toBe(0);
      expect(files().web).toContain(`title: "${title}"`);
      writeWeb(ACME_WEB);
    };

    await emulator.hooks.handDeploy("acme-web", "uat", HAND);
    await refused(
      "acme-web/uat's live build 1111111 (deployment ",
      "--allow-drift",
      "Promote 1111111 from uat [override: drift]",
    );
    await emulator.hooks.reset();

    await emulator.hooks.nextOutcome("acme-web", "uat", "fail");
    const failed = await client.deployments.create("acme-web", "uat", {
      ref_type: "sha",
      ref: P0,
      bypass_and_start: true,
    });
    await client.waitForDeployment("acme-web", "uat", failed.id).catch(() => undefined);
    await refused(
      `acme-web/uat's newest deployment failed (deployment ${failed.id}`,
      "--allow-failed",
      "Promote aaaaaaa from uat [override: failed]",
    );
    await emulator.hooks.reset();

    await emulator.hooks.stallNext("acme-web", "uat", 120_000);
    await client.deployments.create("acme-web", "uat", { ref_type: "sha", ref: P0, bypass_and_start: true });
    await refused(
      "acme-web/uat is deploying (deployment",
      "--allow-deploying",
      "Promote aaaaaaa from uat [override: deploying]",
    );
    await emulator.hooks.reset();

    const pending = await client.deployments.create("acme-web", "uat", { ref_type: "sha", ref: P0 });
    await refused(
      `acme-web/uat has deployment ${pending.id} waiting for approval or a start (Submitted)`,
      "--allow-pending",
      "Promote aaaaaaa from uat [override: awaiting approval]",
    );
  });

  test("refuses a target that is locked in its file or in a closed change window, until the override", async () => {
    const locked = ACME_WEB + "    lock: { message: Change freeze }\n";
    writeWeb(locked);
    const refusedLock = await stackwright(["promote", "acme-web", "--from", "uat", "--to", "prod"]);
    expect(refusedLock.status).toBe(1);
    expect(refusedLock.out).toContain("acme-web/prod is locked in ");
    expect(refusedLock.out).toContain('("Change freeze"); lift the lock, or pass --allow-locked');
    expect(files().web).toBe(locked);
    const allowed = await stackwright([
      "promote",
      "acme-web",
      "--from",
      "uat",
      "--to",
      "prod",
      "--allow-locked",
    ]);
    expect(allowed.status).toBe(0);
    expect(files().web).toContain('title: "Promote aaaaaaa from uat [override: lock]"');

    const closed =
      ACME_WEB +
      '    windows:\n      - allow: { schedule: "0 9 * * 1-4", duration: 7h, timezone: Europe/London }\n';
    writeWeb(closed);
    const friday = { STACKWRIGHT_NOW: "2026-11-27T18:00:00Z" };
    const refusedWindow = await stackwright(["promote", "acme-web", "--from", "uat", "--to", "prod"], friday);
    expect(refusedWindow.status).toBe(1);
    expect(refusedWindow.out).toContain(
      "acme-web/prod is outside its change windows at 2026-11-27 18:00 UTC: outside every allow window",
    );
    expect(refusedWindow.out).toContain('an on-call engineer may pass --override-window "REASON"');
    expect(files().web).toBe(closed);
    const override = await stackwright(
      ["promote", "acme-web", "--from", "uat", "--to", "prod", "--override-window", "INC-7 checkout down"],
      friday,
    );
    expect(override.status).toBe(0);
    expect(files().web).toContain(
      'title: "Promote aaaaaaa from uat [override: window: INC-7 checkout down]"',
    );
  });

  test("refuses a stack directory that does not validate, naming the spot", async () => {
    writeWeb(ACME_WEB.replace("approval: request", "approval: sometimes"));
    const run = await stackwright(["promote", "acme-web", "--from", "uat", "--to", "prod"]);
    expect(run.status).toBe(2);
    expect(run.out).toContain("acme-web.yaml:13:17: environments.prod.deployment.approval: must be one of");
  });

  test("commits the promotion on a new local branch with git's own author, leaving the working tree alone", async () => {
    const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, encoding: "utf8" }).trim();
    git("init", "-q", "-b", "main");
    git("config", "user.name", "Rel Eng");
    git("config", "user.email", "rel@example.com");
    git("add", ".");
    git("commit", "-qm", "stack files");
    const head = git("rev-parse", "HEAD");
    const run = await stackwright([
      "promote",
      "acme-web",
      "--from",
      "uat",
      "--to",
      "prod",
      "--branch",
      "promote/uat-to-prod",
    ]);
    expect(run.status).toBe(0);
    expect(run.out).toContain("on the new branch 'promote/uat-to-prod' (not checked out, not pushed)");
    expect(git("show", "promote/uat-to-prod:stacks-config/acme-web.yaml")).toContain(`ref: ${UAT}`);
    expect(git("log", "-1", "--format=%an <%ae>%n%s%n%b", "promote/uat-to-prod")).toBe(
      `Rel Eng <rel@example.com>\nPromote acme-web/prod to aaaaaaa from uat\nacme-web/prod: pinned to ${UAT}, the live build of uat: aaaaaaa "Deploy main to UAT" (deployment ${await idOf("uat", UAT)})`,
    );
    expect(git("rev-parse", "promote/uat-to-prod^")).toBe(head);
    expect(git("rev-parse", "HEAD")).toBe(head);
    expect(git("status", "--porcelain")).toBe("");
    expect(git("remote")).toBe("");
    expect(files().web).toBe(ACME_WEB);
  });
});

describe("stackwright promote selection", () => {
  test("selects the files changed since a git ref, and splits --all into shards that cover each file once", async () => {
    const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, encoding: "utf8" }).trim();
    git("init", "-q", "-b", "main");
    git(
      "-c",
      "user.name=t",
      "-c",
      "user.email=t@example.com",
      "commit",
      "-q",
      "--allow-empty",
      "-m",
      "empty",
    );
    git("add", ".");
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "stack files");
    writeFileSync(join(dir, "stacks-config", "acme-intranet.yaml"), `# reviewed\n${ACME_INTRANET}`);
    const changed = await stackwright([
      "promote",
      "--changed-since",
      "HEAD",
      "--from",
      "uat",
      "--to",
      "prod",
    ]);
    expect(changed.status, changed.out).toBe(0);
    expect(files().web).toBe(ACME_WEB);
    expect(files().intranet).toContain(`ref: "${INTRANET_UAT}"`);

    git("checkout", "-q", "--", ".");
    const shards: boolean[][] = [];
    for (const shard of ["1/2", "2/2"]) {
      const before = files();
      const run = await stackwright(["promote", "--all", "--shard", shard, "--from", "uat", "--to", "prod"]);
      expect(run.status, run.out).toBe(0);
      const after = files();
      shards.push([after.web !== before.web, after.intranet !== before.intranet]);
    }
    // Each file is promoted by exactly one of the two shards.
    expect(shards[0]?.map((v, i) => v !== shards[1]?.[i])).toEqual([true, true]);
    expect(files().web).toContain(`ref: ${UAT}`);
    expect(files().intranet).toContain(`ref: "${INTRANET_UAT}"`);
  });
});

describe("stackwright rollback", () => {
  const PROD_PINNED = ACME_WEB.replace(
    "      ref_type: promote_from_uat\n",
    `      ref_type: sha\n      ref: ${P2}\n`,
  );

  test("pins the last completed build before the current one, or the Nth with --steps", async () => {
    writeWeb(PROD_PINNED);
    const one = await stackwright(["rollback", "acme-web", "prod"]);
    expect(one.status).toBe(0);
    expect(files().web).toBe(
      PROD_PINNED.replace(`ref: ${P2}`, `ref: ${P1}`).replace(
        "title: Promote UAT to production",
        "title: Roll back to ddddddd (was fffffff)",
      ),
    );
    writeWeb(PROD_PINNED);
    const two = await stackwright(["rollback", "acme-web", "prod", "--steps", "2"]);
    expect(two.status).toBe(0);
    expect(files().web).toContain(`ref: ${P0}\n`);
    expect(files().web).toContain("title: Roll back to ccccccc (was fffffff)");
    const three = await stackwright(["rollback", "acme-web", "prod", "--steps", "3"]);
    expect(three.status).toBe(1);
    expect(three.out).toContain(
      "acme-web/prod has 2 earlier completed build(s) with another sha than its current build, not 3",
    );
    expect(three.out).toContain("see npm run stackwright -- history acme-web prod");
    const elsewhere = await stackwright(["rollback", "acme-web", "prod", "--steps", "3", "--target", "dev"]);
    expect(elsewhere.out).toContain("see npm run stackwright -- history acme-web prod\n");
  });

  test("pins the deployment --to names, and refuses one that did not complete", async () => {
    const id = await idOf("prod", P0);
    const run = await stackwright(["rollback", "acme-web", "prod", "--to", id]);
    expect(run.status).toBe(0);
    expect(files().web).toContain(`ref: ${P0}\n`);
    writeWeb(ACME_WEB);
    const failed = await idOf("prod", FAILED);
    const refused = await stackwright(["rollback", "acme-web", "prod", "--to", failed]);
    expect(refused.status).toBe(1);
    expect(refused.out.trim()).toBe(
      `stackwright rollback: deployment ${failed} of acme-web/prod is Failed, not Completed; roll back only to a build that completed`,
    );
    expect(files().web).toBe(ACME_WEB);
  });
});
