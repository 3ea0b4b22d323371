/**
 * `stackwright init [DIR]`: scaffolds an ops repository of the team's own (package.json depending
 * on this version, Pulumi.yaml whose program is the package's, stacks-config/ with the schema,
 * the target's settings file with the token as a Pulumi secret, .gitignore, a README and the CI
 * workflows). It never overwrites: a file that exists is left as it was and listed so, except
 * package.json, which gains only what it lacks (the usual order is `npm install stackwright`, then
 * `npx stackwright init`), and a target file with no token, which gains the token when
 * STACKWRIGHT_API_TOKEN is set. The token never comes from a flag: command lines leak.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { parse } from "yaml";
import { z } from "zod";
import { baseUrlProblem, clientDefaults } from "../../client";
import { stackFileJsonSchemaText } from "../../config";
import { unifiedDiff } from "../../edit";
import { pulumiBinary as engineCli, toolRoot } from "../../project/engine-env";
import { secretsEnv } from "../../project/passphrase";
import { preflight } from "../../project/preflight";
import { defineCommand } from "../kit/command";
import { CliError, EXIT_CODES, UsageError } from "../kit/exit-codes";
import { flag } from "../kit/args";
import type { Env } from "../kit/context";
import {
  WORKFLOWS_DIR,
  gitignoreText,
  mergePackageJson,
  newPackageJson,
  opsReadmeText,
  pulumiYamlText,
  renderWorkflow,
  targetFileText,
} from "../ops/files";
import { packageVersion, pulumiCli, workflowTemplates } from "../ops/package";
import { createStackIfAbsent, openStateStore } from "../../state-backend";
import { errorLine } from "../../project/target-settings";
import { targetNameFlag } from "../kit/flag-sets";

const COMMAND = "init";
const TOKEN_VARIABLE = "STACKWRIGHT_API_TOKEN";
const TOKEN_KEY = "stackwright:apiToken";
/** How long the Pulumi CLI may take to encrypt the token (about a second in practice). */
const SEAL_TIMEOUT_MS = 60_000;

/** One file of the ops repository and what init does with it. */
type Step =
  | {
      readonly file: string;
      readonly action: "write";
      readonly text: string;
      /** The token Pulumi seals into the text before it is written. */
      readonly seal?: string;
      readonly sealed?: boolean;
    }
  | {
      readonly file: string;
      readonly action: "merge";
      readonly before: string;
      readonly text: string;
      readonly added: readonly string[];
    }
  | {
      readonly file: string;
      readonly action: "add-token";
      readonly token: string;
      /** The file with the token, once Pulumi sealed it. */
      readonly sealed?: string;
    }
  | { readonly file: string; readonly action: "keep" };

