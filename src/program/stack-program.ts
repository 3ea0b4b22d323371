/**
 * The Pulumi program: one API stack of stacks-config/ (the desired state) becomes a
 * StackComponent. The Pulumi stack's name says which: `<target>.<api stack>` (src/config/
 * stack-names.ts), so `stackwright up`, `npm start` and plain `pulumi up -s dev.acme-web` all run
 * one file. Run by the engine, either in the language host's Node process (main.ts, Pulumi.yaml's
 * `main`: plain `pulumi`) or in the `stackwright` process (host.ts). A bad config stops the run
 * before any resource is declared, with every error listed; so does a failing error-check of the
 * file (checks read the platform first, see checks.ts).
 */
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { formatConfigErrors, loadStackSync, parsePerFileStackName, type StackConfig } from "../config";
import { enforceChecks } from "./checks";
import { userError } from "./run-error";
import { stackFactOutputs } from "./facts";
import { StackComponent } from "./stack-component";
import type { EnvironmentOutputs } from "./environment-component";

/**
 * The program for the current stack (`pulumi.getStack()`), with stacks-config/ found from
 * `rootDirectory` (the project root, where Pulumi.yaml is). The file is loaded and its checks
 * run first, then the resources are declared; the outputs are `stacks` (per environment: the
 * deployment, the lock, snapshots and restores) and, when the file's `outputs:` ask for any,
 * `facts` (the platform's facts per environment and for the stack).
 */
export async function stackProgram(rootDirectory: string) {
  const settings = new pulumi.Config("stackwright");
  // Relative to the project root (where Pulumi.yaml is), not to the program directory under dist/.
  const configDir = path.resolve(rootDirectory, settings.get("configDir") ?? "stacks-config");
  // Only this stack's file is parsed (the CLI validated all of them): the cost stays per file.
  const loaded = loadStackSync(configDir, parsePerFileStackName(pulumi.getStack())?.apiStack);
  /** Files named from the project root in messages (`stacks-config/acme-web.yaml:3:5`), as in a review. */
  const shownFile = (file: string) => path.relative(rootDirectory, file) || file;
  if (!loaded.ok) {
    // A RunError: the engine shows the message alone, without a stack trace.
    throw userError(
      `stacks-config is not valid:\n${formatConfigErrors(loaded.errors.map((e) => ({ ...e, file: shownFile(e.file) })))}`,
    );
  }

  const known = loaded.state.stacks.map((s) => s.stack).join(", ");
  const stackName = pulumi.getStack();
  const perFile = parsePerFileStackName(stackName);
  if (perFile === undefined) {
    // A stack that would hold every file would create every site's resources a second time.
    throw userError(
      `Pulumi stack '${stackName}' is not a per-file stack: run one named <target>.<API stack>, ` +
        `e.g. ${stackName}.${loaded.state.stacks[0]?.stack ?? "acme-web"} (API stacks: ${known}).`,
    );
  }
  const selected = loaded.state.stacks.find((s) => s.stack === perFile.apiStack);
  if (selected === undefined) {
    // Declaring nothing would delete everything the stack manages: refuse instead.
    throw userError(
      `No file in ${configDir} declares API stack '${perFile.apiStack}' (API stacks: ${known}). ` +
        `To remove what stack '${stackName}' manages, run Stackwright's \`destroy ${perFile.apiStack} --target ${perFile.target}\` (npx stackwright, or npm run stackwright -- in its own repository).`,
    );
  }

  const state = loaded.state;
  const file: StackConfig = selected;

  await enforceChecks(state, file, shownFile);
  const environments = new StackComponent(file).environments;
  const facts = stackFactOutputs(file, (name) => {
    const sha = environments[name]?.deployment?.sha;
    const d = file.environments[name]?.deployment;
    return sha === undefined || d === undefined
      ? undefined
      : { sha, ref: d.ref ? `${d.ref_type} ${d.ref}` : d.ref_type };
  });
  const stacks: Record<string, Record<string, EnvironmentOutputs>> = { [file.stack]: environments };
  return facts === undefined ? { stacks } : { stacks, facts: { [file.stack]: facts } };
}
