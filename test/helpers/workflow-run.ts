/**
 * Runs a GitHub Actions workflow's jobs on this machine as a runner would, for the workflow-steps
 * test: each job once per matrix entry, each step in order with the `GITHUB_*` variables, event
 * payload and files (GITHUB_OUTPUT, GITHUB_ENV, GITHUB_STEP_SUMMARY) that Actions gives it.
 * `run:` steps run as written in bash, their `${{ }}` evaluated by workflow-expressions.ts; the
 * steps of this repository's own action (`uses: <repository>@v<version>`) are expanded from
 * action.yml and run the same way. Third-party actions are stood in for, each with its note in
 * STAND_INS; any other action fails the run.
 */
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { parse } from "yaml";
import { z } from "zod";
import { asText, type ExpressionContext, interpolate, shouldRun, type Value } from "./workflow-expressions";

const Scalar = z.union([z.string(), z.number(), z.boolean()]);
const Vars = z.record(z.string(), Scalar);

// Strict: a key this runner does not act on (continue-on-error, defaults, a job's if, ...) fails
// the parse rather than being passed over.
const Step = z.strictObject({
  id: z.string().optional(),
  name: z.string().optional(),
  if: z.union([z.string(), z.boolean()]).optional(),
  uses: z.string().optional(),
  run: z.string().optional(),
  shell: z.string().optional(),
  "working-directory": z.string().optional(),
  env: Vars.optional(),
  with: Vars.optional(),
});
type Step = z.infer<typeof Step>;

const Job = z.strictObject({
  "runs-on": z.string(),
  // Where the job's secrets may come from and what its token may do: GitHub's, not the runner's.
  permissions: z.record(z.string(), z.string()).optional(),
  environment: z.string().optional(),
  strategy: z
    .strictObject({ matrix: z.record(z.string(), z.array(Scalar)), "fail-fast": z.boolean().optional() })
    .optional(),
  concurrency: z.strictObject({ group: z.string(), "cancel-in-progress": z.boolean().optional() }).optional(),
  env: Vars.optional(),
  steps: z.array(Step),
});

const Workflow = z.strictObject({
  name: z.string(),
  on: z.record(z.string(), z.unknown()),
  permissions: z.record(z.string(), z.string()),
  concurrency: z.strictObject({ group: z.string(), "cancel-in-progress": z.boolean().optional() }).optional(),
  env: Vars.optional(),
  jobs: z.record(z.string(), Job),
});
export type Workflow = z.infer<typeof Workflow>;

const DispatchInputs = z.looseObject({
  workflow_dispatch: z
    .union([
      z.null(),
      z.looseObject({
        inputs: z.record(z.string(), z.looseObject({ default: Scalar.optional() })).optional(),
      }),
    ])
    .optional(),
});

const Action = z.looseObject({
  inputs: z.record(
    z.string(),
    z.strictObject({ description: z.string(), default: Scalar.optional(), required: z.boolean().optional() }),
  ),
  outputs: z.record(z.string(), z.strictObject({ description: z.string(), value: z.string() })).optional(),
  runs: z.strictObject({ using: z.literal("composite"), steps: z.array(Step) }),
});

export function readWorkflow(file: string): Workflow {
  return Workflow.parse(parse(fs.readFileSync(file, "utf8")));
}

/**
 * The third-party actions the workflows use, and what the test does in their place. Each gets
 * the step's evaluated `with:` and answers with the step's outputs, or throws to fail the step.
 */
export const STAND_INS: Readonly<Record<string, string>> = {
  "actions/checkout":
    "checks out the event's commit in the scratch ops repository, with its whole history, and cleans what earlier jobs left",
  "actions/setup-node": "the Node.js of this test process is first on PATH",
  "pulumi/actions":
    "the project's Pulumi CLI is on PATH; the release asked for must be the one Stackwright pins",
  "actions/upload-artifact": "the files it names must exist; they are recorded as the artifact",
  "actions/create-github-app-token": "answers a stand-in installation token",
};

/** The event a run is for: its name, payload and the refs Actions derives from it. */
export interface WorkflowEvent {
  readonly name: "push" | "pull_request" | "schedule" | "workflow_dispatch";
  readonly payload: Readonly<Record<string, Value>>;
  /** GITHUB_REF, e.g. refs/heads/main or refs/pull/7/merge. */
  readonly ref: string;
  /** GITHUB_SHA. */
  readonly sha: string;
  readonly baseRef?: string;
  readonly headRef?: string;
}

