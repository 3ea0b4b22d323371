/**
 * The files of an ops repository, as text: what `init` writes and what `doctor` compares an
 * existing repository with. Pure: no file is read or written here.
 */
import * as crypto from "node:crypto";
import { stringify } from "yaml";
import { PROGRAM_MAIN } from "./package";

/** The placeholders of a workflow template (templates/README.md). */
export const VERSION_PLACEHOLDER = "__STACKWRIGHT_VERSION__";
export const TARGET_PLACEHOLDER = "__TARGET__";

/** Where the workflows go in the ops repository. */
export const WORKFLOWS_DIR = ".github/workflows";

export function pulumiYamlText(): string {
  return [
    "# The Pulumi project of this ops repository. Its program is the installed stackwright package's,",
    "# so upgrading is bumping the dependency in package.json (then `npx stackwright doctor --write`).",
    "name: stackwright",
    "description: The desired state in stacks-config/ reconciled with the Deployment Management API",
    "runtime: nodejs",
    `main: ${PROGRAM_MAIN}`,
    "",
  ].join("\n");
}

export function gitignoreText(): string {
  return [
    "node_modules/",
    "# Local state, the Pulumi CLI's home and caches of `npx stackwright` runs on this machine",
    ".stackwright/",
    "# What runs write for CI to show (--summary, --html, --report)",
    "summary.md",
    "fleet*.html",
    "report*.json",
    "*.log",
    "",
  ].join("\n");
}

export interface TargetSettings {
  readonly target: string;
  readonly apiUrl: string;
  readonly email: string;
}

/** `Pulumi.<target>.yaml` without the token (Pulumi adds it, encrypted, with its salt). */
export function targetFileText(settings: TargetSettings): string {
  const t = settings.target;
  return [
    `# Target '${t}': the API settings every \`npx stackwright ... --target ${t}\` run reads.`,
    "# STACKWRIGHT_API_URL, STACKWRIGHT_EMAIL and STACKWRIGHT_API_TOKEN win over this file when set.",
    "# The token is a Pulumi secret sealed with this target's own passphrase (PULUMI_CONFIG_PASSPHRASE)",
    "# or KMS (secretsprovider:): commit this file, never the passphrase.",
    stringify({
      config: { "stackwright:apiUrl": settings.apiUrl, "stackwright:email": settings.email },
    }).trimEnd(),
    "",
  ].join("\n");
}

export interface ReadmeInput {
  readonly target: string;
  /** `file`, or the S3 URL of the state backend. */
  readonly backend: string;
  readonly ci: "github" | "none";
}

export function opsReadmeText(input: ReadmeInput): string {
  const state =
    input.backend === "file"
      ? "State is kept on this machine under `.stackwright/state` (not committed): enough to try it. " +
        "For CI, keep it in S3: set the repository variable `PULUMI_BACKEND_URL` to an `s3://` URL."
      : `State is kept in \`${input.backend}\`: CI reads it from the repository variable \`PULUMI_BACKEND_URL\` ` +
        "(set it to that URL) with the S3 credentials of Stackwright's docs/ci.md; on a laptop, export the same variable.";
  const ci =
    input.ci === "github"
      ? "`.github/workflows/` previews pull requests, runs `up` on main, checks drift on a schedule and " +
        "promotes by hand; Stackwright's docs/ci.md says which secrets and variables they need."
      : "No CI workflows were written (`--ci none`); `npx stackwright init --ci github` adds them.";
  return [
    "# Our sites, as code",
    "",
    "This repository holds the desired state of our API stacks on the Deployment Management API, one",
    "file per stack in `stacks-config/`, applied by Stackwright (the `stackwright` dependency in",
    "package.json). Change a file, open a pull request, read its",
    "preview, merge: the pipeline runs `up`.",
    "",
    "```sh",
    "npm install                                         # the pinned stackwright and its Pulumi program",
    `npx stackwright import --all --target ${input.target}    # write stacks-config/ from what runs now (once)`,
    "npx stackwright validate                            # check stacks-config/ (no API call)",
    `npx stackwright preview --target ${input.target}         # what up would change`,
    `npx stackwright status --target ${input.target}          # what runs where, in sync or not`,
    "npx stackwright doctor                              # after an upgrade: what is behind the installed version",
    "```",
    "",
    `- \`Pulumi.${input.target}.yaml\`: the API URL, e-mail and token (a secret) of target \`${input.target}\`;`,
    "  runs need its passphrase in `PULUMI_CONFIG_PASSPHRASE`.",
    `- ${state}`,
    `- ${ci}`,
    "- Upgrading: bump `stackwright` in package.json (`npm install stackwright@VERSION`), then",
    "  `npx stackwright doctor --write`.",
    "",
    "Every field of a stack file is described in Stackwright's docs/stacks-config.md (and in",
    "`stacks-config/schema.json`, which editors read); `npx stackwright <command> --help` lists each",
    "command's flags.",
    "",
  ].join("\n");
}

