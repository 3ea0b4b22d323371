/**
 * The workflows `stackwright init` gives an ops repository (templates/workflows/, rendered for the
 * target `dev`) run their steps as GitHub Actions would, in a scratch ops repository against the
 * test emulator, for the events they run on: a push, a branch's first push, a pull request, the
 * schedule and a run started by hand. `run:` steps run as written in bash; the action's steps
 * come from action.yml; third-party actions are stood in for (test/helpers/workflow-run.ts says
 * how each). `npm ci` and `gh` are stand-ins on PATH: the ops repository's node_modules links this
 * checkout already, and `gh` records what it was asked to do for GitHub.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parse } from "yaml";
import { describe, expect } from "vitest";
import { z } from "zod";
import { BUILT_IN_PASSPHRASE } from "../../src/project/passphrase";
import { pinnedPulumiRelease } from "../../src/cli/ops/package";
import { fixtures, type InProcessEmulator } from "../helpers/fixtures";
import { createOpsRepository, packageVersion, type OpsRepository } from "../helpers/ops-repository";
import type { Receiver } from "../helpers/receivers";
import { repoRoot } from "../helpers/scratch-project";
import {
  describeRun,
  type JobRun,
  readWorkflow,
  runWorkflow,
  type WorkflowEvent,
} from "../helpers/workflow-run";

/** Of the test seed: what main points at, and what prod runs. */
const MAIN_SHA = "8f3c2a1d9e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a";
const PROD_SHA = "3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f";
const INTRANET_SHA = "4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b";
const ZEROS = "0".repeat(40);

const ACME_WEB = `stack: acme-web
environments:
  uat:
    deployment: { ref_type: branch, ref: release/2026-11 }
  prod:
    deployment: { ref_type: sha, ref: ${PROD_SHA} }
# A sink subscribed: up and drift refuse to start unless its variables reach them.
notify:
  - name: audit
    kind: webhook
    url_env: AUDIT_WEBHOOK_URL
    secret_env: AUDIT_WEBHOOK_SECRET
    events: [drift.detected, drift.resolved]
`;
const ACME_INTRANET = `stack: acme-intranet
environments:
  test:
    deployment: { ref_type: sha, ref: ${INTRANET_SHA} }
`;

/** One call of the `gh` stand-in, as it records it. */
const GhCall = z.object({ args: z.array(z.string()), token: z.string(), body: z.string().nullable() });
type GhCall = z.infer<typeof GhCall>;

/** What the test reads of package.json. */
const PackageJson = z.looseObject({
  repository: z.union([z.string(), z.looseObject({ url: z.string() })]),
});
/** A GitHub App set up for the promote workflow (its token is the stand-in's). */
const APP_TOKEN = {
  vars: { STACKWRIGHT_APP_ID: "123456" },
  secrets: { STACKWRIGHT_APP_PRIVATE_KEY: "stand-in key" },
};