export interface RunOptions {
  /** The ops repository (GITHUB_WORKSPACE). */
  readonly workspace: string;
  readonly event: WorkflowEvent;
  readonly secrets: Readonly<Record<string, string>>;
  readonly vars: Readonly<Record<string, string>>;
  /** PATH and the rest of a runner's environment, before any GITHUB_* variable. */
  readonly baseEnv: Readonly<Record<string, string>>;
  /** Where each job gets its RUNNER_TEMP and files. */
  readonly tempDir: string;
  /** Our action: `owner/name`, the version its tag must carry, and the checkout holding action.yml. */
  readonly action: { readonly repository: string; readonly version: string; readonly dir: string };
  /** The Pulumi CLI release Stackwright pins (what pulumi/actions must be asked for). */
  readonly pulumiRelease: string;
  readonly runId: number;
}

export interface StepRecord {
  readonly name: string;
  /** run, our action's expanded steps (as `action: <inner name>`), a stand-in, or skipped. */
  readonly kind: "run" | "stand-in" | "skipped";
  readonly exitCode: number;
  readonly output: string;
  /** How long the step took, for the report of what the test costs (never asserted). */
  readonly ms: number;
}

export interface JobRun {
  readonly job: string;
  readonly matrix: Readonly<Record<string, Value>>;
  readonly succeeded: boolean;
  readonly steps: readonly StepRecord[];
  /** What the steps appended to GITHUB_STEP_SUMMARY. */
  readonly summary: string;
  /** Artifact name → the files uploaded (absolute paths). */
  readonly artifacts: ReadonlyMap<string, readonly string[]>;
  /** The values of concurrency groups, as evaluated. */
  readonly concurrency: readonly string[];
}

/** GITHUB_OUTPUT / GITHUB_ENV syntax: `name=value` lines and `name<<DELIMITER` blocks. */
export function parseCommandFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (line === "") continue;
    const block = /^([^=<]+)<<(.+)$/.exec(line);
    if (block !== null) {
      const [, name = "", delimiter] = block;
      const body: string[] = [];
      for (i++; i < lines.length && lines[i] !== delimiter; i++) body.push(lines[i] ?? "");
      if (i >= lines.length) throw new Error(`${name}<<${delimiter} is never closed`);
      out[name] = body.join("\n");
      continue;
    }
    const eq = line.indexOf("=");
    if (eq < 0) throw new Error(`not name=value: ${line}`);
    out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}

function matrixEntries(matrix: Readonly<Record<string, readonly (string | number | boolean)[]>> | undefined) {
  let entries: Record<string, Value>[] = [{}];
  for (const [key, values] of Object.entries(matrix ?? {})) {
    entries = entries.flatMap((entry) => values.map((v) => ({ ...entry, [key]: v })));
  }
  return entries;
}

interface Shell {
  readonly exitCode: number;
  readonly output: string;
}

