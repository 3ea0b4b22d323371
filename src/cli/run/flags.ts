/**
 * The flags of `preview`, `up`, `refresh` and `destroy` (commands/engine.ts declares the
 * commands with them) and the request they make, which a run over the selected stacks
 * (fleet-run.ts) takes.
 */
import { flag, type FlagValues } from "../kit/args";
import { apiConcurrencyFlagOf, DEFAULT_API_CONCURRENCY } from "../kit/api-budget";
import { lockFlags } from "../kit/lock-flags";
import { concurrencyFlag } from "../fleet/fan-out";
import { overrideWindowFlag } from "../gates/windows";
import { selectionFlags as selectingFlags, targetFlags } from "../kit/flag-sets";

const selectionFlags = {
  ...targetFlags,
  ...selectingFlags,
  ...concurrencyFlag,
  "api-concurrency": apiConcurrencyFlagOf(
    `requests in flight to the API at once, in this process and in the shared provider host each (default: ${DEFAULT_API_CONCURRENCY})`,
  ),
  summary: flag.string(
    "FILE: write one Markdown summary of all selected stacks to this file (cut to fit a GitHub comment)",
  ),
  "summary-full": flag.string(
    "FILE: write the summary uncut to this file too (a CI artifact or the job summary)",
  ),
  parallel: flag.int("resource operations at once within a stack (default: the engine's)", {
    min: 1,
    max: 1024,
  }),
  stack: flag.string(
    "run exactly this Pulumi stack, with its own Pulumi.<stack>.yaml (no selection, no fan-out)",
  ),
  json: flag.output(
    "FILE|-: write the run as JSON (version 1, docs/schemas/run-v1.schema.json) to FILE, or - for stdout",
  ),
  "show-outputs": flag.switch("print each stack's outputs at the end"),
  "engine-display": flag.switch(
    "show the engine's own display (every resource, its diagnostics and outputs) instead of Stackwright's",
  ),
};

const deletedFlag = {
  "destroy-deleted": flag.switch(
    "destroy the resources of stacks whose file was deleted (--changed-since); without it they are kept and listed",
  ),
};

const refreshFlag = {
  refresh: flag.switch("read the live state of every resource first"),
};

const windowFlag = {
  "override-window": overrideWindowFlag(
    "REASON: make changes where change windows are closed (on call); recorded in the deployment's summary",
  ),
};

const fullFlag = {
  full: flag.switch(
    "run the engine for every stack, also those confirmed unchanged since their last no-change run",
  ),
};

export const fleetFlags = {
  preview: { ...selectionFlags, ...refreshFlag, ...deletedFlag, ...windowFlag },
  up: { ...selectionFlags, ...refreshFlag, ...deletedFlag, ...lockFlags, ...windowFlag, ...fullFlag },
  refresh: { ...selectionFlags, ...lockFlags },
  destroy: { ...selectionFlags, ...lockFlags, ...windowFlag },
} as const;

/** The flags of any of the four commands: the flags one of them lacks read as not given. */
export type FleetFlags = FlagValues<typeof selectionFlags> &
  Partial<
    FlagValues<
      typeof refreshFlag & typeof deletedFlag & typeof lockFlags & typeof windowFlag & typeof fullFlag
    >
  >;

/** A run's request: its flags, its API stack names, and which flags the user typed. */
export interface FleetRequest {
  readonly flags: FleetFlags;
  readonly positional: readonly string[];
  readonly given: ReadonlySet<string>;
}
