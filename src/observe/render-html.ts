/**
 * The fleet page (`stackwright status --html FILE`): one self-contained HTML file, with no request
 * of any kind (a Content-Security-Policy forbids them), that works opened from disk and as a CI
 * artifact. A matrix of sites × environments whose cells carry their state as a symbol and a word
 * as well as a colour; filters by state, environment and name; each cell a button that opens its
 * details in a dialog; per environment a timeline of its last deployments. The table is rendered
 * here, so the page paints before its script runs; the script only filters and opens details.
 */
import { createHash } from "node:crypto";
import { answerText, checkText, type Verification } from "../api";
import { htmlText, httpUrl } from "../safe-text";
import type { EnvironmentStatus, FleetStatus, ObservedDeployment, SyncState } from "./model";
import { SYNC_STATES } from "./model";
import { countsLine, whenText } from "./render-text";

/** Symbol, background and text colour of each state (contrast at least 4.5:1 with the text). */
const LOOK: Readonly<Record<SyncState, { symbol: string; bg: string; fg: string }>> = {
  "in sync": { symbol: "✓", bg: "#d6f5dd", fg: "#0b4d1c" },
  drifted: { symbol: "≠", bg: "#ffe8b3", fg: "#5c3b00" },
  deploying: { symbol: "↻", bg: "#d3ecfa", fg: "#063f5c" },
  "awaiting approval": { symbol: "…", bg: "#eadcfa", fg: "#3d1466" },
  failed: { symbol: "✗", bg: "#fbd3d3", fg: "#6b0f0f" },
  "verify failed": { symbol: "!", bg: "#f9d3e6", fg: "#610b36" },
  "rolled back": { symbol: "↶", bg: "#fde0cc", fg: "#5a2700" },
  "not yet deployed": { symbol: "○", bg: "#e3e7ee", fg: "#243043" },
  "not managed": { symbol: "–", bg: "#f4f4f4", fg: "#3d3d3d" },
  unknown: { symbol: "?", bg: "#ffffff", fg: "#6b0f0f" },
};

const slug = (s: SyncState) => s.replace(/ /g, "-");

/** Platform text in the page (src/safe-text's HTML escape). */
export const escapeHtml = htmlText;

/** JSON inside a <script> element: nothing in it can end the element or open a comment. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026");
}

/** `2026-11-25 09:00 UTC`, or `unknown` when the platform gave no date. */
const when = (iso: string) => `${whenText(iso)} UTC`;
const whenOrUnknown = (iso: string | null) => (iso === null ? "unknown" : when(iso));

function timeline(status: FleetStatus, environments: readonly string[]): string {
  const sections = environments.map((name) => {
    const entries: { stack: string; d: ObservedDeployment }[] = [];
    for (const stack of status.stacks) {
      for (const env of stack.environments) {
        if (env.environment === name) for (const d of env.recent) entries.push({ stack: stack.stack, d });
      }
    }
    // Newest first; those without a date last.
    const key = (d: ObservedDeployment) => d.at ?? "";
    entries.sort((a, b) => (key(a.d) < key(b.d) ? 1 : key(a.d) > key(b.d) ? -1 : 0));
    const items = entries
      .slice(0, 10)
      .map(
        ({ stack, d }) =>
          `<li>${d.at === null ? "date unknown" : `<time datetime="${escapeHtml(d.at)}">${escapeHtml(whenText(d.at))}</time>`} <strong>${escapeHtml(stack)}</strong> ` +
          `${escapeHtml(d.state)} <code>${escapeHtml(d.short_sha)}</code> ${escapeHtml(d.deployer?.email ?? "")}</li>`,
      );
    return (
      `<section class="timeline" aria-labelledby="tl-${escapeHtml(name)}"><h3 id="tl-${escapeHtml(name)}">${escapeHtml(name)}</h3>` +
      (items.length === 0 ? "<p>No deployments.</p>" : `<ol>${items.join("")}</ol>`) +
      "</section>"
    );
  });
  return `<h2>Last deployments per environment</h2><div class="timelines">${sections.join("")}</div>`;
}