/** A workflow template rendered for an ops repository: the placeholders replaced, the marker first. */
export interface WorkflowSource {
  /** The template's file name (`main-up.yml`). */
  readonly template: string;
  readonly version: string;
  readonly target: string;
}

const MARKER =
  /^# Written by `stackwright init` from the package's template (\S+) \(stackwright (\S+), target (\S+)\)\.\n# `npx stackwright doctor --write` updates it on an upgrade unless it was changed by hand; sha256:([0-9a-f]{16})\n/;

function digest(text: string): string {
  return crypto.createHash("sha256").update(text).digest("hex").slice(0, 16);
}

function fill(templateText: string, version: string, target: string): string {
  return templateText.replaceAll(VERSION_PLACEHOLDER, version).replaceAll(TARGET_PLACEHOLDER, target);
}

/**
 * The workflow file: two comment lines that say where it came from (template, version, target)
 * and the hash of the rest as written, so that `doctor` can tell a file nobody touched (replaced
 * on an upgrade) from one the team changed (kept, and shown as a diff).
 */
export function renderWorkflow(source: WorkflowSource, templateText: string): string {
  const body = fill(templateText, source.version, source.target);
  return (
    `# Written by \`stackwright init\` from the package's template ${source.template} (stackwright ${source.version}, target ${source.target}).\n` +
    `# \`npx stackwright doctor --write\` updates it on an upgrade unless it was changed by hand; sha256:${digest(body)}\n` +
    body
  );
}

/** What a workflow file's marker says, and whether the rest is still as written. */
export interface WrittenWorkflow extends WorkflowSource {
  readonly untouched: boolean;
  readonly body: string;
}

export function readWorkflowMarker(text: string): WrittenWorkflow | undefined {
  const m = MARKER.exec(text);
  if (m === null) return undefined;
  const [whole, template = "", version = "", target = "", hash = ""] = m;
  const body = text.slice(whole.length);
  return { template, version, target, body, untouched: digest(body) === hash };
}

