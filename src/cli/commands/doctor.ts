/**
 * `stackwright doctor [--write]`: what in an ops repository is behind the installed stackwright
 * package, one line per finding (exit 0 when nothing is, 1 when something is, 2 when the
 * directory is not an ops repository): the workflows init wrote against the package's templates,
 * stacks-config/schema.json and the stack files' `$schema`, Pulumi.yaml's program, the Pulumi CLI,
 * each target's secrets (never the public demo passphrase's but for the demo's dev target), and
 * package.json's dependency. `--write` brings up to date what it can, printing each change as a
 * diff; a workflow the team changed by hand is kept (shown as a diff) unless only its version differs.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { parseDocument } from "yaml";
import { z } from "zod";
import { stackFileJsonSchemaText, targetProblem } from "../../config";
import { unifiedDiff } from "../../edit";
import { defaultProjectDir, toolRoot } from "../../project/engine-env";
import { BUILT_IN_PASSPHRASE, encryptedWithBuiltInPassphrase, secretsEnv } from "../../project/passphrase";
import { defineCommand } from "../kit/command";
import { commandLine } from "../../project/invocation";
import { CliError, EXIT_CODES } from "../kit/exit-codes";
import { flag } from "../kit/args";
import {
  WORKFLOWS_DIR,
  mergePackageJson,
  readWorkflowMarker,
  renderWorkflow,
  unreviewedInstallScripts,
} from "../ops/files";
import {
  dependencyFinding,
  installScriptsFinding,
  pulumiCliFinding,
  workflowFinding,
  type Finding,
} from "../ops/findings";
import {
  PROGRAM_MAIN,
  packageVersion,
  pinnedPulumiRelease,
  pulumiCli,
  workflowTemplates,
} from "../ops/package";

const COMMAND = "doctor";
const SCHEMA_FILE = "stacks-config/schema.json";
const SCHEMA_REFERENCE = "./schema.json";

export const doctorCommand = defineCommand({
  name: COMMAND,
  summary:
    "Says what in this ops repository is behind the installed stackwright, one line per finding: the " +
    "workflows init wrote (against the package's templates), stacks-config/schema.json and the stack files' " +
    "$schema, Pulumi.yaml's program, the Pulumi CLI (the major the package pins, at or above its release), " +
    "targets whose secrets are sealed with the public demo passphrase, and package.json's stackwright " +
    "dependency and its review of the dependencies' install scripts (allowScripts). Exit 0 when nothing " +
    "is behind, 1 when something is, 2 when this is not an ops repository. " +
    "--write brings up to date what it can and prints each change as a diff; a workflow changed by hand is " +
    "kept (shown as a diff) unless only its version differs.",
  flags: {
    write: flag.switch("bring up to date what can be, printing each change as a unified diff"),
    project: flag.parsedOr(
      "the ops repository (default: the project of the working directory)",
      (text) => path.resolve(text),
      projectDir,
    ),
  },
  async run({ flags }, { io, env }) {
    const dir = flags.project;
    requireOpsRepository(dir);
    const root = toolRoot();
    const version = packageVersion(root);
    const findings = [
      ...pulumiYamlFindings(dir),
      ...schemaFindings(dir),
      ...workflowFindings(dir, root, version),
      ...targetFindings(dir),
      ...packageFindings(dir, version),
      ...[pulumiCliFinding(pulumiCli(root, env), pinnedPulumiRelease(root))].filter((f) => f !== undefined),
    ];
    let behind = 0;
    for (const finding of findings) {
      const fix = flags.write ? finding.fix : undefined;
      if (fix !== undefined) {
        write(path.join(dir, finding.file), fix.after);
        io.say(
          `updated ${finding.file}: ${finding.says}\n${unifiedDiff(finding.file, fix.before, fix.after).trimEnd()}`,
        );
        continue;
      }
      if (finding.behind) behind++;
      io.say(`${finding.behind ? "behind" : "note"}: ${finding.file}: ${finding.says}`);
      if (finding.diff !== undefined) {
        io.say(unifiedDiff(finding.file, finding.diff.before, finding.diff.after).trimEnd());
      }
    }
    if (behind === 0) {
      io.say(`doctor: ${dir} is up to date with stackwright ${version}`);
      return EXIT_CODES.ok;
    }
    const fixable = findings.filter((f) => f.behind && f.fix !== undefined).length;
    io.say(
      `doctor: ${behind} finding${behind === 1 ? "" : "s"} behind stackwright ${version}` +
        (flags.write || fixable === 0
          ? ""
          : ` (${commandLine("doctor --write")} brings ${fixable} up to date)`),
    );
    return EXIT_CODES.failed;
  },
});

/**
 * The directory to check: --project, else the project of the working directory; with none found,
 * the working directory itself, which the check then names as not an ops repository.
 */
