/**
 * The Pulumi program: stacks-config/ (the desired state) becomes one StackComponent per API
 * stack. Run by the engine in its own Node process (`pulumi up`, `stackwright up`, `npm start`).
 * A bad config stops the run before any resource is declared, with every error listed.
 */
import "../sqlite-warning";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { formatConfigErrors, loadDesiredStateSync } from "../config";
import { StackComponent } from "./stack-component";
import type { EnvironmentOutputs } from "./environment-component";

const settings = new pulumi.Config("stackwright");
// Relative to the project root (where Pulumi.yaml is), not to the program directory under dist/.
const configDir = path.resolve(
  pulumi.runtime.getRootDirectory(),
  settings.get("configDir") ?? "stacks-config",
);
const loaded = loadDesiredStateSync(configDir);
if (!loaded.ok) {
  // RunError: the engine shows the message alone, without a stack trace.
  throw new pulumi.RunError(`stacks-config is not valid:\n${formatConfigErrors(loaded.errors)}`);
}

const declared: Record<string, Record<string, EnvironmentOutputs>> = {};
for (const stack of loaded.state.stacks) {
  declared[stack.stack] = new StackComponent(stack).environments;
}

/** Per stack and environment: the deployment (id, state, sha, link), the lock, snapshots and restores. */
export const stacks = declared;
