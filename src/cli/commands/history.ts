/**
 * `stackwright history API_STACK ENV [--limit N] [--json]`: the environment's deployments, newest
 * first, with which one is the current build and which ones are Stackwright's: made by it (the
 * marker its Deployment provider writes into the summary, a hash of the file state that made it)
 * or adopted by an `up` (recorded in the target's state, as `promote` reads it, so that the two
 * agree). One list request per page of the platform's answer, at most the client's page bound.
 */
import { z } from "zod";
import {
  isDeploymentFinished,
  newestFirst,
  shaOf,
  shortSha,
  stackwrightMarkerOf,
  currentBuildOf,
  isStackwrightsDeployment,
  type Deployment,
  type RecordedDeployment,
  type StatedDeployment,
} from "../../api";
import { needAttributes } from "../../client";
import { apiClient, nameArgument } from "../gates/api-command";
import { defineCommand } from "../kit/command";
import { EXIT_CODES, UsageError } from "../kit/exit-codes";
import { renderTable, say, warn } from "../kit/output";
import { API_SETTINGS_HELP, apiSettingsOf, targetFlags, targetNameOf } from "../settings/target-settings";

const COMMAND = "history";
const DEFAULT_LIMIT = 20;

/** One deployment as `--json` prints it (field names are stable). */
export const HistoryEntry = z.object({
  id: z.string(),
  state: z.string(),
  sha: z.string(),
  short_sha: z.string(),
  title: z.string(),
  deployer: z.object({ name: z.string(), email: z.string() }).nullable(),
  /** ISO 8601 instants (UTC), null when the platform gives none. */
  requested_at: z.string().nullable(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  current_build: z.boolean(),
  /** Stackwright's marker (`sw-…`), null for a deployment made by hand or elsewhere. */
  stackwright_marker: z.string().nullable(),
  /**
   * True for a deployment without the marker that the target's state records: an `up` adopted it
   * (as the first up after `import` does), so it is Stackwright's, not made by hand.
   */
  adopted: z.boolean(),
});
export type HistoryEntry = z.infer<typeof HistoryEntry>;

/** The whole `--json` document. */
export const HistoryDocument = z.object({
  version: z.literal(1),
  stack: z.string(),
  environment: z.string(),
  /** How many deployments the environment has; `deployments` holds the newest `--limit`. */
  total: z.number().int(),
  deployments: z.array(HistoryEntry),
});
export type HistoryDocument = z.infer<typeof HistoryDocument>;

export const historyCommand = defineCommand({
  name: COMMAND,
  args: ["API_STACK", "ENV"],
  summary:
    "Lists the environment's deployments, newest first: id, state, short sha, title, deployer, when requested, " +
    "started and finished, which is the current build (*), and which are Stackwright's (its marker, or 'adopted' " +
    "for one an up adopted, as --target's state records it; 'by hand' otherwise). --json prints the same as one " +
    "JSON document. " +
    API_SETTINGS_HELP,
  flags: {
    limit: { type: "string", help: `N: show the newest N deployments (default ${DEFAULT_LIMIT})` },
    json: { type: "boolean", help: "print one JSON document instead of a table" },
    ...targetFlags,
  },
  async run({ flags, positional }) {
    const stack = nameArgument(COMMAND, "API_STACK", positional[0]);
    const environment = nameArgument(COMMAND, "ENV", positional[1]);
    const limit = limitOf(flags.limit);
    const target = targetNameOf(flags.target);
    const client = await apiClient(COMMAND, stack, await apiSettingsOf(flags));
    let deployments: Deployment[];
    try {
      deployments = await client.deployments.list(stack, environment);
    } finally {
      await client.close();
    }
    // Which one is the current build is a decision on every deployment's state.
    const stated = deployments.map((d) =>
      needAttributes(
        d,
        ["state"],
        `cannot tell which deployment of ${stack}/${environment} is its current build`,
      ),
    );
    // The state is read (and its reader loaded) only when the platform's record cannot tell: a
    // deployment without our marker.
    let recorded: readonly RecordedDeployment[] = [];
    if (stated.some((d) => stackwrightMarkerOf(d) === undefined)) {
      const { readRecordedDeployments } = await import("../release/recorded-deployments.js");
      const read = await readRecordedDeployments(flags.project, target, stack, environment);
      if (read.unreadable !== undefined)
        warn(`stackwright ${COMMAND}: cannot tell which deployments an up adopted: ${read.unreadable}`);
      recorded = read.deployments;
    }
    const document = historyOf(stack, environment, stated, limit, recorded);
    if (flags.json === true) {
      say(JSON.stringify(document, null, 2));
      return EXIT_CODES.ok;
    }
    if (document.deployments.length === 0) {
      say(`${stack}/${environment} has no deployments`);
      return EXIT_CODES.ok;
    }
    say(historyTable(document));
    return EXIT_CODES.ok;
  },
});

function limitOf(value: string | undefined): number {
  if (value === undefined) return DEFAULT_LIMIT;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 10_000) {
    throw new UsageError(
      `stackwright ${COMMAND}: --limit must be a whole number from 1 to 10000, not '${value}'`,
    );
  }
  return n;
}

