/**
 * Download progress for people and for logs: a bar redrawn in place on a terminal, plain lines
 * (every 10 %) anywhere else, so a CI log gets ten lines, not ten thousand.
 */
import type { DownloadProgress } from "../../client";

/**
 * `[#########-----------]  45%  1.2 MiB of 2.7 MiB`, one column narrower than a terminal of
 * `width` columns (a line of exactly the width wraps on some terminals).
 */
export function progressBar(p: DownloadProgress, width = 80): string {
  const percent = p.totalBytes === 0 ? 100 : Math.floor((p.receivedBytes / p.totalBytes) * 100);
  const tail = ` ${String(percent).padStart(3)}%  ${bytes(p.receivedBytes)} of ${bytes(p.totalBytes)}`;
  const barWidth = Math.max(10, width - 1 - tail.length - 2);
  const filled = Math.round((barWidth * percent) / 100);
  return `[${"#".repeat(filled)}${"-".repeat(barWidth - filled)}]${tail}`;
}

/** `1.2 MiB`, `512 B`. */
export function bytes(n: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${n} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** Where progress goes: a terminal (redrawn bar) or a plain stream (lines at each 10 %). */
export interface ProgressTarget {
  write(text: string): void;
  isTTY: boolean;
  columns?: number | undefined;
}

/** A progress reporter: `update` on every chunk, `done` once at the end. */
export function progressReporter(
  target: ProgressTarget,
  now: () => number = Date.now,
): { update(p: DownloadProgress): void; done(): void } {
  let lastDraw = -Infinity;
  let lastStep = -1;
  let drawn = false;
  return {
    update(p) {
      if (target.isTTY) {
        // At most ten redraws a second, and always the last one.
        if (now() - lastDraw < 100 && p.receivedBytes < p.totalBytes) return;
        lastDraw = now();
        drawn = true;
        target.write(`\r${progressBar(p, target.columns ?? 80)}`);
        return;
      }
      const step = p.totalBytes === 0 ? 10 : Math.floor((p.receivedBytes / p.totalBytes) * 10);
      if (step === lastStep) return;
      lastStep = step;
      const resumed = p.resumedFromBytes > 0 ? ` (resumed at ${bytes(p.resumedFromBytes)})` : "";
      target.write(
        `downloaded ${step * 10}%: ${bytes(p.receivedBytes)} of ${bytes(p.totalBytes)}${resumed}\n`,
      );
    },
    done() {
      if (target.isTTY && drawn) target.write("\n");
    },
  };
}
