/**
 * The preflight of an engine command, with what it needs from the Pulumi stack: its config (the
 * API settings may live there, and `stackwright:configDir`), the stacks of stacks-config/, and
 * the environment the engine will get. An invalid stacks-config/ stops here too, before the
 * engine prints anything. `STACKWRIGHT_PREFLIGHT=off` skips it, for a project whose program is
 * not Stackwright's.
 */
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { loadDesiredStateOrThrow } from "../config";
import { preflight } from "./preflight";

/** Checks settings, API, credentials and stack access for `command` on `stack`; throws a CliError. */
export async function preflightEngineRun(stack: Stack, projectDir: string, command: string): Promise<void> {
  const env = { ...process.env, ...stack.workspace.envVars };
  // For a project that runs a program other than Stackwright's (the engine's own checks apply).
  if (env["STACKWRIGHT_PREFLIGHT"] === "off") return;
  const all = await stack.getAllConfig();
  const config = (key: string): string | undefined => all[key]?.value;
  // The program resolves the directory the same way (src/program/index.ts).
  const configDir = path.resolve(projectDir, config("stackwright:configDir") ?? "stacks-config");
  const state = await loadDesiredStateOrThrow(configDir);
  const stacks = state.stacks.map((s) => ({
    name: s.stack,
    file: path.relative(process.cwd(), state.sourceFiles[s.stack] ?? configDir),
  }));
  await preflight({ command, stacks, config, env });
}