function runBash(
  script: string,
  args: readonly string[],
  cwd: string,
  env: Record<string, string>,
  file: string,
) {
  fs.writeFileSync(file, script);
  return new Promise<Shell>((resolve, reject) => {
    const child = spawn("bash", [...args, file], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    child.once("error", reject);
    child.once("close", (code, signal) => resolve({ exitCode: code ?? (signal === null ? 1 : 128), output }));
  });
}

/** One job's state while its steps run: its files, its accumulated environment, its records. */
class JobRunner {
  readonly records: StepRecord[] = [];
  readonly artifacts = new Map<string, string[]>();
  readonly files: { output: string; env: string; summary: string; path: string; temp: string };
  /** Variables later steps get from GITHUB_ENV. */
  private readonly exported: Record<string, string> = {};
  private counter = 0;

  constructor(
    private readonly options: RunOptions,
    readonly jobDir: string,
    private readonly githubEnv: Record<string, string>,
  ) {
    fs.mkdirSync(jobDir, { recursive: true });
    this.files = {
      output: path.join(jobDir, "output"),
      env: path.join(jobDir, "env"),
      summary: path.join(jobDir, "step-summary.md"),
      path: path.join(jobDir, "path"),
      temp: path.join(jobDir, "temp"),
    };
    fs.mkdirSync(this.files.temp, { recursive: true });
    fs.writeFileSync(this.files.summary, "");
  }

  /**
   * Runs `steps` in order with `base` contexts; the `steps` context of this list is its own (a
   * composite action's steps see only each other). Returns whether all that had to run succeeded.
   */
  async runSteps(
    steps: readonly Step[],
    base: Omit<ExpressionContext, "contexts"> & { contexts: Record<string, Value> },
    env: Record<string, string>,
    prefix: string,
    extraEnv: Record<string, string> = {},
  ): Promise<{ succeeded: boolean; exitCode: number; outputs: Record<string, Record<string, string>> }> {
    const outputs: Record<string, Record<string, string>> = {};
    const stepsContext: Record<string, Value> = {};
    for (const step of steps) {
      if (step.id !== undefined) stepsContext[step.id] = { outputs: {}, outcome: null, conclusion: null };
    }
    let succeeded = true;
    let exitCode = 0;
    for (const [index, step] of steps.entries()) {
      const currentEnv = { ...env, ...this.exported };
      const context: ExpressionContext = {
        ...base,
        contexts: { ...base.contexts, env: currentEnv, steps: stepsContext },
        strict: new Set([...base.strict, "steps"]),
      };
      const name = `${prefix}${step.name === undefined ? (step.uses ?? step.run?.split("\n")[0] ?? `step ${index + 1}`) : interpolate(step.name, context)}`;
      if (!shouldRun(step.if, succeeded, context)) {
        this.records.push({ name, kind: "skipped", exitCode: 0, output: "", ms: 0 });
        continue;
      }
      const stepEnv = Object.fromEntries(
        Object.entries(step.env ?? {}).map(([k, v]) => [k, interpolate(String(v), context)]),
      );
      const withs = Object.fromEntries(
        Object.entries(step.with ?? {}).map(([k, v]) => [k, interpolate(String(v), context)]),
      );
      let result: { exitCode: number; outputs: Record<string, string> };
      if (step.run !== undefined) {
        result = await this.runStep(step, context, { ...currentEnv, ...extraEnv, ...stepEnv }, name);
      } else if (step.uses !== undefined) {
        result = await this.uses(step.uses, withs, { ...currentEnv, ...stepEnv }, context, name);
      } else {
        throw new Error(`${name}: neither run nor uses`);
      }
      if (step.id !== undefined) {
        outputs[step.id] = result.outputs;
        const outcome = result.exitCode === 0 ? "success" : "failure";
        stepsContext[step.id] = { outputs: result.outputs, outcome, conclusion: outcome };
      }
      if (result.exitCode !== 0 && succeeded) {
        succeeded = false;
        exitCode = result.exitCode;
      }
    }
    return { succeeded, exitCode, outputs };
  }

  private async runStep(
    step: Step,
    context: ExpressionContext,
    env: Record<string, string>,
    name: string,
  ): Promise<{ exitCode: number; outputs: Record<string, string> }> {
    const script = interpolate(step.run ?? "", context);
    const workingDirectory = path.resolve(
      this.options.workspace,
      step["working-directory"] === undefined ? "." : interpolate(step["working-directory"], context),
    );
    // Actions' own invocations: `shell: bash` is bash --noprofile --norc -eo pipefail, no shell is bash -e.
    const args =
      step.shell === undefined
        ? ["-e"]
        : step.shell === "bash"
          ? ["--noprofile", "--norc", "-eo", "pipefail"]
          : undefined;
    if (args === undefined) throw new Error(`${name}: shell '${step.shell ?? ""}' is not bash`);
    for (const file of [this.files.output, this.files.env]) fs.writeFileSync(file, "");
    const began = Date.now();
    const shell = await runBash(
      script,
      args,
      workingDirectory,
      {
        ...env,
        ...this.githubEnv,
        GITHUB_OUTPUT: this.files.output,
        GITHUB_ENV: this.files.env,
        GITHUB_STEP_SUMMARY: this.files.summary,
        GITHUB_PATH: this.files.path,
        RUNNER_TEMP: this.files.temp,
      },
      path.join(this.jobDir, `step-${++this.counter}.sh`),
    );
    Object.assign(this.exported, parseCommandFile(fs.readFileSync(this.files.env, "utf8")));
    const outputs = parseCommandFile(fs.readFileSync(this.files.output, "utf8"));
    this.records.push({
      name,
      kind: "run",
      exitCode: shell.exitCode,
      output: shell.output,
      ms: Date.now() - began,
    });
    return { exitCode: shell.exitCode, outputs };
  }

  private async uses(
    uses: string,
    withs: Record<string, string>,
    env: Record<string, string>,
    context: ExpressionContext,
    name: string,
  ): Promise<{ exitCode: number; outputs: Record<string, string> }> {
    const [repository = "", version = ""] = uses.split("@");
    const ours = this.options.action;
    if (repository === ours.repository) {
      if (version !== `v${ours.version}`) {
        throw new Error(`${name}: ${uses} is not the installed version v${ours.version}`);
      }
      return this.composite(withs, env, context, name);
    }
    const note = STAND_INS[repository];
    if (note === undefined) throw new Error(`${name}: no stand-in for the action ${uses}`);
    let outputs: Record<string, string> = {};
    let problem: string | undefined;
    if (repository === "actions/checkout") {
      const git = (...args: string[]) =>
        execFileSync("git", args, { cwd: this.options.workspace, stdio: ["ignore", "pipe", "pipe"] });
      git("checkout", "-q", "--detach", this.options.event.sha);
      git("clean", "-ffdxq", "-e", "node_modules");
    } else if (repository === "pulumi/actions" && withs["pulumi-version"] !== this.options.pulumiRelease) {
      problem = `pulumi/actions was asked for '${withs["pulumi-version"] ?? ""}', not the pinned ${this.options.pulumiRelease}`;
    } else if (repository === "actions/upload-artifact") {
      const files = (withs["path"] ?? "")
        .split("\n")
        .map((f) => f.trim())
        .filter((f) => f !== "")
        .map((f) => path.resolve(this.options.workspace, f));
      const missing = files.filter((f) => !fs.existsSync(f));
      if (files.length === 0 || missing.length > 0) problem = `no such file to upload: ${missing.join(", ")}`;
      else this.artifacts.set(withs["name"] ?? "artifact", files);
    } else if (repository === "actions/create-github-app-token") {
      if ((withs["app-id"] ?? "") === "" || (withs["private-key"] ?? "") === "") {
        problem = "create-github-app-token needs app-id and private-key";
      } else outputs = { token: "ghs_app-token-stand-in", "app-slug": "stackwright-ops" };
    }
    this.records.push({
      name,
      kind: "stand-in",
      exitCode: problem === undefined ? 0 : 1,
      output: problem ?? `${note} (with: ${Object.keys(withs).join(", ")})`,
      ms: 0,
    });
    return { exitCode: problem === undefined ? 0 : 1, outputs };
  }

  /** Our action: its inputs from `with:` and defaults, its steps, its outputs. */
  private async composite(
    withs: Record<string, string>,
    env: Record<string, string>,
    outer: ExpressionContext,
    name: string,
  ): Promise<{ exitCode: number; outputs: Record<string, string> }> {
    const action = Action.parse(
      parse(fs.readFileSync(path.join(this.options.action.dir, "action.yml"), "utf8")),
    );
    const unknown = Object.keys(withs).filter((k) => !(k in action.inputs));
    if (unknown.length > 0) throw new Error(`${name}: the action has no input ${unknown.join(", ")}`);
    const inputs: Record<string, Value> = {};
    for (const [key, spec] of Object.entries(action.inputs)) {
      const value = withs[key] ?? (spec.default === undefined ? undefined : String(spec.default));
      if (value === undefined && spec.required === true) throw new Error(`${name}: input ${key} is required`);
      inputs[key] = value ?? "";
    }
    const github = outer.contexts["github"];
    const context = {
      workspace: outer.workspace,
      // A composite action sees no secrets, vars or matrix: only what its inputs pass.
      contexts: {
        github: {
          ...(typeof github === "object" && github !== null ? github : {}),
          action_path: this.options.action.dir,
        },
        inputs,
      },
      strict: new Set(["github", "inputs"]),
    };
    const result = await this.runSteps(action.runs.steps, context, env, `${name} › `, {
      GITHUB_ACTION_PATH: this.options.action.dir,
    });
    const outputs: Record<string, string> = {};
    const stepsContext: Record<string, Value> = Object.fromEntries(
      Object.entries(result.outputs).map(([id, o]) => [id, { outputs: o }]),
    );
    for (const [key, spec] of Object.entries(action.outputs ?? {})) {
      outputs[key] = interpolate(spec.value, {
        ...context,
        contexts: { ...context.contexts, steps: stepsContext, env },
        strict: new Set(["github", "inputs"]),
      });
    }
    return { exitCode: result.succeeded ? 0 : result.exitCode, outputs };
  }
}

/** Runs every job of the workflow for the event (each matrix entry in turn). */
export async function runWorkflow(file: string, options: RunOptions): Promise<JobRun[]> {
  const workflow = readWorkflow(file);
  if (!(options.event.name in workflow.on)) {
    throw new Error(`${path.basename(file)} does not run on ${options.event.name}`);
  }
  const dispatch = DispatchInputs.parse(workflow.on).workflow_dispatch;
  const declaredInputs = dispatch?.inputs ?? {};
  const given = options.event.payload["inputs"];
  const inputs: Record<string, Value> = {};
  for (const [key, spec] of Object.entries(declaredInputs)) {
    const value =
      typeof given === "object" && given !== null && !Array.isArray(given)
        ? (given as Record<string, Value>)[key]
        : undefined;
    inputs[key] = value ?? (spec.default === undefined ? "" : String(spec.default));
  }
  const refName = options.event.ref.replace(/^refs\/(heads|tags)\//, "");
  const github: Record<string, Value> = {
    event_name: options.event.name,
    event: options.event.payload,
    sha: options.event.sha,
    ref: options.event.ref,
    ref_name: refName,
    base_ref: options.event.baseRef ?? "",
    head_ref: options.event.headRef ?? "",
    repository: "acme/sites",
    repository_owner: "acme",
    server_url: "https://github.com",
    api_url: "https://api.github.com",
    run_id: String(options.runId),
    run_attempt: "1",
    run_number: "1",
    actor: "ops-person",
    workflow: workflow.name,
    workspace: options.workspace,
    token: "ghs_github-token-stand-in",
  };
  const runs: JobRun[] = [];
  let jobNumber = 0;
  for (const [jobName, job] of Object.entries(workflow.jobs)) {
    const entries = matrixEntries(job.strategy?.matrix);
    for (const [index, matrix] of entries.entries()) {
      const strategy: Record<string, Value> = {
        "job-index": index,
        "job-total": entries.length,
        "fail-fast": job.strategy?.["fail-fast"] ?? true,
        "max-parallel": entries.length,
      };
      const base = {
        workspace: options.workspace,
        contexts: {
          github,
          inputs,
          secrets: { ...options.secrets },
          vars: { ...options.vars },
          matrix,
          strategy,
        },
        strict: new Set(["github", "inputs", "matrix", "strategy"]),
      };
      const concurrency = [workflow.concurrency?.group, job.concurrency?.group]
        .filter((g): g is string => g !== undefined)
        .map((g) => interpolate(g, { ...base, contexts: { ...base.contexts, env: {}, steps: {} } }));
      const workflowEnv = Object.fromEntries(
        Object.entries(workflow.env ?? {}).map(([k, v]) => [
          k,
          interpolate(String(v), { ...base, contexts: { ...base.contexts, env: {} } }),
        ]),
      );
      const jobEnv = {
        ...workflowEnv,
        ...Object.fromEntries(
          Object.entries(job.env ?? {}).map(([k, v]) => [
            k,
            interpolate(String(v), { ...base, contexts: { ...base.contexts, env: workflowEnv } }),
          ]),
        ),
      };
      const eventPath = path.join(options.tempDir, `event-${options.runId}.json`);
      fs.writeFileSync(eventPath, JSON.stringify(options.event.payload));
      const githubEnv: Record<string, string> = {
        CI: "true",
        GITHUB_ACTIONS: "true",
        GITHUB_EVENT_NAME: options.event.name,
        GITHUB_EVENT_PATH: eventPath,
        GITHUB_SHA: options.event.sha,
        GITHUB_REF: options.event.ref,
        GITHUB_REF_NAME: refName,
        GITHUB_REF_TYPE: "branch",
        GITHUB_BASE_REF: options.event.baseRef ?? "",
        GITHUB_HEAD_REF: options.event.headRef ?? "",
        GITHUB_REPOSITORY: asText(github["repository"] ?? null),
        GITHUB_REPOSITORY_OWNER: "acme",
        GITHUB_SERVER_URL: "https://github.com",
        GITHUB_API_URL: "https://api.github.com",
        GITHUB_RUN_ID: String(options.runId),
        GITHUB_RUN_ATTEMPT: "1",
        GITHUB_RUN_NUMBER: "1",
        GITHUB_ACTOR: "ops-person",
        GITHUB_WORKFLOW: workflow.name,
        GITHUB_JOB: jobName,
        GITHUB_WORKSPACE: options.workspace,
        RUNNER_OS: "Linux",
        RUNNER_ARCH: "X64",
      };
      const runner = new JobRunner(
        options,
        path.join(options.tempDir, `run-${options.runId}-${++jobNumber}`),
        githubEnv,
      );
      const result = await runner.runSteps(job.steps, base, { ...options.baseEnv, ...jobEnv }, "");
      runs.push({
        job: jobName,
        matrix,
        succeeded: result.succeeded,
        steps: runner.records,
        summary: fs.readFileSync(runner.files.summary, "utf8"),
        artifacts: runner.artifacts,
        concurrency,
      });
    }
  }
  return runs;
}

/** A job's steps as one readable text, for failure messages. */
export function describeRun(run: JobRun): string {
  return run.steps
    .map((s) => `--- ${s.name} [${s.kind}, exit ${s.exitCode}, ${(s.ms / 1000).toFixed(1)} s]\n${s.output}`)
    .join("\n");
}
