/**
 * `drift`'s engine checks: the engine's preview with refresh of the stacks whose proof does not
 * hold (or of every stack with `--full`), through the fan-out. `drift` loads this module only when
 * there is such a stack, so a drift check that needs no engine never loads the engine's SDK.
 */
import * as path from "node:path";
import type { EngineCheck, FleetStatus } from "../../observe";
import type { Env } from "../kit/context";
import { EXIT_CODES } from "../kit/exit-codes";
import type { Sink } from "../kit/output";
import { previewFromEvents } from "../engine/preview-events";
import { handleInterrupts } from "../engine/interrupt";
import { defaultConcurrency, fanOut } from "../fleet/fan-out";
import { openTarget } from "../fleet/open-target";
import { plannedChanges } from "../report/summary";

/**
 * The engine's preview with refresh of the `stacks` (API stacks), K at once; what it would change,
 * per environment. Reads only (a preview writes no state, and its program only reads the API).
 * Its progress goes to `sinks` (stderr when stdout carries the JSON report); `budgetEnv` gives
 * the engines' clients the run's API budget.
 */
export async function engineChecks(
  status: FleetStatus,
  stacks: ReadonlySet<string>,
  projectDir: string,
  target: string,
  sinks: { readonly stdout: Sink; readonly stderr: Sink },
  budgetEnv: Record<string, string>,
  env: Env,
): Promise<Map<string, EngineCheck>> {
  const checked = status.stacks.filter((s) => stacks.has(s.stack));
  if (checked.length === 0) return new Map();
  const opened = await openTarget(projectDir, target, budgetEnv, env);
  const interrupts = handleInterrupts({ log: (line) => sinks.stderr.write(`${line}\n`) });
  try {
    const outcomes = await fanOut(
      checked.map((s) => ({
        apiStack: s.stack,
        stackName: s.pulumi_stack,
        destroy: false,
        file: path.join(projectDir, s.file),
      })),
      defaultConcurrency(),
      {
        target: opened,
        operation: "preview",
        refresh: true,
        lockPolicy: { lockWaitMs: 0, staleAfterMs: undefined },
        signal: interrupts.signal,
      },
      sinks,
    );
    return new Map(
      outcomes.map((o): [string, EngineCheck] => [
        o.job.apiStack,
        o.exitCode === EXIT_CODES.ok
          ? { ok: true, planned: plannedChanges(previewFromEvents(o.events)).changes }
          : { ok: false, reason: o.failure ?? `exit ${o.exitCode} (the engine's report above says why)` },
      ]),
    );
  } finally {
    interrupts.dispose();
  }
}