/** True when `body` is the template rendered for `target` with some version: at most the version differs. */
export function differsOnlyByVersion(body: string, templateText: string, target: string): boolean {
  const parts = templateText.split(VERSION_PLACEHOLDER).map((part) => escape(fill(part, "", target)));
  return new RegExp(`^${parts.join("[0-9A-Za-z.+-]+")}$`).test(body);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** What a merge added to package.json, for init's list (`scripts.stackwright`). */
export interface PackageMerge {
  readonly text: string;
  readonly added: readonly string[];
}

const STACKWRIGHT_SCRIPT = { name: "stackwright", command: "stackwright" } as const;

/**
 * The install scripts among the package's dependencies, reviewed, as an ops repository's
 * package.json records them in npm's `allowScripts` (false: not run). npm warns on every install
 * about a dependency's install script that the field does not cover, and later releases skip such
 * scripts, so a repository without the review gets a warning in every CI log. protobufjs (under
 * gRPC) only checks how the packages that depend on it name its version, which nothing here
 * needs. The installed-package test fails when the installed tree's install scripts and this list
 * differ.
 */
export const REVIEWED_INSTALL_SCRIPTS: Readonly<Record<string, boolean>> = { protobufjs: false };

/** Whether an `allowScripts` key (`name`, or `name@version` as npm pins an approval) is about `name`. */
function allowScriptsKeyNames(key: string, name: string): boolean {
  return key === name || key.startsWith(`${name}@`);
}

/** The reviewed install scripts that `allowScripts` (as written) says nothing about. */
export function unreviewedInstallScripts(
  allowScripts: Readonly<Record<string, unknown>> | undefined,
): string[] {
  const keys = Object.keys(allowScripts ?? {});
  return Object.keys(REVIEWED_INSTALL_SCRIPTS).filter(
    (name) => !keys.some((key) => allowScriptsKeyNames(key, name)),
  );
}

/** The package.json of a new ops repository named after its directory. */
export function newPackageJson(dirName: string, version: string): string {
  const name =
    dirName
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, "-")
      .replace(/^[._-]+|-+$/g, "") || "ops";
  return `${JSON.stringify(
    {
      name,
      private: true,
      description: "Desired state of our API stacks, applied by Stackwright",
      scripts: { [STACKWRIGHT_SCRIPT.name]: STACKWRIGHT_SCRIPT.command },
      dependencies: { stackwright: version },
      allowScripts: REVIEWED_INSTALL_SCRIPTS,
    },
    null,
    2,
  )}\n`;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isObject(value: Json | undefined): value is { [key: string]: Json } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * An existing package.json with what an ops repository needs and it lacks: the stackwright
 * dependency (at `version`, unless it depends on stackwright already, in any kind of dependency),
 * the `stackwright` script, and the review of the dependencies' install scripts (an entry the
 * team wrote for one of them, allowed or not, pinned or not, stays as it is). Nothing it holds
 * changes: key order, indentation and the final newline are kept; JSON has no comments to keep.
 * Unchanged text when it lacks nothing. Throws when the text is not a JSON object.
 */
export function mergePackageJson(existing: string, version: string): PackageMerge {
  const parsed = JSON.parse(existing) as Json;
  if (!isObject(parsed)) throw new SyntaxError("package.json is not a JSON object");
  const added: string[] = [];
  const depends = ["dependencies", "devDependencies", "optionalDependencies", "peerDependencies"].some(
    (kind) => {
      const deps = parsed[kind];
      return isObject(deps) && deps["stackwright"] !== undefined;
    },
  );
  if (!depends) {
    const deps = parsed["dependencies"];
    if (deps !== undefined && !isObject(deps))
      throw new SyntaxError("package.json's dependencies is not an object");
    parsed["dependencies"] = { ...(deps ?? {}), stackwright: version };
    added.push(`dependencies.stackwright (${version})`);
  }
  const scripts = parsed["scripts"];
  if (scripts !== undefined && !isObject(scripts))
    throw new SyntaxError("package.json's scripts is not an object");
  if (scripts?.[STACKWRIGHT_SCRIPT.name] === undefined) {
    parsed["scripts"] = { ...(scripts ?? {}), [STACKWRIGHT_SCRIPT.name]: STACKWRIGHT_SCRIPT.command };
    added.push(`scripts.${STACKWRIGHT_SCRIPT.name}`);
  }
  const allowScripts = parsed["allowScripts"];
  if (allowScripts !== undefined && !isObject(allowScripts))
    throw new SyntaxError("package.json's allowScripts is not an object");
  const unreviewed = unreviewedInstallScripts(allowScripts);
  if (unreviewed.length > 0) {
    parsed["allowScripts"] = {
      ...(allowScripts ?? {}),
      ...Object.fromEntries(unreviewed.map((name) => [name, REVIEWED_INSTALL_SCRIPTS[name] ?? false])),
    };
    for (const name of unreviewed) added.push(`allowScripts.${name}`);
  }
  if (added.length === 0) return { text: existing, added };
  const indent = /^[{[]\r?\n([ \t]+)\S/.exec(existing)?.[1] ?? "  ";
  const eol = existing.includes("\r\n") ? "\r\n" : "\n";
  const trailing = /\r?\n$/.test(existing) ? eol : "";
  return { text: `${JSON.stringify(parsed, null, indent).replace(/\n/g, eol)}${trailing}`, added };
}