export const initCommand = defineCommand({
  name: COMMAND,
  args: ["DIR"],
  summary:
    "Makes DIR (default: the working directory) an ops repository: package.json depending on this " +
    "stackwright version (an existing one gains only what it lacks), Pulumi.yaml whose program is the " +
    "package's, stacks-config/schema.json (the stack files' $schema, which import writes), " +
    "Pulumi.<target>.yaml with the API URL, e-mail and, when STACKWRIGHT_API_TOKEN is set, the token as a " +
    "Pulumi secret (sealed with PULUMI_CONFIG_PASSPHRASE: every target but the demo's dev needs its own), " +
    ".gitignore, README.md and the CI workflows. A file that exists is never overwritten: it is listed as " +
    "kept (a target file without a token gains the token when the variable is set). The token is read " +
    "from the environment only: a command line is seen by other processes and kept in shell history.",
  flags: {
    target: targetNameFlag(
      "NAME: the target whose settings file to write (default production)",
      "production",
    ),
    "api-url": flag.string("URL of the API (default: STACKWRIGHT_API_URL)"),
    email: flag.string("ADDR: the API user's e-mail (default: STACKWRIGHT_EMAIL)"),
    backend: flag.string(
      "file (default: state under .stackwright/, to try it) or s3://BUCKET?…: the state backend CI uses",
    ),
    ci: flag.oneOf(
      ["github", "none"],
      "github (default: the workflows are how preview and up run on pull requests and main) or none",
      "github",
    ),
    "dry-run": flag.switch("print what would be written; write nothing"),
  },
  async run({ flags, positional }, { io, env }) {
    if (positional.length > 1) throw new UsageError(`stackwright ${COMMAND}: one DIR at most`);
    const dir = path.resolve(positional[0] ?? process.cwd());
    if (fs.existsSync(dir) && !fs.statSync(dir).isDirectory()) {
      throw new UsageError(`stackwright ${COMMAND}: ${dir} is not a directory`);
    }
    const { target, ci } = flags;
    const backend = backendOf(flags.backend);
    const dryRun = flags["dry-run"];
    const root = toolRoot();
    const version = packageVersion(root);
    const templates = ci === "github" ? workflowTemplates(root) : [];
    if (ci === "github" && templates.length === 0) {
      throw new CliError(
        "environment",
        `stackwright ${COMMAND}: this stackwright package (${root}) has no workflow templates in templates/workflows/: reinstall it, or pass --ci none`,
      );
    }
    const token = nonEmpty(env[TOKEN_VARIABLE]);
    const targetFile = `Pulumi.${target}.yaml`;
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-init-"));
    try {
      const targetStep = planTarget({ dir, target, targetFile, token, flags, scratch, env });
      const steps: Step[] = [
        planPackageJson(dir, version),
        planNew(dir, "Pulumi.yaml", pulumiYamlText()),
        planNew(dir, "stacks-config/schema.json", stackFileJsonSchemaText()),
        targetStep.step,
        planNew(dir, ".gitignore", gitignoreText()),
        planNew(dir, "README.md", opsReadmeText({ target, backend, ci })),
        ...templates.map((t) =>
          planNew(
            dir,
            `${WORKFLOWS_DIR}/${t.name}`,
            renderWorkflow({ template: t.name, version, target }, t.text),
          ),
        ),
      ];
      io.say(
        `stackwright ${COMMAND}: ${dryRun ? "would make" : "making"} ${dir} an ops repository of target '${target}' (stackwright ${version})`,
      );
      if (dryRun) {
        for (const step of steps) io.say(dryRunText(step));
      } else {
        const binary = steps.some(needsPulumi) ? await pulumiBinary(root, env) : "";
        const sealing = { binary, scratch, target, env: targetStep.secrets, base: env };
        // Pulumi encrypts first, in the scratch directory: a refusal then leaves DIR as it was.
        const sealed = await Promise.all(steps.map((step) => seal(dir, step, sealing)));
        fs.mkdirSync(dir, { recursive: true });
        for (const step of sealed) io.say(`  ${apply(dir, step)}`);
      }
      if (targetStep.settings !== undefined) io.say(await apiCheck(targetStep.settings, token, env));
      if (targetStep.tokenMissing) {
        io.say(
          `no ${TOKEN_VARIABLE} was set, so ${targetFile} has no API token: set it in the environment (never on a command line) ` +
            `and run 'npx stackwright init${positional[0] === undefined ? "" : ` ${positional[0]}`} --target ${target}' again: it adds the token and changes nothing else`,
        );
      }
      if (backend !== "file") {
        io.say(
          `state backend: set the CI variable PULUMI_BACKEND_URL to ${backend} (and export it on a laptop)`,
        );
      }
      io.say(nextSteps(dir, target, dryRun));
      return EXIT_CODES.ok;
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  },
});

/**
 * The Pulumi CLI that seals the token: the package's toolchain or one on PATH, else the one the
 * engine's runs get (provided on first use where the package can).
 */
async function pulumiBinary(root: string, env: Env): Promise<string> {
  return pulumiCli(root, env)?.binary ?? (await engineCli(root));
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}

function backendOf(value: string | undefined): string {
  if (value === undefined || value === "file") return "file";
  if (value.startsWith("s3://") && value.length > "s3://".length && !/\s/.test(value)) return value;
  throw new UsageError(
    `stackwright ${COMMAND}: --backend is file or s3://BUCKET (with ?region=… as needed), not '${value}'`,
  );
}

function planNew(dir: string, file: string, text: string): Step {
  return fs.existsSync(path.join(dir, file)) ? { file, action: "keep" } : { file, action: "write", text };
}

function planPackageJson(dir: string, version: string): Step {
  const file = "package.json";
  const full = path.join(dir, file);
  if (!fs.existsSync(full))
    return { file, action: "write", text: newPackageJson(path.basename(dir), version) };
  const before = fs.readFileSync(full, "utf8");
  let merged: ReturnType<typeof mergePackageJson>;
  try {
    merged = mergePackageJson(before, version);
  } catch (error) {
    throw new CliError(
      "usage",
      `stackwright ${COMMAND}: ${full} is not a package.json init can add to (${error instanceof Error ? error.message : String(error)}): fix it, then run init again`,
    );
  }
  return merged.added.length === 0
    ? { file, action: "keep" }
    : { file, action: "merge", before, text: merged.text, added: merged.added };
}

interface TargetPlan {
  readonly step: Step;
  /** The settings written (their API URL is checked); undefined when the file is kept as it was. */
  readonly settings: { apiUrl: string; email: string } | undefined;
  /** True when the file will have no token (none in it, none in the environment). */
  readonly tokenMissing: boolean;
  /** The secrets variables Pulumi seals the token with. */
  readonly secrets: Record<string, string>;
}

function planTarget(input: {
  dir: string;
  target: string;
  targetFile: string;
  token: string | undefined;
  flags: { readonly "api-url": string | undefined; readonly email: string | undefined };
  scratch: string;
  env: Env;
}): TargetPlan {
  const { dir, target, targetFile, token, flags, env } = input;
  const full = path.join(dir, targetFile);
  if (fs.existsSync(full)) {
    const has = hasToken(full);
    if (token === undefined || has) {
      const step: Step = { file: targetFile, action: "keep" };
      return { step, settings: undefined, tokenMissing: !has, secrets: {} };
    }
    // Refused here, before Pulumi encrypts anything, when the target has no passphrase of its own.
    const secrets = secretsEnv({ target, configFile: full, env });
    const step: Step = { file: targetFile, action: "add-token", token };
    return { step, settings: undefined, tokenMissing: false, secrets };
  }
  const apiUrl = flags["api-url"] ?? nonEmpty(env["STACKWRIGHT_API_URL"]);
  const email = flags.email ?? nonEmpty(env["STACKWRIGHT_EMAIL"]);
  if (apiUrl === undefined) {
    throw new UsageError(
      `stackwright ${COMMAND}: --api-url URL is needed to write ${targetFile} (or set STACKWRIGHT_API_URL)`,
    );
  }
  const urlProblem = baseUrlProblem(apiUrl);
  if (urlProblem !== undefined) throw new UsageError(`stackwright ${COMMAND}: --api-url ${urlProblem}`);
  if (email === undefined) {
    throw new UsageError(
      `stackwright ${COMMAND}: --email ADDR is needed to write ${targetFile} (or set STACKWRIGHT_EMAIL)`,
    );
  }
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) {
    throw new UsageError(`stackwright ${COMMAND}: --email '${email}' is not an e-mail address`);
  }
  const text = targetFileText({ target, apiUrl, email });
  // The file as it will be, so that the passphrase rule sees its API URL (the demo's dev is on loopback).
  const draft = path.join(input.scratch, targetFile);
  fs.writeFileSync(draft, text);
  const secrets = secretsEnv({ target, configFile: draft, env });
  const step: Step =
    token === undefined
      ? { file: targetFile, action: "write", text }
      : { file: targetFile, action: "write", text, seal: token };
  return { step, settings: { apiUrl, email }, tokenMissing: token === undefined, secrets };
}

