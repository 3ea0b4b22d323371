/**
 * A target's notification sinks (src/notify does the work): the sinks of the target
 * (`stackwright:notify` in Pulumi.<target>.yaml) and of each stack file, checked before any engine
 * starts or anything is read (a variable a sink in use needs and that is unset is a configuration
 * error), and `drift`'s events sent once its report is known, within the delivery bound (a fleet
 * run's are sent by src/cli/notifications/notify.ts). Delivery never changes the exit code.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import {
  loadDesiredState,
  validateTargetNotify,
  type ConfigError,
  type DesiredState,
  type PathSegment,
  type TargetNotify,
} from "../config";
import {
  deliveryLines,
  deliveryMarkdown,
  driftEvents,
  eventContext,
  mergeSinks,
  sendEvents,
  unsetVariables,
  type DeliveryOptions,
  type DeliveryResult,
  type DriftChanges,
  type NotifyConnection,
  type PlacedSink,
} from "../notify";
import { environmentDispatcher, InvalidOptionsError, proxySettings } from "../client";
import { ConfigValidationError } from "../config";
import { CliError } from "./errors";

/** The sinks of one target: by API stack, the target's merged with the file's. */
export interface TargetSinks {
  readonly target: string;
  sinksOf(apiStack: string): readonly PlacedSink[];
}

const where = (error: ConfigError) => `${error.file}:${error.line}:${error.column}`;

function placed(
  sinks: readonly TargetNotify["sinks"][number][],
  locate: (path: readonly PathSegment[]) => ConfigError,
): PlacedSink[] {
  return sinks.map((sink, i) => ({
    sink,
    places: {
      url_env: where(locate([i, "url_env"])),
      ...(sink.secret_env === undefined ? {} : { secret_env: where(locate([i, "secret_env"])) }),
    },
  }));
}

/** The target's own sinks, from its settings file; a fault in them is a configuration error. */
export function targetNotifyOf(projectDir: string, target: string): TargetNotify | undefined {
  const file = path.join(projectDir, `Pulumi.${target}.yaml`);
  if (!fs.existsSync(file)) return undefined;
  return validateTargetNotify(file, fs.readFileSync(file, "utf8"));
}

/** Every sink a target's run may use, placed in its file. */
export async function loadTargetSinks(
  projectDir: string,
  target: string,
  state?: DesiredState,
): Promise<TargetSinks> {
  const own = targetNotifyOf(projectDir, target);
  if (own !== undefined && own.errors.length > 0) throw new ConfigValidationError(own.errors);
  const ofTarget = own === undefined ? [] : placed(own.sinks, (p) => own.locate(p, ""));
  let desired = state;
  if (desired === undefined) {
    const loaded = await loadDesiredState(path.join(projectDir, "stacks-config"));
    desired = loaded.ok ? loaded.state : undefined;
  }
  const byStack = new Map<string, PlacedSink[]>();
  if (desired !== undefined) {
    const { stacks, locate } = desired;
    for (const stack of stacks) {
      const ofFile = placed(stack.notify, (p) => locate(stack.stack, ["notify", ...p], ""));
      byStack.set(stack.stack, mergeSinks(ofTarget, ofFile));
    }
  }
  return { target, sinksOf: (apiStack) => byStack.get(apiStack) ?? ofTarget };
}

/**
 * Before an `up`: the variables the selected stacks' sinks need must be set, or the run stops
 * here (exit 2) with one line per variable, at the line that names it.
 */
export function requireSinkVariables(
  sinks: TargetSinks,
  apiStacks: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): void {
  const lines = [...new Set(apiStacks.flatMap((s) => unsetVariables(sinks.sinksOf(s), env)))];
  if (lines.length > 0) {
    throw new CliError(
      "usage",
      `notification sinks of this run need variables that are not set:\n${lines.map((l) => `  ${l}`).join("\n")}`,
    );
  }
}

/**
 * How this run delivers: through the proxy of `env` (src/client's dispatcher for origins other than
 * the API, so `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY` apply to sinks as to downloads; a malformed
 * proxy URL is exit 2 here, before the run), within the bound of STACKWRIGHT_NOTIFY_BOUND (`30s`,
 * `1500ms`), else the default.
 */
export function deliveryOptions(env: Readonly<Record<string, string | undefined>>): DeliveryOptions {
  try {
    proxySettings(env);
  } catch (error) {
    if (!(error instanceof InvalidOptionsError)) throw error;
    throw new CliError("usage", error.message.replace(/^\[([A-Za-z_]+)\] /, "$1 "), { cause: error });
  }
  const through = {
    makeDispatcher: (connection: NotifyConnection) => environmentDispatcher(env, connection),
  };
  const text = env["STACKWRIGHT_NOTIFY_BOUND"];
  if (text === undefined || text === "") return through;
  const match = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(text.trim());
  const ms = match === null ? NaN : Number(match[1]) * (match[2] === "ms" ? 1 : 1000);
  if (!(ms >= 100 && ms <= 600_000)) {
    throw new CliError(
      "usage",
      `STACKWRIGHT_NOTIFY_BOUND must be a duration from 100ms to 600s, like 30s or 1500ms; got '${text}'`,
    );
  }
  return { ...through, boundMs: ms, attemptTimeoutMs: Math.min(10_000, ms) };
}

/**
 * Before an `up` of a target: its sinks, checked (a fault in Pulumi.<target>.yaml's sinks, an
 * unset variable a selected stack's sink needs, a bad STACKWRIGHT_NOTIFY_BOUND: exit 2).
 */
export async function prepareNotify(
  projectDir: string,
  target: string,
  apiStacks: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  /** The desired state the plan loaded (the selected stacks' files at least); else all is read. */
  state?: DesiredState,
): Promise<{ sinks: TargetSinks; options: DeliveryOptions }> {
  const options = deliveryOptions(env);
  const sinks = await loadTargetSinks(projectDir, target, state);
  requireSinkVariables(sinks, apiStacks, env);
  return { sinks, options };
}

/**
 * For `stackwright drift`: sends `drift.detected` for its new entries and `drift.resolved` for its
 * resolved ones (never for those still drifted) to the sinks of their stacks, prints how it went
 * and returns the summary's section. Call {@link prepareNotify} before the drift run (it checks the
 * sinks' variables), and this once its report is known.
 */
export async function notifyDrift(
  prepared: { sinks: TargetSinks; options: DeliveryOptions },
  changes: DriftChanges,
  env: Readonly<Record<string, string | undefined>>,
  say: (line: string) => void,
): Promise<{ results: DeliveryResult[]; markdown: string }> {
  const events = driftEvents(changes, eventContext(prepared.sinks.target, env));
  const results = await sendEvents(events, (s) => prepared.sinks.sinksOf(s), env, prepared.options);
  for (const line of deliveryLines(results)) say(line);
  return { results, markdown: deliveryMarkdown(results) };
}
