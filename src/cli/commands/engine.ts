/**
 * `stackwright preview|up|refresh|destroy [API_STACK ...]`: each API stack file runs in its own
 * Pulumi stack `<target>.<API stack>`, selected by name, `--changed-since` and `--shard`, K at
 * once, each to its end; the run itself (preflight, fan-out, closing lines, summary,
 * notifications, `--json`) is src/cli/run/fleet-run.ts, its flags run/flags.ts.
 */
import { defineCommand } from "../kit/command";
import type { Operation } from "../fleet/run-stack";
import { fleetFlags } from "../run/flags";
import { runFleetCommand } from "../run/fleet-run";

/** A command that runs `operation` over the selected API stacks. */
function fleetCommand(operation: Operation, summary: string) {
  return defineCommand({
    name: operation,
    args: ["API_STACK..."] as const,
    summary,
    flags: fleetFlags[operation],
    run: (request, context) => runFleetCommand(operation, request, context),
  });
}
export const previewCommand = fleetCommand(
  "preview",
  "Shows what `up` would change in each selected API stack (default: all), without changing anything.",
);

export const upCommand = fleetCommand(
  "up",
  "Makes the platform match stacks-config/ for each selected API stack (default: all).",
);

export const refreshCommand = fleetCommand(
  "refresh",
  "Reads the live state of every resource of each selected API stack into its Pulumi state.",
);

export const destroyCommand = fleetCommand(
  "destroy",
  "Deletes what the named API stacks manage on the platform (retires deployments, removes locks and snapshots it made). Names are required.",
);
