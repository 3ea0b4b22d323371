/**
 * `stackwright notify test [--sink NAME]`: sends one sample of each event a sink subscribes to
 * (`test: true` in the payload), to every sink of the target and of the stack files, or to the
 * named one, so an operator can check a channel. Exit 0 when every sample was delivered, 1 when
 * one was not (its last line says so), 2 for a sink whose variable is unset or a name no file
 * declares.
 */
import * as path from "node:path";
import { loadDesiredState, ConfigValidationError } from "../../config";
import { deliveryLines, eventContext, sampleEvents, sendEvents, type PlacedSink } from "../../notify";
import { flag } from "../kit/args";
import { defineCommand, groupCommand } from "../kit/command";
import { CliError, EXIT_CODES, UsageError } from "../kit/exit-codes";
import { deliveryOptions, loadTargetSinks, requireSinkVariables } from "../../project/notify-sinks";
import { targetFlags } from "../kit/flag-sets";

const TEST = "notify test";

const testCommand = defineCommand({
  name: TEST,
  summary:
    "Sends one sample of each event each notification sink subscribes to (the target's sinks in Pulumi.<target>.yaml " +
    "and those of every stack file), or only to the sink --sink names. The sinks' variables must be set.",
  flags: {
    sink: flag.string("NAME: only the sink of this name"),
    ...targetFlags,
  },
  async run({ flags }, { io, env }) {
    const projectDir = flags.project;
    const target = flags.target;
    const loaded = await loadDesiredState(path.join(projectDir, "stacks-config"));
    if (!loaded.ok) throw new ConfigValidationError(loaded.errors);
    const sinks = await loadTargetSinks(projectDir, target, loaded.state);
    // Each sink once: by name, with the first stack that uses it (its samples are about that stack).
    const chosen = new Map<string, { stack: string; environment: string; placed: PlacedSink }>();
    for (const stack of loaded.state.stacks) {
      for (const placed of sinks.sinksOf(stack.stack)) {
        if (chosen.has(placed.sink.name)) continue;
        const environment = placed.sink.environments?.[0] ?? Object.keys(stack.environments)[0] ?? "example";
        chosen.set(placed.sink.name, { stack: stack.stack, environment, placed });
      }
    }
    if (flags.sink !== undefined && !chosen.has(flags.sink)) {
      const known = [...chosen.keys()];
      throw new UsageError(
        `stackwright ${TEST}: no sink is named '${flags.sink}'; ${known.length === 0 ? "no sink is declared" : `declared: ${known.join(", ")}`}`,
      );
    }
    const picked = [...chosen.values()].filter(
      (c) => flags.sink === undefined || c.placed.sink.name === flags.sink,
    );
    if (picked.length === 0) {
      io.say(`no notification sink is declared for target '${target}': nothing to test`);
      return EXIT_CODES.ok;
    }
    const sendEnv = { ...env };
    requireSinkVariables({ target, sinksOf: () => picked.map((c) => c.placed) }, [""], sendEnv);
    const ctx = eventContext(target, sendEnv);
    const results = (
      await Promise.all(
        picked.map(async (c) => {
          const events = sampleEvents(c.placed.sink.events, c.stack, c.environment, ctx);
          return sendEvents(events, () => [c.placed], sendEnv, deliveryOptions(sendEnv));
        }),
      )
    ).flat();
    for (const line of deliveryLines(results, { decideExitCode: true })) io.say(line);
    const failed = results.filter((r) => !r.delivered).length;
    if (failed > 0) {
      throw new CliError(
        "failed",
        `stackwright ${TEST}: ${failed} of ${results.length} sample(s) not delivered; the lines above say why`,
      );
    }
    return EXIT_CODES.ok;
  },
});

/** `stackwright notify SUBCOMMAND ...`: only `test` so far. */
export const notifyCommand = groupCommand(
  "notify",
  { test: testCommand },
  "notify test [--sink NAME] [--target TARGET]",
);