/** The ops repository when --project is not given: the project of the working directory, else the directory itself. */
function projectDir(): string {
  try {
    return path.resolve(defaultProjectDir());
  } catch {
    return process.cwd();
  }
}

const PulumiYaml = z.looseObject({ main: z.string().optional() });

function readPulumiYaml(dir: string): { text: string; main: string | undefined } | undefined {
  const file = path.join(dir, "Pulumi.yaml");
  if (!fs.existsSync(file)) return undefined;
  const text = fs.readFileSync(file, "utf8");
  const parsed = PulumiYaml.safeParse(parseDocument(text).toJS() ?? {});
  return { text, main: parsed.success ? parsed.data.main : undefined };
}

/** An ops repository: a Pulumi.yaml whose program is inside the installed stackwright package. */
function requireOpsRepository(dir: string): void {
  const main = readPulumiYaml(dir)?.main;
  if (main === undefined || !main.replaceAll("\\", "/").includes("node_modules/stackwright/")) {
    throw new CliError(
      "usage",
      `${dir} is not a Stackwright ops repository (no Pulumi.yaml whose main is the stackwright package's program)`,
    );
  }
}

function pulumiYamlFindings(dir: string): Finding[] {
  const project = readPulumiYaml(dir);
  if (project === undefined || project.main === PROGRAM_MAIN) return [];
  const doc = parseDocument(project.text);
  doc.set("main", PROGRAM_MAIN);
  return [
    {
      file: "Pulumi.yaml",
      behind: true,
      says: `main is ${project.main ?? "(none)"}; the installed package's program is ${PROGRAM_MAIN} (--write sets it)`,
      fix: { before: project.text, after: doc.toString() },
    },
  ];
}

function schemaFindings(dir: string): Finding[] {
  const findings: Finding[] = [];
  const schema = path.join(dir, SCHEMA_FILE);
  const current = stackFileJsonSchemaText();
  const before = fs.existsSync(schema) ? fs.readFileSync(schema, "utf8") : undefined;
  if (before !== current) {
    findings.push({
      file: SCHEMA_FILE,
      behind: true,
      says: `${before === undefined ? "missing" : "not the installed version's schema of stack files"} (--write ${before === undefined ? "writes" : "replaces"} it)`,
      fix: { before: before ?? "", after: current },
    });
  }
  const configDir = path.join(dir, "stacks-config");
  const stackFiles = fs.existsSync(configDir)
    ? fs
        .readdirSync(configDir)
        .filter((f) => f.endsWith(".yaml") || f.endsWith(".yml"))
        .sort()
    : [];
  for (const name of stackFiles) {
    const text = fs.readFileSync(path.join(configDir, name), "utf8");
    const first = /^# yaml-language-server: \$schema=(\S+)[^\n]*/.exec(text);
    if (first === null || first[1] === SCHEMA_REFERENCE) continue;
    findings.push({
      file: `stacks-config/${name}`,
      behind: true,
      says: `its $schema is ${first[1] ?? ""}, not ${SCHEMA_REFERENCE} (the installed version's, which import writes; --write sets it)`,
      fix: {
        before: text,
        after: `# yaml-language-server: $schema=${SCHEMA_REFERENCE}${text.slice(first[0].length)}`,
      },
    });
  }
  return findings;
}

function workflowFindings(dir: string, root: string, version: string): Finding[] {
  const templates = workflowTemplates(root);
  const workflowsDir = path.join(dir, WORKFLOWS_DIR);
  const present = fs.existsSync(workflowsDir)
    ? fs.readdirSync(workflowsDir).filter((f) => f.endsWith(".yml") || f.endsWith(".yaml"))
    : [];
  const written = present
    .map((name) => ({
      name,
      marker: readWorkflowMarker(fs.readFileSync(path.join(workflowsDir, name), "utf8")),
    }))
    .filter((w) => w.marker !== undefined);
  const findings: Finding[] = [];
  for (const template of templates) {
    const file = `${WORKFLOWS_DIR}/${template.name}`;
    const full = path.join(dir, file);
    if (fs.existsSync(full)) {
      const finding = workflowFinding(file, fs.readFileSync(full, "utf8"), template, version);
      if (finding !== undefined) findings.push(finding);
      continue;
    }
    // A repository with none of init's workflows chose no CI (--ci none): nothing is missing.
    const target = written[0]?.marker?.target;
    if (target === undefined) continue;
    findings.push({
      file,
      behind: true,
      says: `a workflow of stackwright ${version} this repository does not have (--write adds it)`,
      fix: { before: "", after: renderWorkflow({ template: template.name, version, target }, template.text) },
    });
  }
  const known = new Set(templates.map((t) => t.name));
  for (const { name, marker } of written) {
    if (marker !== undefined && !known.has(marker.template)) {
      findings.push({
        file: `${WORKFLOWS_DIR}/${name}`,
        behind: false,
        says: `written from the template ${marker.template} of stackwright ${marker.version}, which ${version} no longer has: remove it or keep it as your own`,
      });
    }
  }
  return findings;
}

