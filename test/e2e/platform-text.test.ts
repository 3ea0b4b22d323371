/**
 * The platform's words are data: a platform whose titles, deployers, branch names, links and log
 * lines hold terminal escapes (clear screen, window title, OSC 8 link, OSC 52 clipboard write),
 * HTML and Markdown, through a proxy that rewrites the emulator's answers, and the real commands:
 * `status` (table and page), `history`, `logs`, `drift`, `preview --summary`, `import`. Nothing
 * reaches the terminal or a written file as a control character, no Markdown of ours renders an
 * element from it, and the page's `javascript:` link does not run in Chromium.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import MarkdownIt from "markdown-it";
import { describe, expect } from "vitest";
import { stringify } from "yaml";
import { browserTestsRun, launchChromium } from "../helpers/browser";
import { demoCredentials } from "../helpers/emulator";
import { fixtures } from "../helpers/fixtures";
import { startRewritingProxy, type RewritingProxy } from "../helpers/rewriting-proxy";
import type { ScratchProject } from "../helpers/scratch-project";
import { runInProject } from "../helpers/in-process";
import { waitFor, type Finished } from "../helpers/stackwright-process";

const STACK = "acme-web";
const HAND_SHA = "2b7e151628aed2a6abf7158809cf4f3c762e7160";
const TITLE =
  "\u001b]0;owned\u0007\u001b[2J<script>alert(1)</script><img src=https://evil.example/t.png> **URGENT** @channel";
const NAME = "Mal\u001b]52;c;cm0gLXJmIC8=\u0007lory <img src=x onerror=alert(1)>";
const EMAIL = "mallory\u001b]8;;https://evil.example/\u001b\\click\u001b]8;;\u001b\\@evil.example";
const BRANCH = "\u001b[31m<script>alert(2)</script>";
const LOG_LINES = ["\u001b[2J\u001b]0;owned\u0007 the log clears your screen", "\u009b31m red <img src=x>"];
const JS_LINK = "javascript:alert(document.domain)//";

/** Every control character but the line feed (and the tab a log line may keep). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what no output may hold
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** The emulator's answer as a hostile platform would give it. */
function hostile(value: unknown, url: string): unknown {
  if (Array.isArray(value)) return value.map((v) => hostile(v, url));
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) out[key] = hostile(v, url);
  const attributes = out["attributes"];
  if (typeof attributes === "object" && attributes !== null) {
    const a = attributes as Record<string, unknown>;
    if (typeof a["title"] === "string") a["title"] = `${a["title"]}${TITLE}`;
    if (typeof a["deployer"] === "object" && a["deployer"] !== null) {
      a["deployer"] = { ...a["deployer"], name: NAME, email: EMAIL };
    }
    if (typeof a["ref_name"] === "string") a["ref_name"] = `${a["ref_name"]}${BRANCH}`;
    const links = out["links"];
    if ("state" in a && typeof links === "object" && links !== null)
      out["links"] = { ...links, self: JS_LINK };
  }
  if (url.includes("/log/") && Array.isArray(out["message"]))
    out["message"] = [...out["message"], ...LOG_LINES];
  return out;
}

const test = fixtures({
  project: {
    stacksConfig: {
      [`${STACK}.yaml`]: stringify({
        stack: STACK,
        environments: { uat: { deployment: { ref_type: "branch", ref: "main" } } },
      }),
    },
  },
}).extend(
  "proxy",
  { scope: "file" },
  async ({ emulatorInProcess }, { onCleanup }): Promise<RewritingProxy> => {
    const proxy = await startRewritingProxy(emulatorInProcess.url);
    onCleanup(() => proxy.close());
    return proxy;
  },
);

