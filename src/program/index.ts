/**
 * The Pulumi program: stacks-config/ (the desired state) becomes one StackComponent per API
 * stack. Run by the engine in its own Node process (`pulumi up`, `stackwright up`, `npm start`).
 * A bad config stops the run before any resource is declared, with every error listed; so does
 * a failing error-check (checks read the platform first, see checks.ts).
 */
import "../sqlite-warning";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { formatConfigErrors, loadDesiredStateSync } from "../config";
import { enforceChecks } from "./checks";
import { stackFactOutputs, type StackFactOutputs } from "./facts";
import { StackComponent } from "./stack-component";
import type { EnvironmentOutputs } from "./environment-component";

const settings = new pulumi.Config("stackwright");
// Relative to the project root (where Pulumi.yaml is), not to the program directory under dist/.
const configDir = path.resolve(
  pulumi.runtime.getRootDirectory(),
  settings.get("configDir") ?? "stacks-config",
);
const loaded = loadDesiredStateSync(configDir);
/** Files named from the project root in messages (`stacks-config/acme-web.yaml:3:5`), as in a review. */
const shownFile = (file: string) => path.relative(pulumi.runtime.getRootDirectory(), file) || file;
if (!loaded.ok) {
  // RunError: the engine shows the message alone, without a stack trace.
  throw new pulumi.RunError(
    `stacks-config is not valid:\n${formatConfigErrors(loaded.errors.map((e) => ({ ...e, file: shownFile(e.file) })))}`,
  );
}

const state = loaded.state;

/**
 * Checks first, then the resources: a failing error-check throws before anything is declared,
 * so neither preview nor up makes a change. The outputs are `stacks` (per stack and environment:
 * the deployment, the lock, snapshots and restores) and `facts` (what each `outputs:` asks for).
 */
async function main() {
  await enforceChecks(state, shownFile);
  const stacks: Record<string, Record<string, EnvironmentOutputs>> = {};
  const facts: Record<string, StackFactOutputs> = {};
  for (const stack of state.stacks) {
    const environments = new StackComponent(stack).environments;
    stacks[stack.stack] = environments;
    const shown = stackFactOutputs(stack, (name) => {
      const sha = environments[name]?.deployment?.sha;
      const d = stack.environments[name]?.deployment;
      return sha === undefined || d === undefined
        ? undefined
        : { sha, ref: d.ref ? `${d.ref_type} ${d.ref}` : d.ref_type };
    });
    if (shown !== undefined) facts[stack.stack] = shown;
  }
  return Object.keys(facts).length === 0 ? { stacks } : { stacks, facts };
}

export = main;
