/**
 * The program's side of `--override-window`: where an environment's change windows are closed
 * and the CLI passed an on-call engineer's reason, the reason goes into the summary of the
 * deployment made there, so the platform's history says who went through a closed window and why.
 */
import {
  type EnvironmentConfig,
  type StackConfig,
  WINDOW_OVERRIDE_VARIABLE,
  formatUtc,
  windowClock,
  windowState,
  windowsOf,
} from "../config";
import { programEnv } from "../../providers";

/** The note for the deployment summary, when windows are closed and an override reason is given. */
export function windowOverrideNote(
  stack: StackConfig,
  config: EnvironmentConfig,
  env: Readonly<Record<string, string | undefined>> = programEnv(),
): string | undefined {
  const reason = env[WINDOW_OVERRIDE_VARIABLE];
  if (reason === undefined || reason.trim() === "") return undefined;
  const now = windowClock(env);
  const state = windowState(windowsOf(stack, config), now);
  if (state.open) return undefined;
  return `Change window overridden at ${formatUtc(now)}: ${reason.trim()} (${state.reason})`;
}

/** The deployment summary with the override note appended (unchanged without a note). */
export function summaryWithOverride(
  summary: string | undefined,
  note: string | undefined,
): string | undefined {
  if (note === undefined) return summary;
  return summary === undefined || summary === "" ? note : `${summary}\n\n${note}`;
}