/** What init reads of an existing target file: whether its config holds the token. */
const TargetConfig = z.looseObject({ config: z.record(z.string(), z.unknown()).nullish() });

function hasToken(file: string): boolean {
  let parsed: unknown;
  try {
    parsed = parse(fs.readFileSync(file, "utf8"));
  } catch {
    parsed = undefined;
  }
  const checked = TargetConfig.safeParse(parsed ?? {});
  if (!checked.success || parsed === undefined) {
    throw new CliError(
      "usage",
      `stackwright ${COMMAND}: ${file} is not a Pulumi stack settings file (expected a YAML mapping with config:); fix it or move it away`,
    );
  }
  return checked.data.config?.[TOKEN_KEY] !== undefined;
}

function dryRunText(step: Step): string {
  switch (step.action) {
    case "keep":
      return `  would keep ${step.file} (exists; left as it is)`;
    case "merge":
      return `  would add to ${step.file}: ${step.added.join(", ")}\n${indent(unifiedDiff(step.file, step.before, step.text))}`;
    case "add-token":
      return `  would add to ${step.file}: ${TOKEN_KEY} (from ${TOKEN_VARIABLE}, encrypted by Pulumi)`;
    case "write": {
      const body = step.file.endsWith("schema.json")
        ? `    (the JSON Schema of stack files, ${step.text.length} bytes)`
        : indent(step.text.trimEnd());
      const seal =
        step.seal === undefined ? "" : `\n    ${TOKEN_KEY}: (from ${TOKEN_VARIABLE}, encrypted by Pulumi)`;
      return `  would write ${step.file}\n${body}${seal}`;
    }
  }
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n");
}

