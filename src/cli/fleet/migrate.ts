/**
 * From one Pulumi stack for the whole fleet (the target's own stack, before per-file stacks) to
 * one stack per API stack, by moving state only: the platform is never called. Each
 * `stackwright:index:Stack` component moves with everything under it (and the providers) into
 * `<target>.<API stack>`, its URNs renamed, ids and outputs as they were; the target's stack is
 * left with no resources, holding the settings as before. A copy of the old state is written
 * first. Safe to run again: a per-file stack that already has resources is left as it is.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { z } from "zod";
import { buildUrn, parseUrn, urnName, urnStackPrefix } from "../../api";
import { CliError } from "../kit/exit-codes";
import { commandLine } from "../../project/invocation";
import { stackNameOf, withPerFileStack, type Target } from "./open-target";

const ResourceSchema = z
  .object({
    urn: z.string(),
    type: z.string(),
    parent: z.string().optional(),
    outputs: z.record(z.string(), z.unknown()).optional(),
  })
  .loose();
type Resource = z.infer<typeof ResourceSchema>;
const DeploymentSchema = z
  .object({
    resources: z.array(ResourceSchema).default([]),
    pending_operations: z.array(z.unknown()).optional(),
  })
  .loose();

/** Why the target cannot run per-file stacks yet (its own stack still holds the fleet), or undefined. */
export async function legacyProblem(target: Target): Promise<string | undefined> {
  const count = await target.stacks.resourceCount(target.name);
  if (count <= 1) return undefined;
  return (
    `stack '${target.name}' still holds the resources of every API stack (${count} resources, from before ` +
    `per-file stacks). Run '${commandLine(`migrate --target ${target.name}`)}' once: it moves them into one ` +
    `stack per API stack without calling the platform.`
  );
}

export interface Moved {
  readonly stackName: string;
  readonly resources: number;
  readonly skipped: boolean;
}

/** Moves the fleet's resources out of the target's stack; returns what went where. */
export async function migrateTarget(target: Target, log: (line: string) => void): Promise<Moved[]> {
  const exported = await (await target.workspace()).exportStack(target.name);
  const parsed = DeploymentSchema.safeParse(exported.deployment);
  if (!parsed.success)
    throw new CliError("failed", `stack '${target.name}': its state is not in a form migrate knows`);
  const deployment = parsed.data;
  if ((deployment.pending_operations ?? []).length > 0) {
    throw new CliError(
      "failed",
      `stack '${target.name}' has operations that an interrupted run left pending; run '${commandLine(`refresh --stack ${target.name}`)}' first`,
    );
  }
  const backupDir = path.join(target.projectDir, ".stackwright", "migrations");
  fs.mkdirSync(backupDir, { recursive: true });
  const backup = path.join(
    backupDir,
    `${target.name}-${new Date().toISOString().replace(/[:.]/g, "-")}.json`,
  );
  fs.writeFileSync(backup, JSON.stringify(exported, null, 2));
  log(`migrate: copy of stack '${target.name}' state written to ${backup}`);

  const resources = deployment.resources;
  const root = resources.find((r) => r.type === "pulumi:pulumi:Stack");
  const providers = resources.filter((r) => r.type.startsWith("pulumi:providers:"));
  const components = resources.filter((r) => r.type === "stackwright:index:Stack");
  const oldPrefix = urnStackPrefix(target.name);
  const moved: Moved[] = [];
  for (const component of components) {
    const apiStack = urnName(component.urn);
    const stackName = stackNameOf(target, apiStack);
    const members = new Set([component.urn]);
    for (const r of resources) if (r.parent !== undefined && members.has(r.parent)) members.add(r.urn);
    const own = resources.filter((r) => members.has(r.urn));
    const rootCopy: Resource[] =
      root === undefined ? [] : [{ ...root, outputs: pickStackOutput(root.outputs, apiStack) }];
    const rootUrn = root === undefined ? undefined : parseUrn(root.urn);
    const newRootUrn =
      rootUrn === undefined
        ? ""
        : buildUrn({
            ...rootUrn,
            stack: stackName,
            name: rootUrn.name.replace(new RegExp(`-${target.name}$`), `-${stackName}`),
          });
    let text = JSON.stringify({
      ...deployment,
      pending_operations: [],
      resources: [...rootCopy, ...providers, ...own],
    });
    if (root !== undefined) text = text.split(JSON.stringify(root.urn).slice(1, -1)).join(newRootUrn);
    text = text.split(oldPrefix).join(urnStackPrefix(stackName));
    const existing = await target.stacks.resourceCount(stackName);
    if (existing > 0) {
      log(`migrate: ${stackName} already has ${existing} resources; left as it is`);
      moved.push({ stackName, resources: existing, skipped: true });
      continue;
    }
    const deploymentOfFile: unknown = JSON.parse(text);
    await withPerFileStack(target, stackName, log, (stack) =>
      stack.importStack({ version: exported.version, deployment: deploymentOfFile }),
    );
    log(`migrate: ${own.length} resources of API stack ${apiStack} moved into stack ${stackName}`);
    moved.push({ stackName, resources: own.length, skipped: false });
  }
  // Last: the target's stack keeps only its root, so nothing is ever managed twice.
  const emptied = {
    ...deployment,
    pending_operations: [],
    resources: root === undefined ? [] : [{ ...root, outputs: {} }],
  };
  await (await target.workspace()).importStack(target.name, {
    version: exported.version,
    deployment: emptied,
  });
  log(
    `migrate: stack '${target.name}' now holds only the settings in ${path.basename(target.configFile ?? "")}`,
  );
  return moved;
}

/** The root's `stacks` output narrowed to one API stack (what its per-file program exports). */
function pickStackOutput(
  outputs: Record<string, unknown> | undefined,
  apiStack: string,
): Record<string, unknown> {
  const stacks = outputs?.["stacks"];
  if (typeof stacks !== "object" || stacks === null || !(apiStack in stacks)) return {};
  const picked: unknown = Object.entries(stacks).find(([k]) => k === apiStack)?.[1];
  return { stacks: { [apiStack]: picked } };
}