const packageJson = () =>
  PackageJson.parse(JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")));

/** Tools the runner has that the test stands in for: `npm ci` and `gh`. */
function standInTools(dir: string, ghLog: string): string {
  const bin = path.join(dir, "bin");
  fs.mkdirSync(bin, { recursive: true });
  const npm = execFileSync("bash", ["-c", "command -v npm"], { encoding: "utf8" }).trim();
  fs.writeFileSync(
    path.join(bin, "npm"),
    `#!/usr/bin/env bash
# npm ci: the ops repository's node_modules already links this checkout; installing from a
# registry is not what the test proves. It checks what npm ci needs, and passes anything else on.
if [ "\${1-}" = ci ]; then
  [ -f package-lock.json ] || { echo "npm ci: no package-lock.json in $PWD" >&2; exit 1; }
  [ -f node_modules/stackwright/package.json ] || { echo "npm ci: no stackwright in node_modules" >&2; exit 1; }
  echo "npm ci (stand-in): node_modules/stackwright links the checkout"
  exit 0
fi
exec ${JSON.stringify(npm)} "$@"
`,
    { mode: 0o755 },
  );
  fs.writeFileSync(
    path.join(bin, "gh"),
    `#!/usr/bin/env node
// gh talks to GitHub: this one records its arguments, its token and the body file it names.
const fs = require("node:fs");
const args = process.argv.slice(2);
const at = args.indexOf("--body-file");
const body = at < 0 ? null : fs.readFileSync(args[at + 1], "utf8");
fs.appendFileSync(${JSON.stringify(ghLog)}, JSON.stringify({ args, token: process.env.GH_TOKEN ?? "", body }) + "\\n");
`,
    { mode: 0o755 },
  );
  return bin;
}

/** The emulator, the audit sink's receiver, the ops repository and the runner's scratch directory, for the file. */
const test = fixtures().extend(
  "opsRepository",
  { scope: "file" },
  ({ fixtureOptions: _none }, { onCleanup }): OpsRepository => {
    const repo = createOpsRepository({ "acme-web.yaml": ACME_WEB, "acme-intranet.yaml": ACME_INTRANET });
    onCleanup(() => repo.remove());
    return repo;
  },
);

describe("the ops repository's workflows, step by step", () => {
  let emulator: InProcessEmulator;
  let hook: Receiver;
  let repo: OpsRepository;
  let temp: string;
  let ghLog: string;
  let baseEnv: Record<string, string>;
  let initial: string;
  let runId = 4000;

  const secrets = (): Record<string, string> => ({
    STACKWRIGHT_EMAIL: "release@example.com",
    STACKWRIGHT_API_TOKEN: "release-token",
    // The ops repository here is the demo's dev target on this machine: the one the built-in passphrase serves.
    PULUMI_CONFIG_PASSPHRASE: BUILT_IN_PASSPHRASE,
    STACKWRIGHT_NOTIFY_ENV: `# the audit sink of acme-web\nAUDIT_WEBHOOK_URL=${hook.url}\nAUDIT_WEBHOOK_SECRET=whsec-workflow-steps\n`,
  });
  const vars = (): Record<string, string> => ({
    STACKWRIGHT_API_URL: emulator.url,
    PULUMI_BACKEND_URL: `file://${path.join(temp, "state")}`,
  });
  const run = async (
    workflow: string,
    event: WorkflowEvent,
    extra: { secrets?: Record<string, string>; vars?: Record<string, string> } = {},
  ) => {
    const runs = await runWorkflow(path.join(repo.dir, ".github", "workflows", workflow), {
      workspace: repo.dir,
      event,
      secrets: { ...secrets(), ...extra.secrets },
      vars: { ...vars(), ...extra.vars },
      baseEnv,
      tempDir: temp,
      action: { repository: actionRepository(), version: packageVersion(), dir: repoRoot },
      pulumiRelease: pinnedPulumiRelease(repoRoot),
      runId: ++runId,
    });
    const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    for (const job of runs) {
      const slow = job.steps.filter((s) => s.ms >= 1000).map((s) => `${s.name}: ${seconds(s.ms)}`);
      console.log(
        `workflow-steps: ${workflow} on ${event.name}: ${seconds(job.steps.reduce((t, s) => t + s.ms, 0))} (${slow.join("; ")})`,
      );
    }
    return runs;
  };
  /** The promote workflow started by hand on main's commit `sha` for acme-web, uat to prod. */
  const promoteByHand = (
    sha: string,
    extra: { secrets?: Record<string, string>; vars?: Record<string, string> } = APP_TOKEN,
  ) =>
    run(
      "stackwright-promote.yml",
      {
        name: "workflow_dispatch",
        ref: "refs/heads/main",
        sha,
        payload: { ref: "refs/heads/main", inputs: { site: "acme-web", from: "uat", to: "prod" } },
      },
      extra,
    );
  const push = (before: string, sha: string): WorkflowEvent => ({
    name: "push",
    ref: "refs/heads/main",
    sha,
    payload: { ref: "refs/heads/main", before, after: sha, created: before === ZEROS, forced: false },
  });
  const output = (runs: readonly JobRun[]) => runs.map(describeRun).join("\n");
  const ghCalls = (): GhCall[] =>
    fs.existsSync(ghLog)
      ? fs
          .readFileSync(ghLog, "utf8")
          .split("\n")
          .filter((l) => l !== "")
          .map((l) => GhCall.parse(JSON.parse(l)))
      : [];
  /** The Pulumi stacks whose row a run's result table shows. */
  const stacksRun = (runs: readonly JobRun[]) =>
    [
      ...new Set(
        [...output(runs).matchAll(/^(dev\.[a-z-]+)\s+(ok|failed)\s/gm)].map((m) => `${m[1]} ${m[2]}`),
      ),
    ].sort();

  test.beforeAll(async ({ emulatorInProcess, receivers, opsRepository, fileScratchDir }) => {
    [emulator, hook, repo, temp] = [emulatorInProcess, await receivers(), opsRepository, fileScratchDir];
    initial = repo.git("rev-parse", "HEAD");
    ghLog = path.join(temp, "gh.jsonl");
    const tools = standInTools(temp, ghLog);
    baseEnv = {
      // setup-node: this process's Node first; pulumi/actions: the project's CLI.
      PATH: [
        tools,
        path.dirname(process.execPath),
        path.join(repoRoot, ".tools", "bin"),
        "/usr/local/bin",
        "/usr/bin",
        "/bin",
      ].join(path.delimiter),
      HOME: process.env["HOME"] ?? os.homedir(),
      LANG: "C.UTF-8",
      TMPDIR: os.tmpdir(),
    };
  }, 60_000);

  test("renders every template into a workflow that uses this version's action and keeps no placeholder", () => {
    const dir = path.join(repo.dir, ".github", "workflows");
    const names = fs.readdirSync(dir).sort();
    expect(names).toEqual([
      "stackwright-drift.yml",
      "stackwright-preview.yml",
      "stackwright-promote-ready.yml",
      "stackwright-promote.yml",
      "stackwright-up.yml",
    ]);
    for (const name of names) {
      const text = fs.readFileSync(path.join(dir, name), "utf8");
      expect(text, name).not.toMatch(/__[A-Z_]+__/);
      expect(text, name).toContain(`uses: ${actionRepository()}@v${packageVersion()}`);
    }
  });

  test("reads the state with its S3 credentials in every job, asks for the least permissions, and runs on an upgrade", () => {
    const dir = path.join(repo.dir, ".github", "workflows");
    const permissions: Record<string, unknown> = {};
    for (const name of fs.readdirSync(dir)) {
      const workflow = readWorkflow(path.join(dir, name));
      permissions[name] = workflow.permissions;
      for (const job of Object.values(workflow.jobs)) {
        expect(job.env, name).toMatchObject({
          PULUMI_BACKEND_URL: "${{ vars.PULUMI_BACKEND_URL }}",
          PULUMI_CONFIG_PASSPHRASE: "${{ secrets.PULUMI_CONFIG_PASSPHRASE }}",
          AWS_ACCESS_KEY_ID: "${{ secrets.STATE_AWS_ACCESS_KEY_ID }}",
          AWS_SECRET_ACCESS_KEY: "${{ secrets.STATE_AWS_SECRET_ACCESS_KEY }}",
        });
      }
      const on = z.looseObject({ paths: z.array(z.string()).optional() });
      for (const trigger of ["push", "pull_request"]) {
        const filter = workflow.on[trigger];
        if (filter === undefined) continue;
        expect(on.parse(filter).paths, `${name} ${trigger}`).toEqual(
          expect.arrayContaining([
            "stacks-config/**",
            "Pulumi.dev.yaml",
            "package.json",
            "package-lock.json",
          ]),
        );
      }
    }
    expect(permissions).toEqual({
      "stackwright-drift.yml": { contents: "read" },
      "stackwright-preview.yml": { contents: "read", "pull-requests": "write" },
      "stackwright-promote-ready.yml": { contents: "read" },
      "stackwright-promote.yml": { contents: "read" },
      "stackwright-up.yml": { contents: "read" },
    });
  });

  test("up on a branch's first push (before is forty zeros) runs every stack, with the sinks' variables", async () => {
    const runs = await run("stackwright-up.yml", push(ZEROS, initial));
    expect(
      runs.map((r) => r.succeeded),
      output(runs),
    ).toEqual([true, true]);
    expect(runs.map((r) => r.matrix["shard"])).toEqual([1, 2]);
    expect(stacksRun(runs)).toEqual(["dev.acme-intranet ok", "dev.acme-web ok"]);
    expect(output(runs)).not.toContain("--changed-since");
    for (const job of runs) {
      expect(job.summary).toContain("no commit before this push to compare with: every stack");
      expect(job.concurrency).toEqual([`stackwright-up-dev-shard-${String(job.matrix["shard"])}-of-2`]);
      expect([...job.artifacts.keys()].sort()).toEqual([
        `stackwright-fleet-page-${String(job.matrix["shard"])}`,
        `stackwright-up-summary-${String(job.matrix["shard"])}`,
      ]);
    }
    // The summaries of both shards reached the job summary, and each fleet page was written.
    expect(runs.map((r) => r.summary).join("\n")).toMatch(/acme-web/);
    expect(runs.map((r) => r.summary).join("\n")).toMatch(/acme-intranet/);
    expect(hook.received).toEqual([]);
    // The sinks' values and the API token reach the command, and its log only as masks.
    for (const step of runs.flatMap((r) => r.steps)) {
      const log = step.output
        .split("\n")
        .filter((line) => !line.startsWith("::add-mask::"))
        .join("\n");
      expect(log, step.name).not.toContain("whsec-workflow-steps");
      expect(log, step.name).not.toContain("release-token");
    }
    expect(output(runs)).toContain("::add-mask::whsec-workflow-steps");
  }, 300_000);

  test("preview on a pull request previews only the stack it changes and comments its summary", async () => {
    repo.git("checkout", "-q", "-b", "feature", initial);
    const file = path.join(repo.dir, "stacks-config", "acme-web.yaml");
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("ref: release/2026-11 }", "ref: main }"));
    repo.git("commit", "-qam", "uat deploys main");
    const head = repo.git("rev-parse", "HEAD");
    const requestsBefore = (await emulator.hooks.requests()).length;
    const runs = await run("stackwright-preview.yml", {
      name: "pull_request",
      ref: "refs/pull/7/merge",
      sha: head,
      baseRef: "main",
      headRef: "feature",
      payload: {
        action: "synchronize",
        number: 7,
        pull_request: { number: 7, base: { ref: "main", sha: initial }, head: { ref: "feature", sha: head } },
      },
    });
    expect(
      runs.map((r) => r.succeeded),
      output(runs),
    ).toEqual([true]);
    expect(stacksRun(runs)).toEqual(["dev.acme-web ok"]);
    const [job] = runs;
    expect(job?.summary).toMatch(/uat.*branch `main`/);
    expect(job?.summary).toContain(fs.readFileSync(path.join(repo.dir, "summary-full.md"), "utf8"));
    const comments = ghCalls().filter((c) => c.args[0] === "pr" && c.args[1] === "comment");
    expect(comments.map((c) => c.args.slice(0, 3))).toEqual([["pr", "comment", "7"]]);
    expect(comments[0]?.token).toBe("ghs_github-token-stand-in");
    expect(comments[0]?.body).toContain("acme-web");
    // A preview changes nothing on the platform.
    const writes = (await emulator.hooks.requests())
      .slice(requestsBefore)
      .filter((r) => r.method !== "GET" && !r.path.startsWith("/_emulator"));
    expect(writes).toEqual([]);
  }, 300_000);

  test("up on a push runs only the stacks the push changed", async () => {
    const head = repo.git("rev-parse", "feature");
    repo.git("branch", "-f", "main", head);
    repo.git("push", "-q", "origin", "main");
    const runs = await run("stackwright-up.yml", push(initial, head));
    expect(
      runs.map((r) => r.succeeded),
      output(runs),
    ).toEqual([true, true]);
    expect(stacksRun(runs)).toEqual(["dev.acme-web ok"]);
    expect(output(runs)).toContain(`--changed-since ${initial}`);
  }, 300_000);

  test("drift on the schedule reports a clean fleet and keeps its report and the fleet page", async () => {
    const runs = await run("stackwright-drift.yml", {
      name: "schedule",
      ref: "refs/heads/main",
      sha: repo.git("rev-parse", "main"),
      payload: { schedule: "17 * * * *" },
    });
    expect(
      runs.map((r) => r.succeeded),
      output(runs),
    ).toEqual([true]);
    const [job] = runs;
    if (job === undefined) throw new Error("no drift job");
    // The report as the command wrote it is on the run's page.
    const report = fs.readFileSync(path.join(repo.dir, "drift.md"), "utf8");
    expect(report).toMatch(/acme-web/);
    expect(job.summary).toContain(report);
    expect(
      Object.fromEntries(
        [...job.artifacts].map(([name, files]) => [name, files.map((f) => path.basename(f))]),
      ),
    ).toEqual({
      "stackwright-drift": ["drift.json", "drift.md"],
      "stackwright-fleet-page": ["fleet.html", "status.json"],
    });
    expect(hook.received).toEqual([]);
  }, 300_000);

  test("drift without the sinks' secret refuses to start, naming the variable its sink needs", async () => {
    const runs = await run(
      "stackwright-drift.yml",
      { name: "workflow_dispatch", ref: "refs/heads/main", sha: repo.git("rev-parse", "main"), payload: {} },
      { secrets: { STACKWRIGHT_NOTIFY_ENV: "" } },
    );
    expect(runs.map((r) => r.succeeded)).toEqual([false]);
    const drift = runs[0]?.steps.find((s) =>
      s.name.endsWith("stackwright drift --target dev --json drift.json --summary drift.md"),
    );
    expect(drift?.exitCode, output(runs)).toBe(2);
    expect(drift?.output).toMatch(/notify sink 'audit': url_env: the variable AUDIT_WEBHOOK_URL is not set/);
  }, 120_000);

  test("promote by hand opens its pull request with the GitHub App's token, never GITHUB_TOKEN", async () => {
    const runs = await promoteByHand(repo.git("rev-parse", "main"));
    expect(
      runs.map((r) => r.succeeded),
      output(runs),
    ).toEqual([true]);
    // The target's state says which live builds an up adopted: without it an imported site is refused.
    expect(
      runs[0]?.steps.some((step) => step.name.includes("stackwright promote --target dev acme-web")),
    ).toBe(true);
    const branch = `promote/acme-web-prod-${runId}`;
    const pushed = execFileSync(
      "git",
      ["--git-dir", repo.origin, "show", `${branch}:stacks-config/acme-web.yaml`],
      {
        encoding: "utf8",
      },
    );
    expect(parse(pushed)).toMatchObject({ environments: { prod: { deployment: { ref: MAIN_SHA } } } });
    const created = ghCalls().filter((c) => c.args[0] === "pr" && c.args[1] === "create");
    expect(created.map((c) => c.args.slice(0, 6))).toEqual([
      ["pr", "create", "--base", "main", "--head", branch],
    ]);
    expect(created[0]?.token).toBe("ghs_app-token-stand-in");
  }, 300_000);

  test("promote refuses in one line, before anything, when no token that starts workflows is set", async () => {
    const runs = await promoteByHand(repo.git("rev-parse", "main"), {});
    expect(runs.map((r) => r.succeeded)).toEqual([false]);
    const failed = runs[0]?.steps.filter((s) => s.exitCode !== 0) ?? [];
    expect(failed.map((s) => s.name)).toEqual(["Check the token and the inputs"]);
    expect(failed[0]?.output.trim().split("\n")).toEqual([
      expect.stringMatching(
        /^::error::no token to open the pull request with: set the variable STACKWRIGHT_APP_ID/,
      ),
    ]);
    expect(runs[0]?.steps.filter((s) => s.kind !== "skipped").map((s) => s.name)).toEqual([
      "Check the token and the inputs",
    ]);
  }, 60_000);

  test("promote ready, on its schedule, opens one pull request per ready promotion, and none again for one already proposed", async () => {
    repo.git("checkout", "-q", "main");
    const prod = `    deployment: { ref_type: sha, ref: ${PROD_SHA} }\n`;
    fs.writeFileSync(
      path.join(repo.dir, "stacks-config", "acme-web.yaml"),
      ACME_WEB.replace(prod, `${prod}    promotion: { from: uat }\n`),
    );
    repo.git("commit", "-qam", "prod takes uat's builds");
    const schedule: WorkflowEvent = {
      name: "schedule",
      ref: "refs/heads/main",
      sha: repo.git("rev-parse", "HEAD"),
      payload: { schedule: "47 * * * *" },
    };
    const runs = await run("stackwright-promote-ready.yml", schedule, APP_TOKEN);
    expect(
      runs.map((r) => r.succeeded),
      output(runs),
    ).toEqual([true]);
    const branch = `promote-ready/acme-web-prod-${MAIN_SHA.slice(0, 7)}`;
    expect(output(runs)).toContain(`${branch}`);
    const pushed = execFileSync(
      "git",
      ["--git-dir", repo.origin, "show", `${branch}:stacks-config/acme-web.yaml`],
      {
        encoding: "utf8",
      },
    );
    expect(parse(pushed)).toMatchObject({ environments: { prod: { deployment: { ref: MAIN_SHA } } } });
    const opened = () => ghCalls().filter((c) => c.args[1] === "create" && c.args.includes(branch));
    expect(opened().map((c) => c.token)).toEqual(["ghs_app-token-stand-in"]);
    expect(runs[0]?.summary).toContain("opened 1 promotion pull request(s)");

    // The next run's checkout is fresh: the branch is on origin only, and its pull request open.
    repo.git("branch", "-D", branch);
    const again = await run("stackwright-promote-ready.yml", schedule, APP_TOKEN);
    expect(
      again.map((r) => r.succeeded),
      output(again),
    ).toEqual([true]);
    expect(again[0]?.summary).toContain(`${branch}: already proposed`);
    expect(opened()).toHaveLength(1);
  }, 300_000);

  test("the action stops in one line when the ops repository has no package-lock.json to install from", async () => {
    repo.git("checkout", "-q", "--detach", "main");
    repo.git("rm", "-q", "package-lock.json");
    repo.git("commit", "-qm", "no lock file");
    const runs = await promoteByHand(repo.git("rev-parse", "HEAD"));
    expect(runs.map((r) => r.succeeded)).toEqual([false]);
    const failed = runs[0]?.steps.filter((s) => s.exitCode !== 0) ?? [];
    expect(failed.map((s) => s.name)).toEqual([
      `${actionRepository()}@v${packageVersion()} › Check the ops repository`,
    ]);
    expect(failed[0]?.output.trim()).toBe(
      `::error::${repo.dir} has no package-lock.json: run npm install there and commit package-lock.json (CI installs exactly the stackwright it pins)`,
    );
  }, 60_000);
});

/**
 * The action's repository, `owner/name`, from package.json's `repository` (github:owner/name);
 * github:stackwright/stackwright until package.json names one.
 */
function actionRepository(): string {
  const repository = packageJson().repository;
  const url = typeof repository === "string" ? repository : repository.url;
  const match = /github(?::|\.com\/)([^/]+\/[^/.#]+)/.exec(url);
  if (match?.[1] === undefined) throw new Error(`package.json's repository '${url}' is not on GitHub`);
  return match[1];
}