describe("the platform's words in every output", () => {
  let proxy: RewritingProxy;
  let project: ScratchProject;
  const file = (name: string) => path.join(project.dir, name);

  /** Runs the command against the proxy, in this process (which serves the proxy too). */
  function run(args: string[]): Promise<Finished> {
    return runInProject(project.dir, args, { ...project.env, ...demoCredentials(proxy.url) });
  }

  test.beforeAll(async ({ emulatorInProcess: emulator, proxy: rewriting, project: scratch, client }) => {
    [proxy, project] = [rewriting, scratch];
    const up = await run(["up", STACK]);
    expect(up.status, up.out).toBe(0);
    // A deployment made by hand after the up (drift), and one that failed (a log worth reading).
    await emulator.hooks.handDeploy(STACK, "uat", HAND_SHA, { ref_type: "branch", ref: "hotfix" });
    await emulator.hooks.nextOutcome(STACK, "uat", "fail", "composer install failed");
    const failing = await client.deployments.create(STACK, "uat", {
      ref_type: "branch",
      ref: "main",
      bypass_and_start: true,
    });
    await waitFor(
      async () => (await client.deployments.get(STACK, "uat", failing.id)).attributes.state === "Failed",
      "the deployment to fail",
    );
    proxy.rewrite = hostile;
  }, 300_000);

  /** The output shows the escapes as text (`^[`) and holds none of them. */
  function shownNotInterpreted(out: string): void {
    expect(out).not.toMatch(CONTROL);
    expect(out).toContain("^[");
  }

  test("shows escape sequences as ^[ in status, history, logs and drift, and interprets none", async () => {
    const status = await run(["status", STACK, "--html", file("fleet.html")]);
    expect(status.status, status.out).toBe(0);
    shownNotInterpreted(status.out);
    const history = await run(["history", STACK, "uat"]);
    expect(history.status, history.out).toBe(0);
    shownNotInterpreted(history.out);
    expect(history.out).toContain("^[]0;owned^G^[[2J");
    const logs = await run(["logs", STACK, "uat"]);
    shownNotInterpreted(logs.out);
    expect(logs.out).toContain("^[[2J^[]0;owned^G the log clears your screen");
    expect(logs.out).toContain("^[[31m red");
    const drift = await run(["drift", STACK, "--summary", file("drift.md")]);
    expect(drift.status, drift.out).toBe(5);
    shownNotInterpreted(drift.out);
  }, 240_000);

  test("writes Markdown summaries in which the platform's words render as text", async () => {
    const preview = await run(["preview", STACK, "--summary", file("preview.md")]);
    const markdown = new MarkdownIt({ html: true, linkify: true });
    for (const summary of ["drift.md", "preview.md"]) {
      const text = fs.readFileSync(file(summary), "utf8");
      const html = markdown.render(text);
      expect(html, summary).not.toMatch(/<script|<img|<a /);
      expect(text).not.toMatch(CONTROL);
    }
    // The platform's words are there, as text.
    expect(markdown.render(fs.readFileSync(file("drift.md"), "utf8"))).toContain("mallory");
    expect(markdown.render(fs.readFileSync(file("preview.md"), "utf8"))).toContain("Deployed by hand");
    // The drift warning, as the engine prints it.
    expect(preview.out).not.toMatch(CONTROL);
  }, 240_000);

  test("prints import's dry run and writes stack files with no control character, which validate", async () => {
    const dry = await run(["import", STACK, "--dry-run"]);
    expect(dry.status, dry.out).toBe(0);
    expect(dry.out).not.toMatch(CONTROL);
    expect(dry.out).toContain("]0;owned");
    const written = await run(["import", STACK, "--force"]);
    expect(written.status, written.out).toBe(0);
    const text = fs.readFileSync(path.join(project.dir, "stacks-config", `${STACK}.yaml`), "utf8");
    expect(text).not.toMatch(CONTROL);
    // The platform's title is in a comment, as one line of text.
    expect(text).toMatch(/^#.*\]0;owned.*<script>alert\(1\)<\/script>/m);
    const validate = await run(["validate"]);
    expect(validate.status, validate.out).toBe(0);
  }, 240_000);

  test.runIf(browserTestsRun())(
    "gives the fleet page no javascript: link, and the page runs no script of the platform in Chromium",
    async () => {
      const browser = await launchChromium();
      try {
        const page = await browser.newPage();
        const dialogs: string[] = [];
        page.on("dialog", (d) => {
          dialogs.push(d.message());
          void d.dismiss();
        });
        await page.goto(pathToFileURL(file("fleet.html")).href, { waitUntil: "load" });
        await page.locator("td button").first().click();
        await page.locator("#details[open]").waitFor();
        // The newest deployment is named, without a link (its link is not http or https).
        expect(await page.locator("#details-body dd").nth(6).textContent()).toContain("#");
        // Clicking the newest deployment, where a link would be, runs nothing.
        const links = page.locator("#details-body a");
        if ((await links.count()) > 0) await links.first().click();
        expect(dialogs).toEqual([]);
        expect(await links.count()).toBe(0);
        // Even a javascript: link put in the page by hand would not run: the CSP allows our script only.
        await page.evaluate(
          `(() => { const a = document.createElement("a"); a.id = "planted"; a.href = ${JSON.stringify(JS_LINK)}; ` +
            `a.textContent = "planted"; document.body.appendChild(a); })()`,
        );
        await page.locator("#details-close").click();
        await page.locator("#planted").click();
        expect(dialogs).toEqual([]);
        const html = fs.readFileSync(file("fleet.html"), "utf8");
        expect(html).not.toMatch(/script-src[^;"]*unsafe-inline/);
      } finally {
        await browser.close();
      }
    },
    120_000,
  );
});
