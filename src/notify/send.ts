/**
 * From events to deliveries: which sinks of a stack get an event (its `events:` and
 * `environments:`), their URL and secret from the environment, and a report of how each went for
 * the closing table and the summary. Nothing here prints a URL or a secret.
 */
import { cleartextProblem, type NotifyEvent } from "../api";
import type { SinkConfig } from "../config";
import { deliverAll, type DeliveryJob, type DeliveryOptions, type DeliveryResult } from "./deliver";
import { sinkRequest } from "./formats";

/** A sink and where it is declared (`file:line:col`, for messages). */
export interface PlacedSink {
  readonly sink: SinkConfig;
  /** Where its variables are named: `file:line:col` of `url_env` and of `secret_env`. */
  readonly places: { readonly url_env: string; readonly secret_env?: string };
}

/** A stack's sinks: the target's, each replaced by the file's sink of the same name, then the file's others. */
export function mergeSinks(target: readonly PlacedSink[], file: readonly PlacedSink[]): PlacedSink[] {
  const own = new Set(file.map((s) => s.sink.name));
  return [...target.filter((s) => !own.has(s.sink.name)), ...file];
}

/** True when the sink wants this event (its list, and its environments for events about one). */
export function subscribes(sink: SinkConfig, event: NotifyEvent): boolean {
  if (!sink.events.includes(event.event)) return false;
  if (sink.environments === undefined) return true;
  const environments =
    event.event === "window.overridden"
      ? event.details.environments
      : event.environment === null
        ? []
        : [event.environment];
  return environments.length === 0 || environments.some((e) => sink.environments?.includes(e) === true);
}

/** One line per variable a sink needs that is not set: `file:line:col: url_env: ...`. */
export function unsetVariables(
  sinks: readonly PlacedSink[],
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  const lines: string[] = [];
  for (const { sink, places } of sinks) {
    for (const key of ["url_env", "secret_env"] as const) {
      const variable = sink[key];
      if (variable === undefined || (env[variable] ?? "") !== "") continue;
      lines.push(
        `${places[key] ?? places.url_env}: notify sink '${sink.name}': ${key}: the variable ${variable} is not set; set it (or remove the sink)`,
      );
    }
  }
  return [...new Set(lines)];
}

/**
 * Sends each event to every sink of its stack that subscribes to it; a sink whose variable is
 * unset fails alone (reported, not sent). Resolves within the delivery bound; never throws.
 */
export async function sendEvents(
  events: readonly NotifyEvent[],
  sinksOf: (apiStack: string) => readonly PlacedSink[],
  env: Readonly<Record<string, string | undefined>>,
  options: DeliveryOptions = {},
): Promise<DeliveryResult[]> {
  const jobs: DeliveryJob[] = [];
  const refused: DeliveryResult[] = [];
  for (const event of events) {
    for (const { sink } of sinksOf(event.stack)) {
      if (!subscribes(sink, event)) continue;
      const url = env[sink.url_env] ?? "";
      const secret = sink.secret_env === undefined ? undefined : (env[sink.secret_env] ?? "");
      const unset = url === "" ? sink.url_env : secret === "" ? sink.secret_env : undefined;
      const problem =
        unset !== undefined ? `the variable ${unset} is not set` : sinkUrlProblem(sink.url_env, url);
      if (problem !== undefined) {
        refused.push({
          sink: sink.name,
          kind: sink.kind,
          event: event.event,
          eventId: event.id,
          delivered: false,
          attempts: 0,
          detail: `not sent: ${problem}`,
        });
        continue;
      }
      jobs.push({
        sink: sink.name,
        kind: sink.kind,
        url,
        event: event.event,
        eventId: event.id,
        request: sinkRequest(sink.kind, event, secret),
      });
    }
  }
  return [...refused, ...(await deliverAll(jobs, options))];
}

/**
 * Why a sink's URL may not carry a notification, by the API URL's rule (https, or http on
 * loopback: a notification and its signature must not cross a network in clear text), or
 * undefined. Names the variable, never the URL (a webhook's URL is its secret).
 */
export function sinkUrlProblem(variable: string, url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `the variable ${variable} does not hold an absolute URL`;
  }
  const problem = cleartextProblem(parsed, "the notification", { host: "a host that is not loopback" });
  return problem === undefined ? undefined : `the URL in ${variable} ${problem}`;
}

/** The lines printed after the closing table: a count, then one line per failed delivery. */
export function deliveryLines(
  results: readonly DeliveryResult[],
  options: { readonly decideExitCode?: boolean } = {},
): string[] {
  if (results.length === 0) return [];
  const failed = results.filter((r) => !r.delivered);
  // A run's notifications never change its exit code; those of `notify test` are its result.
  const note = options.decideExitCode === true ? "" : " (the exit code does not depend on them)";
  const lines = [
    `notifications: ${results.length - failed.length} delivered, ${failed.length} failed${note}`,
  ];
  for (const r of failed) lines.push(`  ${r.sink} (${r.kind}) ${r.event}: ${r.detail}`);
  return lines;
}

function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

/** The summary's section: one row per delivery; empty when nothing was to be sent. */
export function deliveryMarkdown(results: readonly DeliveryResult[]): string {
  if (results.length === 0) return "";
  const rows = results.map(
    (r) =>
      `| ${cell(r.sink)} (${r.kind}) | ${r.event} | ${r.delivered ? "delivered" : "failed"} | ${cell(r.detail)} |`,
  );
  return [
    "",
    "### Notifications",
    "",
    "| sink | event | result | detail |",
    "|---|---|---|---|",
    ...rows,
    "",
  ].join("\n");
}