function targetFindings(dir: string): Finding[] {
  const findings: Finding[] = [];
  const targets = fs
    .readdirSync(dir)
    .map((f) => /^Pulumi\.(.+)\.yaml$/.exec(f)?.[1])
    .filter((t): t is string => t !== undefined && targetProblem(t) === undefined)
    .sort();
  for (const target of targets) {
    const file = `Pulumi.${target}.yaml`;
    const full = path.join(dir, file);
    try {
      if (isDemo(target, full)) continue;
      if (!hasOwnSecrets(full)) {
        findings.push({
          file,
          behind: false,
          says:
            "has no secrets of its own (no encryptionsalt, no secretsprovider): runs take the token from " +
            "STACKWRIGHT_API_TOKEN; with it set and PULUMI_CONFIG_PASSPHRASE, npx stackwright init adds it as a secret",
        });
        continue;
      }
      if (!encryptedWithBuiltInPassphrase(full)) continue;
    } catch (error) {
      findings.push({ file, behind: true, says: error instanceof Error ? error.message : String(error) });
      continue;
    }
    findings.push({
      file,
      behind: true,
      says:
        `its secrets are sealed with Stackwright's public demo passphrase, so anyone who reads it can decrypt them: ` +
        `rotate the API token and re-encrypt the file with a passphrase of your own (pulumi stack change-secrets-provider)`,
    });
  }
  return findings;
}

const SecretsOfFile = z.looseObject({
  secretsprovider: z.string().optional(),
  encryptionsalt: z.string().optional(),
});

/** True when the target file names its secrets provider or carries a passphrase's salt. */
function hasOwnSecrets(configFile: string): boolean {
  const parsed = SecretsOfFile.safeParse(parseDocument(fs.readFileSync(configFile, "utf8")).toJS() ?? {});
  return (
    parsed.success && (parsed.data.secretsprovider !== undefined || parsed.data.encryptionsalt !== undefined)
  );
}

/** The demo's dev target on this machine's emulator: the one the public passphrase may serve. */
function isDemo(target: string, configFile: string): boolean {
  try {
    return secretsEnv({ target, configFile, env: {} })["PULUMI_CONFIG_PASSPHRASE"] === BUILT_IN_PASSPHRASE;
  } catch {
    return false;
  }
}

const Dependencies = z.record(z.string(), z.string());
const PackageJson = z.looseObject({
  dependencies: Dependencies.optional(),
  devDependencies: Dependencies.optional(),
  optionalDependencies: Dependencies.optional(),
  scripts: z.record(z.string(), z.unknown()).optional(),
  allowScripts: z.record(z.string(), z.unknown()).optional(),
});

function packageFindings(dir: string, version: string): Finding[] {
  const file = path.join(dir, "package.json");
  if (!fs.existsSync(file)) {
    return [
      { file: "package.json", behind: true, says: "missing: run npx stackwright init here (it writes it)" },
    ];
  }
  const text = fs.readFileSync(file, "utf8");
  const unreadable = (why: string): Finding[] => [
    { file: "package.json", behind: true, says: `${why}: fix it` },
  ];
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return unreadable(`is not valid JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  const read = PackageJson.safeParse(raw);
  if (!read.success) {
    const issue = read.error.issues[0];
    const where =
      issue === undefined || issue.path.length === 0 ? "the top level" : issue.path.map(String).join(".");
    return unreadable(`is not a package.json doctor can check: at ${where}: ${issue?.message ?? "invalid"}`);
  }
  const parsed = read.data;
  const spec =
    parsed.dependencies?.["stackwright"] ??
    parsed.devDependencies?.["stackwright"] ??
    parsed.optionalDependencies?.["stackwright"];
  const dependency = dependencyFinding(spec, version);
  const review = installScriptsFinding(unreviewedInstallScripts(parsed.allowScripts));
  // What a merge of the file brings up to date (a missing dependency, a missing review) is one
  // finding and one write; a dependency on another version is the user's npm install.
  const byMerge = [spec === undefined ? dependency : undefined, review].filter((f) => f !== undefined);
  const findings = spec !== undefined && dependency !== undefined ? [dependency] : [];
  if (byMerge.length > 0) {
    findings.push({
      file: "package.json",
      behind: true,
      says: byMerge.map((f) => f.says).join("; "),
      fix: { before: text, after: mergePackageJson(text, version).text },
    });
  }
  return findings;
}

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, text);
  fs.renameSync(temporary, file);
}
