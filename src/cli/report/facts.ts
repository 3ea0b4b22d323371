/**
 * The facts section of the pull-request summary: what each stack's `facts` output holds (the
 * platform's facts each `outputs:` asks for, read during the run), as a table a reviewer reads
 * next to the planned changes. Configuration values are never part of the facts.
 */
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { z } from "zod";
import { EnvironmentFacts, StackFacts } from "../../config";
import { markdownCode, markdownText, markdownUrl } from "../../safe-text";

/** The program's `facts` output: per stack, its own facts and each environment's. */
const FactsOutput = z.record(
  z.string(),
  StackFacts.extend({ environments: z.record(z.string(), EnvironmentFacts).default({}) }),
);
type FactsOutput = z.infer<typeof FactsOutput>;

/**
 * The `facts` output of the stack, from the engine's events; undefined when absent or unknown.
 * The last outputs event counts: an earlier one may carry the outputs of the previous run.
 */
export function factsFromEvents(events: readonly EngineEvent[]): FactsOutput | undefined {
  for (const event of [...events].reverse()) {
    const meta = event.resOutputsEvent?.metadata;
    if (meta?.type !== "pulumi:pulumi:Stack") continue;
    const parsed = FactsOutput.safeParse(meta.new?.outputs?.["facts"]);
    if (parsed.success) return parsed.data;
  }
  return undefined;
}

/** The facts of every stack of a fleet run, each from its own engine events. */
export function factsOfOutcomes(
  outcomes: readonly { readonly events: readonly EngineEvent[] }[],
): FactsOutput | undefined {
  const merged: FactsOutput = {};
  for (const outcome of outcomes) Object.assign(merged, factsFromEvents(outcome.events));
  return Object.keys(merged).length === 0 ? undefined : merged;
}

/**
 * Every value of the table is the platform's: each part is escaped on its own (src/safe-text), so
 * none can end a cell, open an element or a link, or mention someone.
 */
const text = markdownText;

/** A code span in a table cell: GFM splits cells at a `|` even inside one unless escaped. */
function code(value: string): string {
  return markdownCode(value).replace(/\|/g, "\\|");
}

/** One row per fact: `| where | fact | value |`. */
function environmentRows(where: string, facts: EnvironmentFacts): string[] {
  const rows: [string, string][] = [];
  const d = facts.deployment;
  if (d !== undefined) {
    const by = [
      d.title === null || d.title === "" ? "" : `"${text(d.title)}"`,
      d.deployer === null ? "" : `by ${text(d.deployer)}`,
    ]
      .filter((part) => part !== "")
      .join(" ");
    rows.push([
      "live build",
      `${d.sha === null ? "not given by the platform" : code(d.sha.slice(0, 7))}${d.ref === null ? "" : ` (${text(d.ref)})`}${by === "" ? "" : ` ${by}`}${d.deployed_at === null ? "" : `, ${text(d.deployed_at)}`}`,
    ]);
  }
  if (facts.url !== undefined) rows.push(["url", markdownUrl(facts.url)]);
  if (facts.domains !== undefined) {
    const flags = (x: { primary: boolean; ssl: boolean; www: boolean }) =>
      [x.primary ? "primary" : "", x.ssl ? "ssl" : "no ssl", x.www ? "www" : ""]
        .filter((f) => f !== "")
        .join(", ");
    rows.push(["domains", facts.domains.map((x) => `${text(x.name)} (${flags(x)})`).join("; ") || "none"]);
  }
  if (facts.framework !== undefined) rows.push(["framework", text(facts.framework)]);
  if (facts.modules !== undefined) {
    rows.push([
      "modules",
      Object.entries(facts.modules)
        .map(([name, version]) => `${text(name)} ${text(version)}`)
        .join(", ") || "none",
    ]);
  }
  if (facts.configuration !== undefined) {
    const { names, pending_changes } = facts.configuration;
    rows.push([
      "configuration",
      `${names.map(text).join(", ") || "no variables"}${pending_changes ? " (changes wait for a deployment)" : ""}`,
    ]);
  }
  if (facts.whitelist !== undefined) {
    const w = facts.whitelist;
    rows.push([
      "whitelist",
      `${w.enabled ? "on" : "off"}, ${w.entries} ${w.entries === 1 ? "entry" : "entries"}${w.pending_changes ? " (changes pending)" : ""}`,
    ]);
  }
  return rows.map(([fact, value]) => `| ${text(where)} | ${fact} | ${value} |`);
}

/** The Markdown section; empty when no file asks for a fact. */
export function factsSummary(facts: FactsOutput | undefined): string {
  if (facts === undefined) return "";
  const rows: string[] = [];
  for (const [stack, stackFacts] of Object.entries(facts).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const release = stackFacts.manifest_release;
    if (release !== undefined) {
      rows.push(
        `| ${text(stack)} | manifest release | ${release === null ? "none" : `${code(release.label)}, ${text(release.released)}`} |`,
      );
    }
    for (const [environment, environmentFacts] of Object.entries(stackFacts.environments)) {
      rows.push(...environmentRows(`${stack}/${environment}`, environmentFacts));
    }
  }
  if (rows.length === 0) return "";
  return ["", "### Facts", "", "| where | fact | value |", "|---|---|---|", ...rows, ""].join("\n");
}
