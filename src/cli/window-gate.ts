/**
 * Change windows at the CLI: before `up` writes anything, and at the end of `preview`, every
 * environment whose windows are closed now and that the plan would change (deploy, redeploy,
 * retire, lock change, snapshot, restore) is refused, naming when its next window opens.
 * A run that changes nothing there is never refused. `--override-window "REASON"` lets an
 * on-call engineer through; the program then writes the reason into the deployment's summary.
 *
 * The window verdict comes from the plan the engine computed (what would really change), not
 * from a guess on the YAML; the clock is {@link clockNow}.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { parse } from "yaml";
import { z } from "zod";
import {
  type DesiredState,
  loadDesiredState,
  refusalText,
  windowClock,
  windowVerdict,
  windowsOf,
} from "../config";
import { UsageError } from "./exit-codes";
import type { ChangeKind, PlannedChange } from "./summary";

/** The instant windows are judged at (the `STACKWRIGHT_NOW` test hook, else now). */
export function clockNow(env: NodeJS.ProcessEnv = process.env): Date {
  try {
    return windowClock(env);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** Plan rows that change an environment (a title edit or a git fetch does not). */
const CHANGING: ReadonlySet<ChangeKind> = new Set<ChangeKind>([
  "deploy",
  "redeploy",
  "retire",
  "lock",
  "unlock",
  "relock",
  "snapshot",
  "snapshot-delete",
  "restore",
]);

/** An environment whose change windows are closed at the instant asked. */
export interface ClosedEnvironment {
  readonly stack: string;
  readonly environment: string;
  /** Why, and when the next window opens (in the window's zone and in UTC). */
  readonly text: string;
}

/** Every environment of the desired state whose windows are closed at `now`. */
export function closedEnvironments(state: DesiredState, now: Date): ClosedEnvironment[] {
  const closed: ClosedEnvironment[] = [];
  for (const stack of state.stacks) {
    for (const [environment, config] of Object.entries(stack.environments)) {
      const verdict = windowVerdict(windowsOf(stack, config), now);
      if (verdict.open) continue;
      closed.push({
        stack: stack.stack,
        environment,
        text: refusalText(`${stack.stack}/${environment}`, verdict, now),
      });
    }
  }
  return closed;
}

/** One refusal per closed environment that the plan would change, listing those changes. */
export function windowRefusals(
  changes: readonly PlannedChange[],
  closed: readonly ClosedEnvironment[],
): string[] {
  return closed.flatMap((env) => {
    const refused = changes.filter(
      (c) => c.stack === env.stack && c.environment === env.environment && CHANGING.has(c.kind),
    );
    if (refused.length === 0) return [];
    const what = refused.map((c) => `${c.kind} ${c.text}`).join("; ");
    return [`${env.text}. Refused: ${what}.`];
  });
}

/** What an engine command needs to know about windows before it runs. */
export interface WindowGate {
  /** Environments closed now; empty when every window is open (nothing to check). */
  readonly closed: readonly ClosedEnvironment[];
  /** The on-call engineer's reason, when `--override-window` was given. */
  readonly override: string | undefined;
}

/** The program's `stackwright:configDir` setting from `Pulumi.<stack>.yaml`, if the file sets it. */
function configDirSetting(projectDir: string, stackName: string): string | undefined {
  try {
    const settings: unknown = parse(
      fs.readFileSync(path.join(projectDir, `Pulumi.${stackName}.yaml`), "utf8"),
    );
    const parsed = StackSettings.safeParse(settings);
    return parsed.success ? parsed.data.config?.["stackwright:configDir"] : undefined;
  } catch {
    return undefined;
  }
}

const StackSettings = z.object({
  config: z
    .record(z.string(), z.unknown())
    .transform((c) => {
      const dir = c["stackwright:configDir"];
      return typeof dir === "string" ? { "stackwright:configDir": dir } : {};
    })
    .optional(),
});

/**
 * Reads the desired state (where the program reads it) and the clock for the gate. A bad config
 * is left to the program, which reports every error; here it only means there is nothing to judge.
 */
export async function openWindowGate(
  projectDir: string,
  stackName: string,
  override: string | undefined,
): Promise<WindowGate> {
  if (override !== undefined && override.trim() === "") {
    throw new UsageError(
      '--override-window needs a reason, e.g. --override-window "INC-123: hotfix for checkout"',
    );
  }
  const configDir = configDirSetting(projectDir, stackName) ?? "stacks-config";
  const loaded = await loadDesiredState(path.resolve(projectDir, configDir));
  if (!loaded.ok) return { closed: [], override };
  return { closed: closedEnvironments(loaded.state, clockNow()), override };
}

/** The lines that say an override let a run through (printed, and in the summary). */
export function overrideNotice(gate: WindowGate): string | undefined {
  if (gate.override === undefined || gate.closed.length === 0) return undefined;
  const where = gate.closed.map((c) => `${c.stack}/${c.environment}`).join(", ");
  return `Change windows overridden (--override-window): "${gate.override}". Closed now: ${where}; the reason is recorded in the summary of each deployment made there.`;
}

/** Formats refusals for the terminal. */
export function refusalReport(refusals: readonly string[]): string {
  return `Change windows refuse this run; nothing was changed:\n${refusals.map((r) => `  - ${r}`).join("\n")}\nRead-only runs are never refused. An on-call engineer may pass --override-window "REASON".`;
}

/** The Markdown the pull-request summary gets about windows: refusals, or the override used. */
export function windowSummary(refusals: readonly string[], notice: string | undefined): string {
  const lines: string[] = [];
  if (refusals.length > 0) {
    lines.push("### Change windows: refused", "", ...refusals.map((r) => `- ${r.replace(/\|/g, "\\|")}`), "");
  }
  if (notice !== undefined) lines.push("### Change windows: overridden", "", notice, "");
  return lines.join("\n");
}
