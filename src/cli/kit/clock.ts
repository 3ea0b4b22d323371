/**
 * The clock of a run: change windows are judged at it, and `status` and `drift` stamp their
 * reports with it. One reading per run, with a test hook.
 */
import { windowClock } from "../../config";
import { CliError } from "./exit-codes";

/** The instant of the run (the `STACKWRIGHT_NOW` test hook, else now). */
export function clockNow(env: NodeJS.ProcessEnv): Date {
  try {
    return windowClock(env);
  } catch (error) {
    throw new CliError("usage", error instanceof Error ? error.message : String(error));
  }
}
