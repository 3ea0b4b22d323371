/**
 * What the commands need to guard a stack's lock: the flags (`--lock-wait`, `--stale-lock-after`)
 * and the stack's place in the backend the engine uses.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { parse } from "yaml";
import { z } from "zod";
import { flag } from "../kit/args";
import { engineEnv } from "../engine/env";
import type { LockPolicy, LockTarget } from "./lock-guard";
import { openStateStore } from "./store";

/** The lock flags of every command that updates a stack (durations, read into milliseconds). */
export const lockFlags = {
  "lock-wait": flag.duration(
    "how long to wait for another run's lock on the stack, e.g. 10m (default: fail at once)",
  ),
  "stale-lock-after": flag.duration(
    "remove another host's lock older than this, e.g. 2h (default: never; this host's locks are removed when their process is gone)",
  ),
};

/** The lock policy of the parsed flags. */
export function lockPolicyOf(flags: {
  readonly "lock-wait"?: number | undefined;
  readonly "stale-lock-after"?: number | undefined;
}): LockPolicy {
  return { lockWaitMs: flags["lock-wait"] ?? 0, staleAfterMs: flags["stale-lock-after"] };
}

const ProjectFile = z.object({ name: z.string().min(1) });

/** The Pulumi project name of `projectDir` (its Pulumi.yaml `name`). */
export function projectNameOf(projectDir: string): string {
  const file = path.join(projectDir, "Pulumi.yaml");
  const parsed = ProjectFile.safeParse(parse(fs.readFileSync(file, "utf8")));
  if (!parsed.success) throw new Error(`${file} has no project name (a 'name:' line)`);
  return parsed.data.name;
}

/** The stack's lock in the backend the engine of `projectDir` uses (with `env` applied). */
export function lockTargetOf(
  projectDir: string,
  stack: string,
  env: Record<string, string> = {},
): LockTarget {
  const url = { ...engineEnv({ projectDir }), ...env }["PULUMI_BACKEND_URL"] ?? "";
  return { store: openStateStore(url), project: projectNameOf(projectDir), stack };
}
