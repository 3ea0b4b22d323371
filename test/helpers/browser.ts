/**
 * Headless Chromium for the fleet page's tests and screenshot: Debian's `chromium`, installed by
 * scripts/ensure-browser.sh (npm test runs it), driven by the pinned playwright-core. Where it is
 * missing, tests skip with {@link NO_BROWSER}, except under CI=true, where they fail.
 */
import { execFileSync } from "node:child_process";
import { chromium, type Browser } from "playwright-core";

/** The Chromium binary, or undefined when the machine has none. */
export function chromiumPath(): string | undefined {
  for (const candidate of [process.env["STACKWRIGHT_CHROMIUM"], "chromium", "chromium-browser"]) {
    if (candidate === undefined || candidate === "") continue;
    try {
      return (
        execFileSync("sh", ["-c", 'command -v "$0"', candidate], { encoding: "utf8" }).trim() || undefined
      );
    } catch {
      // not this one
    }
  }
  return undefined;
}

export const NO_BROWSER =
  "no Chromium on this machine (scripts/ensure-browser.sh installs Debian's chromium; it could not here): the fleet page's browser tests are skipped";

/** True when the browser tests must run (CI) or can (a Chromium is here). */
export function browserTestsRun(): boolean {
  const found = chromiumPath() !== undefined;
  if (!found && process.env["CI"] === "true") {
    throw new Error("CI=true and no Chromium: run scripts/ensure-browser.sh (npm test does)");
  }
  if (!found) console.warn(NO_BROWSER);
  return found;
}

/** A headless Chromium; the caller closes it. */
export async function launchChromium(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (executablePath === undefined) throw new Error(NO_BROWSER);
  // Root (as CI runs) has no user namespace sandbox; the page is our own file.
  return chromium.launch({ executablePath, headless: true, args: ["--no-sandbox"] });
}
