/**
 * The one table from errors to exit codes of the `stackwright` command (documented in the
 * README's "Exit codes"). Every command reports a failure through {@link reportError}, so the
 * same kind of failure always ends the same way, with one line that says what to change and no
 * stack trace.
 */
import { createRequire } from "node:module";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { ConnectionError, tlsProblem } from "../../client";
import { ConfigValidationError } from "../../config";
import { terminalLines } from "../../safe-text";
import { engineDiagnostic } from "./engine-diagnostic";
import { commandLine } from "../../project/invocation";
import { CliError, UsageError, type ExitKind } from "../../project/errors";

export { CliError, UsageError, type ExitKind } from "../../project/errors";

/** Exit status per kind; 0 is success. Fixed: scripts and CI branch on them. */
export const EXIT_CODES = {
  ok: 0,
  /** A change, a read or the engine failed (in at least one stack). */
  failed: 1,
  /** A bad flag or argument, an invalid stacks-config/, missing or wrong settings. */
  usage: 2,
  /** A stack is being updated by another run (its lock is held). */
  locked: 3,
  /** The tool cannot run here: no Pulumi CLI, an unreachable state backend, a broken install. */
  environment: 4,
  /**
   * `stackwright drift` found drift and every check could be made: not a failure, so that a
   * scheduled pipeline tells it apart from 1 (a check could not be made).
   */
  drift: 5,
  /** Stopped by SIGINT or SIGTERM (128 + SIGINT, as shells report it). */
  interrupted: 130,
} as const satisfies Record<ExitKind | "ok" | "drift", number>;

interface Row {
  readonly matches: (err: unknown) => boolean;
  readonly kind: (err: unknown) => ExitKind;
  /** The line the user reads; `events` are the engine's, when the error ended an engine run. */
  readonly message: (err: unknown, command: string, events?: readonly EngineEvent[]) => string;
}

type Automation = typeof import("@pulumi/pulumi/automation");
const load = createRequire(__filename);

/**
 * The engine SDK's module when this process has loaded it, else undefined: an error can be an
 * instance of its classes only once a command loaded them. The table never loads the SDK itself,
 * so that a command without the engine (`status`, `drift`, `validate`) does not pay about a second
 * to load it.
 */
function loadedAutomation(): Automation | undefined {
  const id = load.resolve("@pulumi/pulumi/automation");
  return load.cache[id] === undefined ? undefined : (load(id) as Automation);
}

/** True when `e` is an instance of the engine SDK's error class `name` (false while the SDK is not loaded). */
export function isSdkError<K extends "CommandError" | "ConcurrentUpdateError" | "StackNotFoundError">(
  e: unknown,
  name: K,
): e is InstanceType<Automation[K]> {
  const sdk = e instanceof Error ? loadedAutomation() : undefined;
  return sdk !== undefined && e instanceof sdk[name];
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));
const always = (kind: ExitKind) => () => kind;

/** First match wins: the specific Pulumi errors come before CommandError, their base class. */
const TABLE: readonly Row[] = [
  {
    // A flag or argument mistake names the command it was made in, whoever found it.
    matches: (e) => e instanceof UsageError,
    kind: always("usage"),
    message: (e, command) => {
      const text = messageOf(e);
      return text.startsWith("stackwright ") ? text : `stackwright ${command}: ${text}`;
    },
  },
  {
    matches: (e) => e instanceof CliError,
    kind: (e) => (e instanceof CliError ? e.kind : "failed"),
    message: messageOf,
  },
  { matches: (e) => ConfigValidationError.isInstance(e), kind: always("usage"), message: messageOf },
  {
    // A certificate this machine does not trust is a setting to change (NODE_EXTRA_CA_CERTS), wherever it shows.
    matches: (e) => ConnectionError.isInstance(e) && tlsProblem(e.cause) !== undefined,
    kind: always("usage"),
    message: (e, command) => `stackwright ${command}: ${messageOf(e)}`,
  },
  {
    matches: (e) => isSdkError(e, "ConcurrentUpdateError"),
    kind: always("locked"),
    message: (e, command, events) =>
      `stackwright ${command}: the stack is being updated by another run (${engineDiagnostic(events ?? [], messageOf(e)) ?? "the engine's report above names it"})`,
  },
  {
    matches: (e) => isSdkError(e, "StackNotFoundError"),
    kind: always("usage"),
    message: (e, command, events) =>
      `stackwright ${command}: the stack does not exist (${engineDiagnostic(events ?? [], messageOf(e)) ?? "the engine's report above names it"})`,
  },
  {
    // The engine could not open the target's secrets with the passphrase given: a setting to change.
    // Matched on the engine's own words for it, not on any "incorrect passphrase" a log could hold.
    matches: (e) =>
      isSdkError(e, "CommandError") && /secrets manager: incorrect passphrase$/m.test(e.message),
    kind: always("usage"),
    message: (_e, command) =>
      `stackwright ${command}: the engine cannot open the target's secrets: incorrect passphrase; check PULUMI_CONFIG_PASSPHRASE (or the secrets provider the file names)`,
  },
  {
    matches: (e) => isSdkError(e, "CommandError"),
    kind: always("failed"),
    // The engine's own first error (engine-diagnostic.ts): its events when the run has them,
    // else its error stream, which the CommandError's message carries.
    message: (e, command, events) => {
      const cause = engineDiagnostic(events ?? [], isSdkError(e, "CommandError") ? e.message : "");
      return `stackwright ${command} failed: ${cause ?? "the engine reported an error without a message (its output is above)"}`;
    },
  },
];

/** The kind of any thrown value: a CliError says its own; unknown errors count as failures. */
export function kindOf(err: unknown): ExitKind {
  return TABLE.find((row) => row.matches(err))?.kind(err) ?? "failed";
}

/** The exit code of any thrown value. */
export function exitCodeOf(err: unknown): number {
  return EXIT_CODES[kindOf(err)];
}

/** The one line a user reads for `err`; `events`: the engine's, when it ended an engine run. */
export function describeError(command: string, err: unknown, events?: readonly EngineEvent[]): string {
  const row = TABLE.find((r) => r.matches(err));
  if (row === undefined) return `stackwright ${command} failed: ${messageOf(err)}`;
  return row.message(err, command, events);
}

/**
 * Prints `err` on `io`'s stderr in one line, the way its kind is reported, and returns the exit
 * code. A flag or argument mistake ends with where the flags are listed, on the same line.
 */
export function reportError(
  command: string,
  err: unknown,
  io: { warn(text: string): void } = { warn: (text) => console.error(text) },
  pointToHelp = true,
): number {
  const hint =
    pointToHelp && err instanceof UsageError ? ` (${commandLine(`${command} --help`)} lists its flags)` : "";
  // An error may quote the platform (a title, an error's detail): shown, never interpreted.
  io.warn(terminalLines(`${describeError(command, err)}${hint}`).join("\n"));
  return exitCodeOf(err);
}

/**
 * The exit code of a run over several stacks: 0 when none failed; the failures' common code
 * when they agree (all locked: 3); 1 (failed) when they differ.
 */
export function combinedExitCode(codes: readonly number[]): number {
  const failures = [...new Set(codes.filter((c) => c !== EXIT_CODES.ok))];
  if (failures.length === 0) return EXIT_CODES.ok;
  return failures.length === 1 ? (failures[0] ?? EXIT_CODES.failed) : EXIT_CODES.failed;
}
