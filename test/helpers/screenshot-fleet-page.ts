/**
 * Writes the README's picture of the fleet page (docs/fleet-page.png): the page of a generated
 * fleet in every sync state (demo-fleet.ts), in the headless Chromium the browser tests use,
 * with one cell's details open. Run by scripts/screenshot-fleet-page.sh.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { statusHtml } from "../../src/observe";
import { launchChromium } from "./browser";
import { demoFleet } from "./demo-fleet";

async function main(out: string): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-shot-"));
  const file = path.join(dir, "fleet.html");
  fs.writeFileSync(file, statusHtml(demoFleet(17)));
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    await page.goto(pathToFileURL(file).href);
    await page.locator('td[data-sync="drifted"] button').first().click();
    await page.screenshot({ path: out });
  } finally {
    await browser.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main(process.argv[2] ?? "docs/fleet-page.png").then(
  () => console.log(`wrote ${process.argv[2] ?? "docs/fleet-page.png"}`),
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