function cell(env: EnvironmentStatus): string {
  // Small on purpose (3,000 of them at 1,000 sites): the row and column headers name the cell,
  // its position names its details.
  return (
    `<td data-sync="${slug(env.sync)}"><button type="button" aria-haspopup="dialog">` +
    `<span aria-hidden="true">${LOOK[env.sync].symbol}</span> ${escapeHtml(env.sync)}</button></td>`
  );
}

const refText = (r: { ref_type: string; ref: string } | null) =>
  r === null ? "not managed" : r.ref === "" ? r.ref_type : `${r.ref_type} ${r.ref}`;
const deploymentText = (d: ObservedDeployment | null) =>
  d === null
    ? "-"
    : `#${d.id} ${d.state} ${d.short_sha} ${d.title} (${d.deployer?.email ?? "?"}, ${whenOrUnknown(d.at)})`;

/** The verification's verdict, the check that failed and its answer (each `-` when there is none). */
function verificationDetails(v: Verification | null): [string, string, string] {
  if (v === null) return ["not checked", "-", "-"];
  const attempts = `${v.attempts} ${v.attempts === 1 ? "attempt" : "attempts"}`;
  const to = v.rolled_back_to;
  const verdict =
    v.result === "rolled_back" && to !== null
      ? `${v.sha.slice(0, 7)} failed; rolled back to ${to.sha.slice(0, 7)} (deployment ${to.deployment_id}, ${to.result})`
      : `${v.result} (${v.sha.slice(0, 7)})`;
  return [
    `${verdict} at ${when(v.finished_at)}, after ${attempts}`,
    v.failed_check === null ? "-" : checkText(v.failed_check),
    v.answer === null ? "-" : `${v.answer.url}: ${answerText(v.answer)}`,
  ];
}

/**
 * A cell's details, as the dialog shows them, in the order of the script's LABELS: texts made
 * here, so the page carries each once and short.
 */
function details(
  env: EnvironmentStatus,
  lastUp: FleetStatus["stacks"][number]["last_up"],
): (string | null | string[])[] {
  const live = env.live;
  const link = env.newest?.link ?? null;
  return [
    `${env.stack} / ${env.environment}: ${env.sync}`,
    env.reason ?? "-",
    refText(env.desired),
    env.applied === null ? "-" : `${refText(env.applied)} ${env.applied.sha.slice(0, 7)}`,
    live === null
      ? "-"
      : `${live.short_sha}${live.deployment === null ? "" : ` by ${live.deployment.deployer?.email ?? "?"} at ${whenOrUnknown(live.deployment.at)}`}`,
    env.lock === null ? "none" : `locked: ${env.lock.message === "" ? "(no message)" : env.lock.message}`,
    env.window === null
      ? "none"
      : env.window.open
        ? "open"
        : `closed${env.window.next_open === null ? "" : ` until ${when(env.window.next_open)}`}`,
    deploymentText(env.newest),
    // A link only when the platform's is http(s): a `javascript:` one would run in the page.
    link === null ? null : httpUrl(link),
    lastUp === null ? "-" : `${when(lastUp.at)} ${lastUp.result}`,
    ...verificationDetails(env.verification),
    env.failure_log,
  ];
}

