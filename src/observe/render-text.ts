/**
 * The fleet as text: a terminal table (one row per environment, counts first) and the drift
 * report as Markdown. Colour is an option of the caller (a TTY without NO_COLOR), never required:
 * every state is also spelled out.
 */
import { markdownCode, markdownText, terminalText } from "../safe-text";
import { FULL_CHECK_REASON } from "./drift";
import {
  SYNC_STATES,
  type DriftReport,
  type EnvironmentStatus,
  type FleetStatus,
  type SyncCounts,
  type SyncState,
} from "./model";

const COLOURS: Readonly<Record<SyncState, string>> = {
  "in sync": "32",
  drifted: "33",
  deploying: "36",
  "awaiting approval": "35",
  failed: "31",
  "verify failed": "31",
  "rolled back": "33;1",
  "not yet deployed": "34",
  "not managed": "2",
  unknown: "31;1",
};

/** `292 in sync · 5 drifted · 1 failed` (states with none left out; `no environment` when empty). */
export function countsLine(counts: SyncCounts): string {
  const parts = SYNC_STATES.filter((s) => counts[s] > 0).map((s) => `${counts[s]} ${s}`);
  return parts.length === 0 ? "no environment" : parts.join(" · ");
}

const ref = (r: { ref_type: string; ref: string } | null) =>
  r === null ? "not managed" : r.ref === "" ? r.ref_type : `${r.ref_type} ${r.ref}`;

function liveText(env: EnvironmentStatus): string {
  if (env.live === null) return "-";
  const d = env.live.deployment;
  return d === null ? env.live.short_sha : `${env.live.short_sha} ${d.deployer?.email ?? ""}`.trimEnd();
}

/** `2026-11-25 09:00`, or `unknown` when the platform gave no date. */
export function whenText(iso: string | null): string {
  return iso === null ? "unknown" : iso.slice(0, 16).replace("T", " ");
}

function lastText(env: EnvironmentStatus): string {
  const d = env.newest;
  return d === null ? "-" : `#${d.id} ${d.state} ${whenText(d.at)}`;
}

function windowText(env: EnvironmentStatus): string {
  if (env.window === null) return "-";
  if (env.window.open) return "open";
  return env.window.next_open === null
    ? "closed"
    : `closed until ${env.window.next_open.slice(0, 16).replace("T", " ")}`;
}

/** The table of `stackwright status`, with the counts line first. */
export function statusTable(status: FleetStatus, options: { colour: boolean }): string {
  const headers = [
    "STACK",
    "ENV",
    "SYNC",
    "DESIRED",
    "LIVE",
    "NEWEST DEPLOYMENT",
    "LOCK",
    "WINDOW",
    "LAST UP",
  ];
  const rows: { cells: string[]; sync: SyncState }[] = [];
  for (const stack of status.stacks) {
    const lastUp =
      stack.last_up === null
        ? "-"
        : `${stack.last_up.at.slice(0, 16).replace("T", " ")} ${stack.last_up.result}`;
    for (const env of stack.environments) {
      rows.push({
        sync: env.sync,
        // Names, refs, deployers and lock messages may come from the platform: each cell is one
        // line with every control character shown (src/safe-text).
        cells: [
          stack.stack,
          env.environment,
          env.sync,
          ref(env.desired),
          liveText(env),
          lastText(env),
          env.lock === null ? "-" : `locked${env.lock.message === "" ? "" : `: ${env.lock.message}`}`,
          windowText(env),
          lastUp,
        ].map(terminalText),
      });
    }
  }
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r.cells[i] ?? "").length)));
  const line = (cells: readonly string[], sync?: SyncState) =>
    cells
      .map((c, i) => {
        const padded = c.padEnd(widths[i] ?? 0);
        return i === 2 && sync !== undefined && options.colour
          ? `\u001b[${COLOURS[sync]}m${padded}\u001b[0m`
          : padded;
      })
      .join("  ")
      .trimEnd();
  const reasons = status.stacks.flatMap((s) =>
    s.environments
      .filter((e) => e.sync !== "in sync" && e.sync !== "not managed" && e.reason !== null)
      .map((e) => terminalText(`  ${s.stack}/${e.environment}: ${e.reason ?? ""}`)),
  );
  return [
    terminalText(`${status.target}: ${countsLine(status.counts)}`),
    "",
    line(headers),
    line(widths.map((w) => "-".repeat(w))),
    ...rows.map((r) => line(r.cells, r.sync)),
    ...(reasons.length === 0 ? [] : ["", "why:", ...reasons]),
  ].join("\n");
}

/** A sha in monospace; one that is not hex (the platform's word) as escaped text, as a cell allows. */
const sha7 = (sha: string | null) =>
  sha === null || sha === ""
    ? "-"
    : /^[0-9a-f]+$/.test(sha)
      ? markdownCode(sha.slice(0, 7))
      : markdownText(sha.slice(0, 7));
/** A value of the Markdown report: platform text (names, refs, deployers, reasons) as text. */
const md = (text: string | null) => (text === null ? "-" : markdownText(text));

/** The drift report as Markdown (`stackwright drift --summary FILE`). */
/**
 * How many stacks the proof settled, and for how many the engine's preview ran; with `reasons`,
 * which and why (the terminal says that one line per stack instead).
 */
export function driftChecksLine(report: DriftReport, reasons = true): string {
  const proved = report.stacks.filter((c) => c.checked_by === "proof").length;
  const engine = report.stacks.filter((c) => c.checked_by === "engine");
  const why = engine.every((c) => c.reason === FULL_CHECK_REASON)
    ? " (--full)"
    : reasons
      ? `: ${engine.map((c) => `${c.stack} (${c.reason ?? ""})`).join(", ")}`
      : "";
  return (
    `${proved} of ${report.stacks.length} stack(s) proved without the engine` +
    (engine.length === 0 ? "" : `; the engine's preview ran for ${engine.length}${why}`)
  );
}

export function driftMarkdown(report: DriftReport): string {
  const heading = {
    clean: "no drift",
    drift: `drift in ${report.counts.new + report.counts.still} environment(s)`,
    error: `${report.counts.errors} check(s) could not be made`,
  }[report.result];
  const lines = [
    `## Stackwright drift: ${md(report.target)}: ${heading}`,
    "",
    `${report.counts.new} new · ${report.counts.still} still · ${report.counts.resolved} resolved · ${report.counts.errors} not checked (${report.generated_at})`,
    "",
    markdownText(driftChecksLine(report)),
  ];
  if (report.drift.length > 0) {
    lines.push(
      "",
      "| | stack/environment | drift | desired | live | since | by |",
      "|---|---|---|---|---|---|---|",
      ...report.drift.map(
        (d) =>
          `| ${d.status} | ${md(`${d.stack}/${d.environment}`)} | ${d.kind} | ${md(d.desired)} | ${sha7(d.live_sha)} | ${md(d.since)} | ${md(d.by)} |`,
      ),
    );
  }
  if (report.errors.length > 0) {
    lines.push(
      "",
      "Not checked:",
      "",
      ...report.errors.map(
        (e) => `- ${md(`${e.stack}${e.environment === null ? "" : `/${e.environment}`}`)}: ${md(e.reason)}`,
      ),
    );
  }
  return `${lines.join("\n")}\n`;
}
