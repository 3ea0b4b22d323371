import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { statusHtml } from "../../../src/observe";
import { browserTestsRun, launchChromium } from "../../helpers/browser";
import { EVERY_STATE_SITES, demoFleet } from "../../helpers/demo-fleet";

/** axe-core's result, as far as the test reads it. */
interface AxeResults {
  violations: { id: string; impact: string | null; help: string; nodes: unknown[] }[];
}

// The fleet page in a real browser: Debian's chromium, headless, driven by playwright-core.
describe.runIf(browserTestsRun())("the fleet page in Chromium", () => {
  let browser: Browser;
  let dir: string;

  /** Opens the page of `sites` sites; collects console errors and every request besides the page itself. */
  async function open(
    sites: number,
  ): Promise<{ page: Page; errors: string[]; requests: string[]; bytes: number }> {
    const file = path.join(dir, `fleet-${sites}.html`);
    const html = statusHtml(demoFleet(sites));
    fs.writeFileSync(file, html);
    const url = pathToFileURL(file).href;
    const page = await browser.newPage();
    const errors: string[] = [];
    const requests: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(m.text());
    });
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("request", (r) => {
      if (r.url() !== url) requests.push(r.url());
    });
    await page.goto(url, { waitUntil: "load" });
    return { page, errors, requests, bytes: Buffer.byteLength(html) };
  }

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-page-"));
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("loads with no console error and no network request", async () => {
    const { page, errors, requests } = await open(EVERY_STATE_SITES);
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    expect(await page.locator("tbody tr").count()).toBe(EVERY_STATE_SITES);
    await page.close();
  }, 120_000);

  it("shows only drifted cells under the drifted filter", async () => {
    const { page } = await open(EVERY_STATE_SITES);
    await page.selectOption("#f-state", "drifted");
    const visible = page.locator("tbody tr:not([hidden]) td:not([data-hidden]) button");
    const states = await visible.evaluateAll((cells) =>
      cells.map((c) => c.closest("td")?.getAttribute("data-sync")),
    );
    expect(states.length).toBeGreaterThan(0);
    expect(new Set(states)).toEqual(new Set(["drifted"]));
    expect(await page.locator("#shown").textContent()).toBe(`1 of ${EVERY_STATE_SITES} sites shown`);
    await page.selectOption("#f-state", "");
    await page.fill("#f-name", "site-0003");
    expect(await page.locator("tbody tr:not([hidden])").count()).toBe(1);
    await page.close();
  }, 120_000);

  it("opens a cell's details with the keyboard, with its log when it failed, and closes them with Escape", async () => {
    const { page } = await open(EVERY_STATE_SITES);
    const cell = page.locator('td[data-sync="failed"] button').first();
    await cell.focus();
    await page.keyboard.press("Enter");
    const dialog = page.locator("dialog#details");
    await expect.poll(() => dialog.evaluate((d) => d.hasAttribute("open"))).toBe(true);
    expect(await page.locator("#details-title").textContent()).toBe("site-0009 / prod: failed");
    expect(await dialog.textContent()).toContain("composer install failed");
    expect(await dialog.locator("a").getAttribute("href")).toMatch(/^https:\/\/deploy\.example\.com\//);
    await page.keyboard.press("Escape");
    await expect.poll(() => dialog.evaluate((d) => d.hasAttribute("open"))).toBe(false);
    await page.close();
  }, 120_000);

  it("has no serious or critical accessibility violation (axe-core)", async () => {
    const { page } = await open(EVERY_STATE_SITES);
    const axe = fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
    await page.evaluate(axe);
    const check = async () => {
      const results = (await page.evaluate("axe.run(document)")) as AxeResults;
      return results.violations
        .filter((v) => v.impact === "serious" || v.impact === "critical")
        .map((v) => `${v.id} (${v.impact}): ${v.help}, ${v.nodes.length} node(s)`);
    };
    expect(await check()).toEqual([]);
    // The open dialog too.
    await page.locator('td[data-sync="drifted"] button').first().click();
    expect(await check()).toEqual([]);
    await page.close();
  }, 120_000);

  it("shows a failed verification's check and answer in its cell's details, and stays accessible with them open", async () => {
    const { page, errors } = await open(EVERY_STATE_SITES);
    await page.locator('td[data-sync="verify-failed"] button').first().click();
    const dialog = page.locator("dialog#details");
    await expect.poll(() => dialog.evaluate((d) => d.hasAttribute("open"))).toBe(true);
    expect(await page.locator("#details-title").textContent()).toBe("site-0001 / prod: verify failed");
    const facts = await dialog
      .locator("dt")
      .evaluateAll((dts) =>
        Object.fromEntries(dts.map((dt) => [dt.textContent, dt.nextElementSibling?.textContent])),
      );
    expect(facts["Verification"]).toBe("failed (8f3c2a1) at 2026-11-25 08:55 UTC, after 30 attempts");
    expect(facts["Failed check"]).toBe("check 1 (/health): expected status 200");
    expect(facts["Answer"]).toBe(
      'https://site-0001.example.com/health: got 503 "Service Unavailable" in 12 ms',
    );
    const axe = fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
    await page.evaluate(axe);
    const results = (await page.evaluate("axe.run(document)")) as AxeResults;
    expect(
      results.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id),
    ).toEqual([]);
    await page.keyboard.press("Escape");
    await page.locator('td[data-sync="rolled-back"] button').first().click();
    expect(await page.locator("#details-title").textContent()).toBe("site-0002 / prod: rolled back");
    expect(await dialog.textContent()).toContain(
      "8f3c2a1 failed; rolled back to 3c4d5e6 (deployment 1022, passed)",
    );
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it("stays under 2 MB and filters at 1,000 sites", async () => {
    const { page, errors, bytes } = await open(1000);
    expect(bytes).toBeLessThan(2 * 1024 * 1024);
    expect(errors).toEqual([]);
    await page.selectOption("#f-env", "prod");
    await page.selectOption("#f-state", "failed");
    const shown = await page.locator("#shown").textContent();
    expect(shown).toMatch(/^\d+ of 1000 sites shown$/);
    expect(await page.locator("tbody tr:not([hidden])").count()).toBe(Number(shown?.split(" ")[0]));
    await page.close();
  }, 120_000);
});
