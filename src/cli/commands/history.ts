/**
 * `stackwright history API_STACK ENV [--limit N] [--json]`: the environment's deployments, newest
 * first, with which one is the current build and which ones are Stackwright's: made by it (the
 * marker its Deployment provider writes into the summary, a hash of the file state that made it)
 * or adopted by an `up` (recorded in the target's state, as `promote` reads it, so that the two
 * agree). One list request per page of the platform's answer, at most the client's page bound.
 */
import { z } from "zod";
import { terminalText } from "../../safe-text";
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
  type Verification,
  verificationText,
} from "../../api";
import { needAttributes } from "../../client";
import { apiClient, inEnvironment, nameArgument } from "../gates/api-command";
import { flag } from "../kit/args";
import { defineCommand } from "../kit/command";
import { EXIT_CODES } from "../kit/exit-codes";
import { renderTable } from "../kit/output";
import { apiSettingsOf } from "../../project/target-settings";
import { API_SETTINGS_HELP, targetFlags } from "../kit/flag-sets";

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
  /**
   * What the checks of `verify:` found after this deployment, where Stackwright checked it and
   * the target's state still records it (the last up's deployments); null otherwise.
   */
  verification: z
    .object({
      result: z.enum(["passed", "failed", "rolled_back"]),
      /** When the verdict was reached (ISO 8601, UTC). */
      at: z.string(),
      /** The verdict in one line: the failing check and its answer, or where it rolled back to. */
      text: z.string(),
    })
    .nullable(),
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
    "for one an up adopted, as --target's state records it; 'by hand' otherwise), and what the checks of verify: " +
    "found where Stackwright checked it (as --target's state records it). --json prints the same as one " +
    "JSON document. " +
    API_SETTINGS_HELP,
  flags: {
    limit: flag.int(`N: show the newest N deployments (default ${DEFAULT_LIMIT})`, {
      min: 1,
      max: 10_000,
      default: DEFAULT_LIMIT,
    }),
    json: flag.switch("print one JSON document instead of a table"),
    ...targetFlags,
  },
  async run({ flags, positional }, { io, env }) {
    const stack = nameArgument(COMMAND, "API_STACK", positional[0]);
    const environment = nameArgument(COMMAND, "ENV", positional[1]);
    const client = await apiClient(COMMAND, stack, await apiSettingsOf(flags, env), env);
    let deployments: Deployment[];
    try {
      deployments = await inEnvironment(client, COMMAND, stack, environment, () =>
        client.deployments.list(stack, environment),
      );
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
    // The state says which deployments an up adopted and what the checks found after them. It is
    // needed to tell a deployment without our marker from one made by hand: only then is a state
    // that cannot be read worth a warning.
    const { readRecordedDeployments } = await import("../release/recorded-deployments.js");
    const read = await readRecordedDeployments(flags.project, flags.target, stack, environment, env);
    if (read.unreadable !== undefined && stated.some((d) => stackwrightMarkerOf(d) === undefined))
      io.warn(`stackwright ${COMMAND}: cannot tell which deployments an up adopted: ${read.unreadable}`);
    const document = historyOf(stack, environment, stated, flags.limit, read.deployments, read.verifications);
    if (flags.json) {
      io.say(JSON.stringify(document, null, 2));
      return EXIT_CODES.ok;
    }
    if (document.deployments.length === 0) {
      io.say(`${stack}/${environment} has no deployments`);
      return EXIT_CODES.ok;
    }
    io.say(historyTable(document));
    return EXIT_CODES.ok;
  },
});

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
  verifications: readonly Verification[] = [],
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
        verification: verificationOfDeployment(d.id, verifications),
      };
    });
  return { version: 1, stack, environment, total: deployments.length, deployments: entries };
}

/** What the recorded verifications say of deployment `id`: its own, or the check after a rollback to it. */
function verificationOfDeployment(
  id: string,
  verifications: readonly Verification[],
): HistoryEntry["verification"] {
  const own = verifications.find((v) => v.deployment_id === id);
  if (own !== undefined) return { result: own.result, at: own.finished_at, text: verificationText(own) };
  const restored = verifications.find((v) => v.rolled_back_to?.deployment_id === id);
  const to = restored?.rolled_back_to;
  if (restored === undefined || to === null || to === undefined || to.result === "unverified") return null;
  return {
    result: to.result,
    at: restored.finished_at,
    text: `${to.result} after the rollback from ${shortSha(restored.sha)}, which failed its checks`,
  };
}

const VERIFIED_WORDS = { passed: "passed", failed: "failed", rolled_back: "rolled back" } as const;

/** `2026-11-25 16:51` (UTC), or `-`. */
function short(at: string | null): string {
  return at === null ? "-" : at.slice(0, 16).replace("T", " ");
}

/** The table of a history document, with a line that says what is left out. */
export function historyTable(document: HistoryDocument): string {
  // The column is shown where Stackwright checked a deployment: an environment without
  // `verify:` keeps the table it always had.
  const verified = document.deployments.some((e) => e.verification !== null);
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
    ...(verified ? [e.verification === null ? "-" : VERIFIED_WORDS[e.verification.result]] : []),
  ]);
  const table = renderTable(
    [
      "  ID",
      "STATE",
      "SHA",
      "TITLE",
      "DEPLOYER",
      "REQUESTED (UTC)",
      "STARTED",
      "FINISHED",
      "MADE BY",
      ...(verified ? ["VERIFIED"] : []),
    ],
    rows,
  );
  const checked = document.deployments.filter(
    (e) => e.verification !== null && e.verification.result !== "passed",
  );
  const more = document.total - document.deployments.length;
  const notes = [
    `* current build of ${document.stack}/${document.environment}`,
    ...(document.deployments.some((e) => e.adopted)
      ? ["adopted: made outside Stackwright, taken over as it was by an up (the state records it)"]
      : []),
    ...(more > 0 ? [`${more} older deployment(s) not shown (--limit)`] : []),
  ];
  // The site's answer is text from outside: one line, no control character (renderTable's cells are too).
  const why = checked.map((e) => terminalText(`deployment ${e.id}: ${e.verification?.text ?? ""}`));
  return `${table}\n\n${notes.join("; ")}${why.length === 0 ? "" : `\n${why.join("\n")}`}`;
}
