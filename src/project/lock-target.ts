/**
 * A stack's lock target: the Pulumi project of a project directory, and the stack's place in the
 * backend its engine uses.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { parse } from "yaml";
import { z } from "zod";
import { engineEnv } from "./engine-env";
import type { Env } from "./engine-env";
import { openStateStore, type StateStore } from "../state-backend";

/** The stack whose lock is at stake, in the backend and in the user's words. */
export interface LockTarget {
  readonly store: StateStore;
  /** Pulumi project name (Pulumi.yaml `name`). */
  readonly project: string;
  /** Pulumi stack name. */
  readonly stack: string;
}

const ProjectFile = z.object({ name: z.string().min(1) });

/** The Pulumi project name of `projectDir` (its Pulumi.yaml `name`). */
export function projectNameOf(projectDir: string): string {
  const file = path.join(projectDir, "Pulumi.yaml");
  const parsed = ProjectFile.safeParse(parse(fs.readFileSync(file, "utf8")));
  if (!parsed.success) throw new Error(`${file} has no project name (a 'name:' line)`);
  return parsed.data.name;
}

/**
 * The stack's lock in the backend the engine of `projectDir` uses, in the environment `env` (its
 * `PULUMI_BACKEND_URL`, else the project's own state directory; an S3 store's credentials).
 */
export function lockTargetOf(projectDir: string, stack: string, env: Env): LockTarget {
  const url = engineEnv({ projectDir, baseEnv: { ...env } })["PULUMI_BACKEND_URL"] ?? "";
  return { store: openStateStore(url, { ...env }), project: projectNameOf(projectDir), stack };
}
