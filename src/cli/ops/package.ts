/**
 * The running Stackwright package as an ops repository sees it: where its files are, its
 * version, the Pulumi SDK release it pins, its workflow templates and the Pulumi CLI it runs.
 * `init` writes an ops repository from these, and `doctor` compares one with them.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { z } from "zod";

/** Where an ops repository's Pulumi.yaml says the program is: inside the installed package. */
export const PROGRAM_MAIN = "node_modules/stackwright/dist/src/program/main.js";

/** The templates directory of the package: one workflow per file (templates/README.md). */
export const WORKFLOW_TEMPLATES = path.join("templates", "workflows");

const PackageJson = z.looseObject({ name: z.string(), version: z.string() });

/** The version of the package at `root` (its package.json). */
export function packageVersion(root: string): string {
  return PackageJson.parse(JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"))).version;
}

/** The release of `@pulumi/pulumi` the package at `root` runs (resolved as Node resolves it from there). */
export function pinnedPulumiRelease(root: string): string {
  const file = createRequire(path.join(root, "package.json")).resolve("@pulumi/pulumi/package.json");
  return packageVersion(path.dirname(file));
}

/** The workflow templates of the package: file name and text, sorted by name; none when it has none. */
export function workflowTemplates(root: string): { name: string; text: string }[] {
  const dir = path.join(root, WORKFLOW_TEMPLATES);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith(".yml") || name.endsWith(".yaml"))
    .sort()
    .map((name) => ({ name, text: fs.readFileSync(path.join(dir, name), "utf8") }));
}

/** A Pulumi CLI binary and the version it says it is. */
export interface PulumiCli {
  readonly binary: string;
  readonly version: string;
}

/**
 * The Pulumi CLI Stackwright's runs would use: the package's toolchain (`.tools/bin/pulumi`), else
 * the first `pulumi` on PATH; undefined when there is none. Asks it `pulumi version` (one process).
 */
export function pulumiCli(
  root: string,
  env: Readonly<Record<string, string | undefined>>,
): PulumiCli | undefined {
  const candidates = [
    path.join(root, ".tools", "bin", "pulumi"),
    ...(env["PATH"] ?? "")
      .split(path.delimiter)
      .filter((dir) => dir !== "")
      .map((dir) => path.join(dir, "pulumi")),
  ];
  for (const binary of candidates) {
    if (!isExecutable(binary)) continue;
    try {
      const out = execFileSync(binary, ["version"], {
        encoding: "utf8",
        timeout: 20_000,
        env: { ...env, PULUMI_SKIP_UPDATE_CHECK: "true" },
        stdio: ["ignore", "pipe", "ignore"],
      });
      return { binary, version: out.trim().replace(/^v/, "") };
    } catch {
      continue;
    }
  }
  return undefined;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
