/**
 * A hostile platform through every renderer: each free-text field the platform gives (titles,
 * deployers, branch names, reasons, lock messages, links, log lines, diagnostics that quote them)
 * is drawn from hostile strings, and each renderer's output is checked for its medium: no control
 * character reaches a terminal text, no element or link of the platform's in the fleet page or a
 * rendered Markdown summary, no link with a scheme other than http(s) and no mention in a chat
 * payload, the webhook's JSON keeps the data. The processes end to end are
 * test/e2e/platform-text.test.ts; this covers many more strings, in process.
 */
import fc from "fast-check";
import MarkdownIt from "markdown-it";
import { describe, expect, it } from "vitest";
import { Deployment, Environment, NotifyEvent } from "../../src/api";
import { HistoryDocument, historyTable } from "../../src/cli/commands/history";
import { linePrinter } from "../../src/cli/commands/logs";
import { renderComment } from "../../src/cli/report/summary";
import { needAttributes } from "../../src/client";
import { validateStackFile } from "../../src/config";
import { importedStackFile, type ImportedStack } from "../../src/importer";
import { eventContext, sampleEvents, sinkRequest } from "../../src/notify";
import {
  driftMarkdown,
  statusHtml,
  statusTable,
  type DriftReport,
  type FleetStatus,
} from "../../src/observe";
import { EVERY_STATE_SITES, demoFleet } from "../helpers/demo-fleet";
import { hostileText, hostileUrl, mrkdwnTexts } from "../helpers/hostile-text";
import { fuzz } from "./harness";

const FILE = "test/fuzz/hostile-platform.test.ts";

/** Every control character but the line feed (a terminal text may have several lines). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what no output may hold
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

/** One platform's free text. */
const Words = fc.record({
  title: hostileText,
  name: hostileText,
  email: hostileText,
  branch: hostileText,
  reason: hostileText,
  lock: hostileText,
  link: hostileUrl,
  log: fc.array(hostileText, { minLength: 1, maxLength: 4 }),
  target: hostileText,
});
type Words = typeof Words extends fc.Arbitrary<infer T> ? T : never;

/** The demo fleet (every sync state) as the hostile platform describes it. */
function hostileFleet(w: Words): FleetStatus {
  const fleet = demoFleet(EVERY_STATE_SITES);
  const deployment = <D extends { title: string; deployer: unknown; link: string | null } | null>(d: D): D =>
    d === null ? d : { ...d, title: w.title, deployer: { name: w.name, email: w.email }, link: w.link };
  return {
    ...fleet,
    target: w.target,
    stacks: fleet.stacks.map((s, i) => ({
      ...s,
      error: i === 0 ? w.reason : s.error,
      environments: s.environments.map((e) => ({
        ...e,
        reason: e.reason === null ? null : w.reason,
        lock: e.lock === null ? null : { ...e.lock, message: w.lock },
        newest: deployment(e.newest),
        recent: e.recent.map(deployment),
        live: e.live === null ? null : { ...e.live, deployment: deployment(e.live.deployment) },
        failure_log: e.failure_log === null ? null : w.log,
      })),
    })),
  };
}

function hostileDrift(w: Words): DriftReport {
  return {
    kind: "stackwright.drift",
    version: 1,
    target: w.target,
    generated_at: "2026-11-26T12:00:00Z",
    result: "drift",
    counts: { new: 1, still: 0, resolved: 0, errors: 1 },
    drift: [
      {
        stack: "acme-web",
        environment: "uat",
        status: "new",
        kind: "hand deployment",
        desired: `branch ${w.branch}`,
        applied_sha: w.title,
        live_sha: w.title,
        since: "2026-11-26T11:00:00Z",
        by: w.email,
        first_reported: null,
      },
    ],
    errors: [{ stack: "acme-web", environment: "prod", reason: w.reason }],
    stacks: [{ stack: "acme-web", checked_by: "engine", reason: w.reason }],
    verifications: [],
  };
}

function hostileHistory(w: Words): HistoryDocument {
  const entry = (id: string) => ({
    id,
    state: "Completed",
    sha: "8f3c2a1d9e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a",
    short_sha: "8f3c2a1",
    title: w.title,
    deployer: { name: w.name, email: w.email },
    requested_at: null,
    started_at: null,
    finished_at: null,
    current_build: id === "2",
    stackwright_marker: null,
    adopted: false,
    // The site's answer, as a failed verification records it, is as hostile as the platform's words.
    verification: { result: "failed", at: "2026-11-25T09:00:00.000Z", text: w.title },
  });
  // Parsed, so the document has whatever members its schema has now (an unknown one is dropped).
  return HistoryDocument.parse({
    version: 1,
    stack: "acme-web",
    environment: "uat",
    total: 3,
    deployments: [entry("2"), entry("1")],
  });
}

function hostileEvent(w: Words): NotifyEvent {
  const [event] = sampleEvents(["deployment.failed"], "acme-web", "prod", eventContext("production", {}));
  if (event === undefined) throw new Error("no sample event");
  return NotifyEvent.parse({
    ...event,
    summary: `${event.summary}: ${w.reason}`,
    links: { deployment: w.link, ci_run: w.link },
    details: { ...event.details, ref: w.branch, message: w.title, log_tail: w.log },
  });
}

const SHA = "8f3c2a1d9e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a";

