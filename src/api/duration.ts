import { z } from "zod";

/**
 * Wait bounds. In stack files they are durations written as hours, minutes and seconds
 * (`timeout: 30m`) so that nobody has to guess the unit of a bare number; the program passes them
 * on in seconds, and the providers get them in seconds.
 */

/** Shape of a duration: one or more of `<n>h`, `<n>m`, `<n>s`, in that order, e.g. `1h30m`. */
export const DURATION_PATTERN = "^(?=\\d)(\\d+h)?(\\d+m)?(\\d+s)?$";

/** Bounds of a wait timeout, in seconds: below 10s nothing finishes, above a day nothing is waiting. */
export const DURATION_BOUNDS = { minSeconds: 10, maxSeconds: 24 * 60 * 60 } as const;

const durationRegex = new RegExp(DURATION_PATTERN);

/** The result of {@link parseDuration}: seconds, or a message that completes "<path> ...". */
export type DurationResult = { ok: true; seconds: number } | { ok: false; message: string };

/**
 * Bounds of a soak time (`promotion.min_soak`), in seconds: a build may have to run upstream for
 * days before it moves on, but a month is the longest a release train waits.
 */
export const SOAK_BOUNDS = { minSeconds: 60, maxSeconds: 30 * 24 * 60 * 60 } as const;

const BOUNDS_TEXT = new Map<DurationBounds, string>([
  [DURATION_BOUNDS, "between 10s and 24h"],
  [SOAK_BOUNDS, "between 1m and 720h (30 days)"],
]);

type DurationBounds = { readonly minSeconds: number; readonly maxSeconds: number };

/** Parses `30m`, `90s`, `1h30m`, `2h` into seconds and checks `bounds` ({@link DURATION_BOUNDS} by default). */
export function parseDuration(text: string, bounds: DurationBounds = DURATION_BOUNDS): DurationResult {
  const match = durationRegex.exec(text);
  if (match === null) {
    return {
      ok: false,
      message: `must be a duration such as 30m, 90s or 1h30m (hours h, minutes m, seconds s, in that order); got '${text}'`,
    };
  }
  const [, hours, minutes, seconds] = match;
  const total = part(hours) * 3600 + part(minutes) * 60 + part(seconds);
  if (total < bounds.minSeconds || total > bounds.maxSeconds) {
    const within =
      BOUNDS_TEXT.get(bounds) ??
      `between ${formatDuration(bounds.minSeconds)} and ${formatDuration(bounds.maxSeconds)}`;
    return { ok: false, message: `must be ${within}; got '${text}' (${total} seconds)` };
  }
  return { ok: true, seconds: total };
}

/** A duration's seconds as the stack files write them: `300` → `5m`, `3700` → `1h1m40s`. */
export function formatDuration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const text = `${h > 0 ? `${h}h` : ""}${m > 0 ? `${m}m` : ""}${s > 0 ? `${s}s` : ""}`;
  return text === "" ? "0s" : text;
}

function part(text: string | undefined): number {
  return text === undefined ? 0 : Number.parseInt(text.slice(0, -1), 10);
}

/** A duration as written (`30m`), parsed to seconds within {@link DURATION_BOUNDS}. */
export const Duration = z
  .string({ error: "must be a duration such as 30m, 90s or 1h30m (a bare number has no unit)" })
  .meta({ pattern: DURATION_PATTERN })
  .transform((text, ctx) => {
    const parsed = parseDuration(text);
    if (parsed.ok) return parsed.seconds;
    ctx.issues.push({ code: "custom", message: parsed.message, input: text });
    return z.NEVER;
  });

/** A soak time as written (`2h`, `72h`), parsed to seconds within {@link SOAK_BOUNDS}. */
export const SoakDuration = z
  .string({ error: "must be a duration such as 2h, 30m or 72h (a bare number has no unit)" })
  .meta({ pattern: DURATION_PATTERN })
  .transform((text, ctx) => {
    const parsed = parseDuration(text, SOAK_BOUNDS);
    if (parsed.ok) return parsed.seconds;
    ctx.issues.push({ code: "custom", message: parsed.message, input: text });
    return z.NEVER;
  });

/** A duration as written, parsed to seconds within `bounds` (a check's latency, a retry interval). */
export function boundedDuration(bounds: DurationBounds) {
  return z
    .string({ error: "must be a duration such as 2s, 10s or 5m (a bare number has no unit)" })
    .meta({ pattern: DURATION_PATTERN })
    .transform((text, ctx) => {
      const parsed = parseDuration(text, bounds);
      if (parsed.ok) return parsed.seconds;
      ctx.issues.push({ code: "custom", message: parsed.message, input: text });
      return z.NEVER;
    });
}