interface Sealing {
  readonly binary: string;
  readonly scratch: string;
  readonly target: string;
  readonly env: Record<string, string>;
  /** The environment the user gave, under the secrets variables. */
  readonly base: Env;
}

function needsPulumi(step: Step): boolean {
  return step.action === "add-token" || (step.action === "write" && step.seal !== undefined);
}

/** The step with its token sealed by Pulumi into a copy of the file in the scratch directory. */
async function seal(dir: string, step: Step, sealing: Sealing): Promise<Step> {
  if (!needsPulumi(step)) return step;
  const draft = path.join(sealing.scratch, "sealed", step.file);
  fs.mkdirSync(path.dirname(draft), { recursive: true });
  if (step.action === "add-token") {
    fs.copyFileSync(path.join(dir, step.file), draft);
    await setSecret(draft, step.token, sealing);
    return { ...step, sealed: fs.readFileSync(draft, "utf8") };
  }
  if (step.action !== "write" || step.seal === undefined) return step;
  fs.writeFileSync(draft, step.text);
  await setSecret(draft, step.seal, sealing);
  return { file: step.file, action: "write", text: fs.readFileSync(draft, "utf8"), sealed: true };
}

function apply(dir: string, step: Step): string {
  const full = path.join(dir, step.file);
  switch (step.action) {
    case "keep":
      return `kept    ${step.file} (exists; left as it was)`;
    case "merge":
      replaceFile(full, step.text);
      return `added   ${step.added.map((a) => `${step.file}: ${a}`).join(", ")}`;
    case "add-token":
      if (step.sealed === undefined) throw new Error(`the token of ${step.file} was not sealed`);
      replaceFile(full, step.sealed);
      return `added   ${step.file}: ${TOKEN_KEY} (a Pulumi secret)`;
    case "write": {
      if (step.seal !== undefined) throw new Error(`the token of ${step.file} was not sealed`);
      fs.mkdirSync(path.dirname(full), { recursive: true });
      try {
        // Exclusive: a file that appeared since the plan is still never overwritten.
        fs.writeFileSync(full, step.text, { flag: "wx" });
      } catch (error) {
        if (error instanceof Error && "code" in error && error.code === "EEXIST") {
          return `kept    ${step.file} (exists; left as it was)`;
        }
        throw error;
      }
      return `wrote   ${step.file}${step.sealed === true ? ` (${TOKEN_KEY} a Pulumi secret)` : ""}`;
    }
  }
}

/** Whole or not at all: a reader never sees half a file. */
function replaceFile(file: string, text: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, text);
  fs.renameSync(temporary, file);
}

/**
 * `pulumi config set --secret` of the token into `configFile`, the token on stdin (never in an
 * argument), for a stack of the target's name in a scratch backend and project: nothing is read
 * from or written to a real backend, and Pulumi adds the passphrase's salt to the file itself.
 */