/** A stack as import reads it: one environment whose live and running deployments the platform describes. */
function hostileStack(w: Words): ImportedStack {
  const deployment = (id: number, state: string) =>
    needAttributes(
      Deployment.parse({
        type: "deployments",
        id: String(id),
        attributes: {
          id: String(id),
          date_created_unix: 1_700_000_000 + id,
          title: w.title,
          summary: w.reason,
          short_sha: SHA.slice(0, 7),
          sha: SHA,
          ref_type: "branch",
          ref_name: w.branch,
          deployer: { id: 1, email: w.email, role: "Stack Manager", name: w.name },
          state,
          is_current_build: state === "Completed",
        },
        links: { self: w.link },
      }),
      ["state"],
      "the fuzz's deployment",
    );
  const environment = needAttributes(
    Environment.parse({
      type: "environments",
      id: "uat",
      attributes: { name: "uat", url: w.link, build_sha: SHA, build_package: null, usage: "UAT" },
      relationships: { stack: { data: { type: "stacks", id: "site", links: { self: "x" } } } },
    }),
    ["name"],
    "the fuzz's environment",
  );
  return {
    stack: {
      type: "stacks",
      id: "site",
      attributes: { name: "site", title: w.title, created: "", created_unix: 0, repository_url: w.link },
      relationships: { environments: { data: [] } },
      links: { self: "x" },
    },
    environments: [{ environment, deployments: [deployment(1, "Completed"), deployment(2, "Deploying")] }],
    snapshots: [],
  };
}

const markdown = new MarkdownIt({ html: true, linkify: true });
/** The elements our Markdown renders into: anything else came from the platform. */
const MARKDOWN_TAGS = new Set([
  "h2",
  "h3",
  "p",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
  "ul",
  "li",
  "code",
  "strong",
  "em",
  "br",
]);
/** The elements of the fleet page as we write it. */
const PAGE_TAGS = new Set(
  "html head meta title style body header h1 h2 h3 p time main ul li span form label select option input table caption thead tr th tbody td button section ol strong code div dialog script".split(
    " ",
  ),
);
const tagsOf = (html: string) =>
  [...html.matchAll(/<\/?([a-zA-Z][a-zA-Z0-9-]*)/g)].map((m) => (m[1] ?? "").toLowerCase());

describe("a hostile platform through every renderer", () => {
  it("leaves no control character, element, foreign link or mention of the platform's in any output", async () => {
    await fuzz(
      "hostile platform",
      Words,
      async (w, counts) => {
        const fleet = hostileFleet(w);
        // Terminal texts: the status table, the history table, log lines.
        expect(statusTable(fleet, { colour: false })).not.toMatch(CONTROL);
        expect(historyTable(hostileHistory(w))).not.toMatch(CONTROL);
        const printed: string[] = [];
        linePrinter((line) => printed.push(line)).print(w.log);
        for (const line of printed) expect(line.replace(/\t/g, " ")).not.toMatch(CONTROL);

        // The fleet page: only our elements; a link only to http(s).
        const page = statusHtml(fleet);
        for (const tag of tagsOf(page)) expect(PAGE_TAGS.has(tag), tag).toBe(true);
        const data =
          /<script type="application\/json" id="fleet-data">(.*?)<\/script>/s.exec(page)?.[1] ?? "null";
        const cells = (JSON.parse(data) as (unknown[] | null)[][]).flat();
        for (const cell of cells) {
          const link = cell?.[8];
          if (link !== null && link !== undefined) expect(String(link)).toMatch(/^https?:\/\//);
        }

        // Markdown: the drift summary and the pull-request comment render our elements only.
        const comment = renderComment({
          preview: {
            steps: [],
            diagnostics: [
              { severity: "warning", message: `Drift on acme-web/uat: ${w.title} by ${w.email}` },
            ],
            changeSummary: {},
          },
          failures: [{ stack: "dev.acme-web", result: "failed", line: w.reason }],
        }).text;
        for (const md of [driftMarkdown(hostileDrift(w)), comment]) {
          expect(md).not.toMatch(CONTROL);
          const html = markdown.render(md);
          for (const tag of tagsOf(html)) expect(MARKDOWN_TAGS.has(tag), `${tag} in ${html}`).toBe(true);
          expect(html).not.toMatch(/@(?!\u2060)/);
        }

        // Chat: Slack links only to http(s) with our label, no mention; Teams buttons only http(s).
        const event = hostileEvent(w);
        const slack = JSON.parse(sinkRequest("slack", event, undefined).body) as unknown;
        for (const text of mrkdwnTexts(slack)) {
          expect(text).not.toMatch(/<[!@#]/);
          for (const [link] of text.matchAll(/<[^>]*>/g)) {
            expect(link).toMatch(/^<https?:\/\/[^|<>\s]+\|(Deployment|CI run)>$/);
          }
        }
        const teams = sinkRequest("teams", event, undefined).body;
        for (const [, url] of teams.matchAll(/"type":"Action\.OpenUrl","title":"[^"]*","url":"([^"]*)"/g)) {
          expect(url).toMatch(/^https?:\/\//);
        }
        expect(teams).not.toMatch(CONTROL);
        // The webhook's JSON is the platform's data, unchanged.
        expect(JSON.parse(sinkRequest("webhook", event, "secret").body)).toEqual(
          JSON.parse(JSON.stringify(event)),
        );
        // The stack file import writes: no control character in it, and it validates.
        const file = importedStackFile(hostileStack(w), { schemaPath: "./schema.json" });
        expect(file.text).not.toMatch(CONTROL);
        expect(validateStackFile("stacks-config/site.yaml", file.text).errors).toEqual([]);
        counts["outputs"] = (counts["outputs"] ?? 0) + 10;
      },
      { bounded: 40, file: FILE },
    );
  }, 120_000);
});