function instant(seconds: number | null | undefined): string | null {
  return seconds === null || seconds === undefined || seconds <= 0
    ? null
    : new Date(seconds * 1000).toISOString();
}

/**
 * The history document of an environment's deployments (newest `limit`); `recorded` are the
 * deployments the target's state records (see {@link isStackwrightsDeployment}).
 */
export function historyOf(
  stack: string,
  environment: string,
  deployments: readonly StatedDeployment[],
  limit: number,
  recorded: readonly RecordedDeployment[] = [],
): HistoryDocument {
  const current = currentBuildOf(deployments);
  const entries = newestFirst(deployments)
    .slice(0, limit)
    .map((d): HistoryEntry => {
      const a = d.attributes;
      const deployer = a.deployer;
      const title: string | null | undefined = a.title;
      const requested: number | null | undefined = a.date_requested_unix;
      const created: number | null | undefined = a.date_created_unix;
      const updated: number | null | undefined = a.date_updated_unix;
      const sha = shaOf(d);
      const marker = stackwrightMarkerOf(d) ?? null;
      return {
        id: d.id,
        state: a.state,
        sha,
        short_sha: shortSha(sha),
        title: title ?? "",
        deployer:
          deployer === null || deployer === undefined
            ? null
            : { name: deployer.name ?? "", email: deployer.email ?? "" },
        requested_at: instant(requested ?? created),
        started_at: instant(a.date_started_unix),
        finished_at: isDeploymentFinished(a.state) ? instant(updated) : null,
        current_build: current !== undefined && d.id === current.id,
        stackwright_marker: marker,
        adopted: marker === null && isStackwrightsDeployment(d, recorded),
      };
    });
  return { version: 1, stack, environment, total: deployments.length, deployments: entries };
}

/** `2026-11-25 16:51` (UTC), or `-`. */
function short(at: string | null): string {
  return at === null ? "-" : at.slice(0, 16).replace("T", " ");
}

/** The table of a history document, with a line that says what is left out. */
export function historyTable(document: HistoryDocument): string {
  const rows = document.deployments.map((e) => [
    `${e.current_build ? "*" : " "} ${e.id}`,
    e.state,
    e.short_sha || "-",
    e.title,
    e.deployer?.name || e.deployer?.email || "-",
    short(e.requested_at),
    short(e.started_at),
    short(e.finished_at),
    e.stackwright_marker ?? (e.adopted ? "adopted" : "by hand"),
  ]);
  const table = renderTable(
    ["  ID", "STATE", "SHA", "TITLE", "DEPLOYER", "REQUESTED (UTC)", "STARTED", "FINISHED", "MADE BY"],
    rows,
  );
  const more = document.total - document.deployments.length;
  const notes = [
    `* current build of ${document.stack}/${document.environment}`,
    ...(document.deployments.some((e) => e.adopted)
      ? ["adopted: made outside Stackwright, taken over as it was by an up (the state records it)"]
      : []),
    ...(more > 0 ? [`${more} older deployment(s) not shown (--limit)`] : []),
  ];
  return `${table}\n\n${notes.join("; ")}`;
}
