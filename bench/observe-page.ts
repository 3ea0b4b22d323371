/**
 * First paint of the fleet page in headless Chromium (Debian's `chromium`, installed by
 * `npm run browser`, driven by playwright-core as the page's tests drive it), beside a floor: a
 * plain HTML file of the same size (paragraphs of text, no CSS, no script) loaded the same way.
 * Each load is a new browser context opening the file:// URL; first paint is the Paint Timing
 * API's `first-contentful-paint`, read in the page.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type Browser } from "playwright-core";

/** How long one load may take to paint before the bench gives up on it. */
const PAINT_BOUND_MS = 60_000;

/** The Chromium binary (STACKWRIGHT_CHROMIUM, else `chromium` on PATH), or undefined. */
export function chromiumPath(): string | undefined {
  for (const candidate of [process.env["STACKWRIGHT_CHROMIUM"], "chromium", "chromium-browser"]) {
    if (candidate === undefined || candidate === "") continue;
    try {
      const found = execFileSync("sh", ["-c", 'command -v "$0"', candidate], { encoding: "utf8" }).trim();
      if (found !== "") return found;
    } catch {
      // not this one
    }
  }
  return undefined;
}

/** A plain HTML page of exactly `bytes` bytes (at least a few hundred): text in paragraphs. */
export function plainPage(bytes: number): string {
  const head =
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>floor</title></head><body>\n';
  const tail = "</body></html>\n";
  const line = `<p>${"plain text of the floor page, the same size as the fleet page ".repeat(2)}</p>\n`;
  let body = "";
  const room = bytes - head.length - tail.length;
  if (room < 0) throw new RangeError(`a plain page needs at least ${head.length + tail.length} bytes`);
  body = line.repeat(Math.floor(room / line.length));
  body += "x".repeat(room - body.length);
  return head + body + tail;
}

/** The page's Paint Timing API, as far as it is read (this project's types have no DOM). */
interface PaintTiming {
  getEntriesByType(type: "paint"): { readonly name: string; readonly startTime: number }[];
}

/** Milliseconds from navigation to first contentful paint of `file`, in a new context. */
async function firstPaint(browser: Browser, file: string): Promise<number> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(pathToFileURL(file).href, { waitUntil: "load", timeout: PAINT_BOUND_MS });
    // Run in the page (a function, not a string: the fleet page's CSP forbids eval).
    const handle = await page.waitForFunction(
      () =>
        (performance as unknown as PaintTiming)
          .getEntriesByType("paint")
          .find((e) => e.name === "first-contentful-paint")?.startTime,
      undefined,
      { timeout: PAINT_BOUND_MS },
    );
    const ms: unknown = await handle.jsonValue();
    if (typeof ms !== "number") throw new Error(`no first-contentful-paint entry for ${file}`);
    return ms;
  } finally {
    await context.close();
  }
}

export interface PaintResult {
  readonly bytes: number;
  /** Each round's first paint of the page and of the floor, alternated. */
  readonly page: readonly number[];
  readonly floor: readonly number[];
}

/**
 * First paint of the HTML file `page` and of a plain page of its size, `rounds` times each,
 * alternated (which goes first changes every round). Undefined, with the reason printed, where no
 * Chromium is installed.
 */
export async function measurePaint(pageFile: string, rounds: number): Promise<PaintResult | undefined> {
  const executablePath = chromiumPath();
  if (executablePath === undefined) {
    console.log(
      "no Chromium on this machine (npm run browser installs Debian's chromium): first paint not measured",
    );
    return undefined;
  }
  const bytes = fs.statSync(pageFile).size;
  const floorFile = path.join(path.dirname(pageFile), "floor.html");
  fs.writeFileSync(floorFile, plainPage(bytes));
  const browser = await chromium.launch({ executablePath, headless: true, args: ["--no-sandbox"] });
  try {
    // One load of each first, not counted (the browser's own start, the disk cache).
    await firstPaint(browser, pageFile);
    await firstPaint(browser, floorFile);
    const page: number[] = [];
    const floor: number[] = [];
    for (let round = 0; round < rounds; round++) {
      if (round % 2 === 0) floor.push(await firstPaint(browser, floorFile));
      page.push(await firstPaint(browser, pageFile));
      if (round % 2 === 1) floor.push(await firstPaint(browser, floorFile));
    }
    return { bytes, page, floor };
  } finally {
    await browser.close();
  }
}