async function setSecret(configFile: string, token: string, sealing: Sealing): Promise<void> {
  const project = path.join(sealing.scratch, "project");
  fs.mkdirSync(project, { recursive: true });
  fs.writeFileSync(path.join(project, "Pulumi.yaml"), "name: stackwright\nruntime: nodejs\n");
  const backend = pathToFileURL(path.join(sealing.scratch, "state")).href;
  fs.mkdirSync(path.join(sealing.scratch, "state"), { recursive: true });
  await createStackIfAbsent({
    store: openStateStore(backend),
    project: "stackwright",
    stack: sealing.target,
  });
  const env = {
    ...sealing.base,
    ...sealing.env,
    PULUMI_BACKEND_URL: backend,
    PULUMI_HOME: path.join(sealing.scratch, "pulumi-home"),
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
  };
  const args = [
    "config",
    "set",
    "--secret",
    TOKEN_KEY,
    "--stack",
    sealing.target,
    "--config-file",
    configFile,
  ];
  // Bounded as every process we wait for: the CLI answers in about a second.
  const { code, stderr, timedOut } = await new Promise<{
    code: number | null;
    stderr: string;
    timedOut: boolean;
  }>((resolve, reject) => {
    const child = spawn(sealing.binary, args, { cwd: project, env, stdio: ["pipe", "ignore", "pipe"] });
    let err = "";
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, SEAL_TIMEOUT_MS);
    child.stderr.on("data", (chunk: Buffer) => {
      // Its error line is all we show; a runaway stream is not kept.
      if (err.length < 64 * 1024) err += chunk.toString();
    });
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("close", (status) => {
      clearTimeout(timer);
      resolve({ code: status, stderr: err, timedOut });
    });
    child.stdin.end(token);
  });
  if (timedOut) {
    throw new CliError(
      "environment",
      `stackwright ${COMMAND}: Pulumi did not encrypt the token within ${SEAL_TIMEOUT_MS / 1000} s (${sealing.binary} config set); nothing was written`,
    );
  }
  if (code !== 0) {
    const said = errorLine(stderr);
    throw new CliError(
      "usage",
      `stackwright ${COMMAND}: Pulumi could not encrypt the token into ${path.basename(configFile)}${said === undefined ? "" : `: ${said}`}; check PULUMI_CONFIG_PASSPHRASE (or the secrets provider the file names)`,
    );
  }
}

/**
 * One bounded look at the API (the preflight's identity request, no retry): init never fails on
 * it, since the API may be reachable only from CI; it says whether the URL was checked.
 */
async function apiCheck(
  settings: { apiUrl: string; email: string },
  token: string | undefined,
  env: Env,
): Promise<string> {
  const origin = new URL(settings.apiUrl).origin;
  if (token === undefined)
    return `API ${origin}: written as given, not checked (no ${TOKEN_VARIABLE} to sign in with)`;
  try {
    const { whoami } = await preflight({
      command: COMMAND,
      stacks: [],
      config: () => undefined,
      env: {
        ...env,
        STACKWRIGHT_API_URL: settings.apiUrl,
        STACKWRIGHT_EMAIL: settings.email,
        [TOKEN_VARIABLE]: token,
      },
      timeouts: { connectMs: 3_000, headersMs: 5_000 },
      retry: { ...clientDefaults.retry, maxAttempts: 1, maxElapsedMs: 8_000 },
    });
    return `API ${origin}: checked, signed in as ${whoami}`;
  } catch (error) {
    const why = (error instanceof Error ? error.message : String(error)).replace(
      `stackwright ${COMMAND}: `,
      "",
    );
    return `API ${origin}: written as given, unchecked: ${why}`;
  }
}

function nextSteps(dir: string, target: string, dryRun: boolean): string {
  const relative = path.relative(process.cwd(), dir);
  const here = relative.startsWith("..") || path.isAbsolute(relative) ? dir : relative;
  return [
    dryRun ? "nothing was written (--dry-run). Then:" : "next:",
    ...(relative === "" ? [] : [`  cd ${here}`]),
    "  npm install",
    `  npx stackwright import --all --target ${target}`,
    `  npx stackwright preview --target ${target}`,
  ].join("\n");
}