/** The page of `status`. */
export function statusHtml(status: FleetStatus): string {
  const environments = [...new Set(status.stacks.flatMap((s) => s.environments.map((e) => e.environment)))];
  // Row by row, column by column: the script finds a cell's details by its position.
  const data: ((string | null | string[])[] | null)[][] = [];
  const rows = status.stacks.map((stack) => {
    const row: ((string | null | string[])[] | null)[] = [];
    data.push(row);
    const cells = environments.map((name) => {
      const env = stack.environments.find((e) => e.environment === name);
      row.push(env === undefined ? null : details(env, stack.last_up));
      return env === undefined
        ? `<td data-sync="none"><span class="none">not in file</span></td>`
        : cell(env);
    });
    const error = stack.error === null ? "" : ` <span class="error">(${escapeHtml(stack.error)})</span>`;
    return `<tr data-stack="${escapeHtml(stack.stack)}"><th scope="row">${escapeHtml(stack.stack)}${error}</th>${cells.join("")}</tr>`;
  });
  const css = [
    "body{font:14px/1.4 system-ui,sans-serif;margin:1rem 2rem;color:#1a1a1a;background:#fff}",
    "h1{font-size:1.4rem}h2{font-size:1.15rem;margin-top:2rem}h3{font-size:1rem;margin:.2rem 0}",
    ".legend{display:flex;flex-wrap:wrap;gap:.5rem;list-style:none;padding:0}",
    ".legend li{padding:.15rem .5rem;border-radius:3px;border:1px solid #888}",
    ".filters{display:flex;flex-wrap:wrap;gap:1rem;align-items:end;margin:1rem 0}",
    ".filters label{display:flex;flex-direction:column;font-weight:600}",
    "table{border-collapse:collapse}th,td{border:1px solid #bbb;padding:2px 4px;text-align:left}",
    "thead th{position:sticky;top:0;background:#fff}",
    "td button{font:inherit;color:inherit;background:transparent;border:1px solid #555;border-radius:3px;padding:1px 6px;cursor:pointer;min-width:10rem;text-align:left}",
    "td button:focus-visible{outline:3px solid #1a1a1a;outline-offset:1px}",
    "td[data-hidden] button{display:none}",
    ".none{color:#595959}.error{color:#6b0f0f;font-weight:normal}",
    ".timelines{display:flex;flex-wrap:wrap;gap:2rem}.timeline ol{padding-left:1.2rem;margin:0}",
    "dialog{max-width:50rem;width:90%}dialog pre{background:#f4f4f4;padding:.5rem;overflow:auto;max-height:20rem}",
    "dl{display:grid;grid-template-columns:max-content auto;gap:.2rem 1rem}dt{font-weight:600}dd{margin:0}",
    ...SYNC_STATES.map(
      (s) => `.s-${slug(s)},td[data-sync="${slug(s)}"]{background:${LOOK[s].bg};color:${LOOK[s].fg}}`,
    ),
  ].join("\n");
  const legend = SYNC_STATES.map(
    (s) =>
      `<li class="s-${slug(s)}"><span aria-hidden="true">${LOOK[s].symbol}</span> ${escapeHtml(s)}: ${status.counts[s]}</li>`,
  ).join("");
  const script = `
(function () {
  var data = JSON.parse(document.getElementById("fleet-data").textContent);
  var envs = JSON.parse(document.getElementById("fleet-environments").textContent);
  var state = document.getElementById("f-state"), envSel = document.getElementById("f-env"), name = document.getElementById("f-name");
  var shown = document.getElementById("shown"), rows = document.querySelectorAll("tbody tr");
  var heads = document.querySelectorAll("thead th");
  function apply() {
    var s = state.value, e = envSel.value, q = name.value.trim().toLowerCase(), visible = 0;
    for (var c = 0; c < envs.length; c++) heads[c + 1].hidden = e !== "" && envs[c] !== e;
    rows.forEach(function (row) {
      var any = false, tds = row.querySelectorAll("td");
      for (var c = 0; c < tds.length; c++) {
        var td = tds[c];
        td.hidden = e !== "" && envs[c] !== e;
        var match = !td.hidden && (s === "" || td.getAttribute("data-sync") === s);
        if (match) td.removeAttribute("data-hidden"); else td.setAttribute("data-hidden", "");
        if (match && td.firstChild.tagName === "BUTTON") any = true;
      }
      var show = any && (q === "" || row.getAttribute("data-stack").toLowerCase().indexOf(q) >= 0);
      row.hidden = !show;
      if (show) visible++;
    });
    shown.textContent = visible + " of " + rows.length + " sites shown";
  }
  [state, envSel].forEach(function (el) { el.addEventListener("change", apply); });
  name.addEventListener("input", apply);
  var dialog = document.getElementById("details"), body = document.getElementById("details-body");
  var LABELS = [null, "Why", "Desired", "Last up deployed", "Live", "Lock", "Change window", "Newest deployment", null, "Last up", "Verification", "Failed check", "Answer"];
  function text(tag, value) { var el = document.createElement(tag); el.textContent = value; return el; }
  function show(c) {
    document.getElementById("details-title").textContent = c[0];
    body.replaceChildren();
    var dl = document.createElement("dl");
    for (var i = 1; i < LABELS.length; i++) {
      if (LABELS[i] === null) continue;
      dl.appendChild(text("dt", LABELS[i]));
      var dd = document.createElement("dd");
      if (i === 7 && c[8] && /^https?:\\/\\//i.test(c[8])) { var a = text("a", c[7]); a.href = c[8]; dd.appendChild(a); } else dd.textContent = c[i];
      dl.appendChild(dd);
    }
    body.appendChild(dl);
    if (c[13]) { body.appendChild(text("h3", "Log (last lines)")); body.appendChild(text("pre", c[13].join("\\n"))); }
    dialog.showModal();
  }
  document.querySelector("tbody").addEventListener("click", function (ev) {
    var b = ev.target.closest("button");
    if (!b) return;
    var td = b.parentNode, tr = td.parentNode;
    show(data[tr.sectionRowIndex][td.cellIndex - 1]);
  });
  document.getElementById("details-close").addEventListener("click", function () { dialog.close(); });
  document.querySelector("form.filters").addEventListener("submit", function (ev) { ev.preventDefault(); });
  apply();
})();`;
  // Only our one script runs: allowed by its hash, so no inline event handler and no `javascript:`
  // URL can run, whatever a page's text holds.
  const scriptHash = `sha256-${createHash("sha256").update(script, "utf8").digest("base64")}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src '${scriptHash}'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Stackwright fleet: ${escapeHtml(status.target)}</title>
<style>
${css}
</style>
</head>
<body>
<header>
<h1>Stackwright fleet: ${escapeHtml(status.target)}</h1>
<p>${escapeHtml(countsLine(status.counts))}. Observed <time datetime="${escapeHtml(status.generated_at)}">${escapeHtml(when(status.generated_at))}</time>.</p>
</header>
<main>
<h2 id="legend-title">Legend</h2>
<ul class="legend" aria-labelledby="legend-title">${legend}</ul>
<form class="filters" role="search" aria-label="Filter the sites">
<label for="f-state">State<select id="f-state"><option value="">any state</option>${SYNC_STATES.map((s) => `<option value="${slug(s)}">${escapeHtml(s)}</option>`).join("")}</select></label>
<label for="f-env">Environment<select id="f-env"><option value="">every environment</option>${environments.map((e) => `<option value="${escapeHtml(e)}">${escapeHtml(e)}</option>`).join("")}</select></label>
<label for="f-name">Site name<input id="f-name" type="search" autocomplete="off"></label>
<p id="shown" role="status" aria-live="polite"></p>
</form>
<table>
<caption>Sync state per site and environment (select a cell for its details)</caption>
<thead><tr><th scope="col">Site</th>${environments.map((e) => `<th scope="col">${escapeHtml(e)}</th>`).join("")}</tr></thead>
<tbody>
${rows.join("\n")}
</tbody>
</table>
${timeline(status, environments)}
</main>
<dialog id="details" aria-labelledby="details-title">
<h2 id="details-title"></h2>
<div id="details-body"></div>
<button type="button" id="details-close">Close</button>
</dialog>
<script type="application/json" id="fleet-data">${scriptJson(data)}</script>
<script type="application/json" id="fleet-environments">${scriptJson(environments)}</script>
<script>${script}</script>
</body>
</html>
`;
}
