/**
 * Change windows at the CLI, per stack of a fleet run: before `up` (or `destroy`) writes
 * anything, and at the end of `preview`, every environment of the stack's file whose windows are
 * closed now and that the plan would change (deploy, redeploy, retire, lock change, snapshot,
 * restore) refuses that stack's run, naming when its next window opens; the other stacks run.
 * A run that changes nothing there is never refused, nor is `refresh`. `--override-window
 * "REASON"` lets an on-call engineer through; the program then writes the reason into the
 * summary of the deployment it makes there.
 *
 * The verdict comes from the plan the engine computed (what would really change), not from a
 * guess on the YAML; the clock is kit/clock.ts's, read once per run.
 */
import * as path from "node:path";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import {
  type DesiredState,
  loadDesiredState,
  parsePerFileStackName,
  refusalText,
  windowVerdict,
  windowsOf,
} from "../../config";
import type { EngineRunOptions, EngineStack } from "../engine/run";
import { flag, FlagRuleError, type Flag } from "../kit/args";
import { CliError, UsageError } from "../kit/exit-codes";
import { previewFromEvents } from "../engine/preview-events";
import { type ChangeKind, type PlannedChange, plannedChanges } from "../report/summary";

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

/** What a fleet run knows about windows before any stack runs. */
export interface WindowGate {
  /** By API stack: its environments closed at the run's instant (absent when all are open). */
  readonly closed: ReadonlyMap<string, readonly ClosedEnvironment[]>;
  /** The on-call engineer's reason, when `--override-window` was given. */
  readonly override: string | undefined;
}

/** `--override-window`'s value: a reason is required (it goes into the deployment's summary). */
/**
 * `--override-window REASON`, read as the trimmed reason; a blank one is refused with what to
 * give, since the reason is what the deployment's summary and the title record.
 */
export function overrideWindowFlag(help: string): Flag<string | undefined> {
  return flag.parsed(help, (text) => {
    if (text.trim() === "")
      throw new FlagRuleError('needs a reason, e.g. --override-window "INC-123: hotfix for checkout"');
    return text.trim();
  });
}

export function overrideReason(given: string | undefined): string | undefined {
  if (given === undefined) return undefined;
  if (given.trim() === "") {
    throw new UsageError(
      '--override-window needs a reason, e.g. --override-window "INC-123: hotfix for checkout"',
    );
  }
  return given.trim();
}

/** The gate for `state` at `now`. */
export function windowGate(state: DesiredState, now: Date, override: string | undefined): WindowGate {
  const closed = new Map<string, ClosedEnvironment[]>();
  for (const env of closedEnvironments(state, now)) {
    closed.set(env.stack, [...(closed.get(env.stack) ?? []), env]);
  }
  return { closed, override };
}

/**
 * Reads the run's clock once for the whole run, and the desired state: the one the fleet plan
 * loaded (the selected stacks' files at least), or else stacks-config/ of the project. A bad
 * config is reported by the plan or the program; here it only means there is nothing to judge.
 */
export async function openWindowGate(
  projectDir: string,
  override: string | undefined,
  clock: () => Date,
  state?: DesiredState,
): Promise<WindowGate> {
  if (state !== undefined) return windowGate(state, clock(), override);
  const loaded = await loadDesiredState(path.join(projectDir, "stacks-config"));
  if (!loaded.ok) return { closed: new Map(), override };
  return windowGate(loaded.state, clock(), override);
}

/** The environments of Pulumi stack `stackName` (`<target>.<API stack>`) closed now. */
function closedOf(gate: WindowGate, stackName: string): readonly ClosedEnvironment[] {
  const apiStack = parsePerFileStackName(stackName)?.apiStack;
  return apiStack === undefined ? [] : (gate.closed.get(apiStack) ?? []);
}

/** The lines that say an override let a stack's run through (printed, and in the summary). */
export function overrideNotice(gate: WindowGate, stackName: string): string | undefined {
  const closed = closedOf(gate, stackName);
  if (gate.override === undefined || closed.length === 0) return undefined;
  const where = closed.map((c) => `${c.stack}/${c.environment}`).join(", ");
  return `Change windows overridden (--override-window): "${gate.override}". Closed now: ${where}; the reason is recorded in the summary of each deployment made there.`;
}

/** The one-line failure of a stack the windows refuse. */
export function refusalReport(refusals: readonly string[]): string {
  return `change windows refuse this run, so nothing was changed: ${refusals.join(" ")} Read-only runs are never refused; an on-call engineer may pass --override-window "REASON".`;
}

/** One stack's run, as the gate sees it. */
export interface GatedRun {
  readonly gate: WindowGate | undefined;
  /** The Pulumi stack, `<target>.<API stack>` (with `--stack`, whatever the user named). */
  readonly stackName: string;
  readonly operation: "preview" | "up" | "refresh" | "destroy";
  /** The events of the engine run (a preview's plan is judged from them once it ends). */
  readonly events: readonly EngineEvent[];
  /** A quiet preview of what the run would change, before a run that writes. */
  readonly plan: () => Promise<readonly EngineEvent[]>;
  readonly say: (text: string) => void;
}

function refuseIfChanging(events: readonly EngineEvent[], closed: readonly ClosedEnvironment[]): void {
  const refusals = windowRefusals(plannedChanges(previewFromEvents(events)).changes, closed);
  if (refusals.length > 0) throw new CliError("failed", refusalReport(refusals));
}

/**
 * Runs `engine` for one stack unless its change windows refuse it: a run that writes previews
 * first while some environment of the file is closed, so a refusal comes before any write; a
 * preview is judged on its own plan. Throws a CliError (failed) naming each refusal.
 */
export async function gatedEngineRun<T>(run: GatedRun, engine: () => Promise<T>): Promise<T> {
  const closed = run.gate === undefined ? [] : closedOf(run.gate, run.stackName);
  if (run.gate === undefined || closed.length === 0 || run.operation === "refresh") return engine();
  const notice = overrideNotice(run.gate, run.stackName);
  if (notice !== undefined) {
    run.say(`${notice}\n`);
    return engine();
  }
  if (run.operation === "preview") {
    const result = await engine();
    refuseIfChanging(run.events, closed);
    return result;
  }
  const names = closed.map((c) => `${c.stack}/${c.environment}`).join(", ");
  run.say(`change windows are closed for ${names}: previewing before any change\n`);
  refuseIfChanging(await run.plan(), closed);
  return engine();
}

/**
 * The plan of a stack's run without printing it (the run that follows prints what it does):
 * a preview, or a destroy preview. Returns the engine's events.
 */
export async function quietPlan(
  stack: EngineStack,
  destroy: boolean,
  options: EngineRunOptions,
): Promise<EngineEvent[]> {
  const planned: EngineEvent[] = [];
  const quiet = { ...options, onOutput: () => {}, onEvent: (e: EngineEvent) => void planned.push(e) };
  if (destroy) await stack.run("destroy", { ...quiet, previewOnly: true });
  else await stack.run("preview", quiet);
  return planned;
}

/** The Markdown the fleet summary gets about overrides used (refusals are among its failures). */
export function windowSummary(notices: readonly string[]): string {
  if (notices.length === 0) return "";
  return ["", "### Change windows: overridden", "", ...notices.map((n) => `- ${n}`), ""].join("\n");
}
