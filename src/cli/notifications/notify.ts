/**
 * The notifications of a fleet run (src/notify does the work): the events of its stacks'
 * outcomes, sent to the target's sinks (src/project/notify-sinks.ts, checked before any engine
 * started) after its last stack ended, within the delivery bound. Delivery never changes the exit
 * code.
 */
import type { NotifyEvent } from "../../api";
import {
  deliveryLines,
  deliveryMarkdown,
  eventContext,
  sendEvents,
  stackRunEvents,
  type DeliveryOptions,
  type DeliveryResult,
} from "../../notify";
import type { TargetSinks } from "../../project/notify-sinks";
import type { StackOutcome } from "../fleet/run-stack";
import type { WindowGate } from "../gates/windows";

/** The events of a fleet run's outcomes. */
export function eventsOfOutcomes(
  target: string,
  outcomes: readonly StackOutcome[],
  windows: WindowGate | undefined,
  env: Readonly<Record<string, string | undefined>>,
): NotifyEvent[] {
  const ctx = eventContext(target, env);
  return outcomes.flatMap((o) => {
    const closed = windows?.closed.get(o.job.apiStack) ?? [];
    const override = windows?.override;
    return stackRunEvents(
      {
        apiStack: o.job.apiStack,
        pulumiStack: o.job.stackName,
        exitCode: o.exitCode,
        ...(o.failure === undefined ? {} : { failure: o.failure }),
        events: o.events,
        recoveredLocks: o.notices?.recoveredLocks ?? [],
        unknownRestores: (o.notices?.unknownRestores ?? []).map((r) => ({
          name: r.name.split("/").pop() ?? r.name,
          why: r.why,
        })),
        ...(override !== undefined && closed.length > 0 && o.exitCode === 0
          ? { override: { reason: override, environments: closed.map((c) => c.environment) } }
          : {}),
      },
      ctx,
    );
  });
}

/** Sends the run's events, prints how it went and returns the summary's section. */
export async function notifyOutcomes(
  sinks: TargetSinks,
  outcomes: readonly StackOutcome[],
  windows: WindowGate | undefined,
  env: Readonly<Record<string, string | undefined>>,
  options: DeliveryOptions,
  say: (line: string) => void,
): Promise<{ results: DeliveryResult[]; markdown: string }> {
  const events = eventsOfOutcomes(sinks.target, outcomes, windows, env);
  const results = await sendEvents(events, (s) => sinks.sinksOf(s), env, options);
  for (const line of deliveryLines(results)) say(line);
  return { results, markdown: deliveryMarkdown(results) };
}
