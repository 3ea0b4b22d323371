/**
 * The Pulumi program: one API stack of stacks-config/ (the desired state) becomes a
 * StackComponent. The Pulumi stack's name says which: `<target>.<api stack>` (src/config/
 * stack-names.ts), so `stackwright up`, `npm start` and plain `pulumi up -s dev.acme-web` all run
 * one file. Run by the engine in its own Node process. A bad config stops the run before any
 * resource is declared, with every error listed.
 */
import "../sqlite-warning";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { formatConfigErrors, loadDesiredStateSync, parsePerFileStackName } from "../config";
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

const known = loaded.state.stacks.map((s) => s.stack).join(", ");
const stackName = pulumi.getStack();
const perFile = parsePerFileStackName(stackName);
if (perFile === undefined) {
  // A stack that would hold every file would create every site's resources a second time.
  throw new pulumi.RunError(
    `Pulumi stack '${stackName}' is not a per-file stack: run one named <target>.<API stack>, ` +
      `e.g. ${stackName}.${loaded.state.stacks[0]?.stack ?? "acme-web"} (API stacks: ${known}).`,
  );
}
const selected = loaded.state.stacks.find((s) => s.stack === perFile.apiStack);
if (selected === undefined) {
  // Declaring nothing would delete everything the stack manages: refuse instead.
  throw new pulumi.RunError(
    `No file in ${configDir} declares API stack '${perFile.apiStack}' (API stacks: ${known}). ` +
      `To remove what stack '${stackName}' manages, run 'stackwright destroy ${perFile.apiStack} --target ${perFile.target}'.`,
  );
}

const declared: Record<string, Record<string, EnvironmentOutputs>> = {
  [selected.stack]: new StackComponent(selected).environments,
};

/** Per stack and environment: the deployment (id, state, sha, link), the lock, snapshots and restores. */
export const stacks = declared;
