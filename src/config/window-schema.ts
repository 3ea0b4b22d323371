/**
 * `windows:` of an environment and of a stack: when changes may be made. Each entry is `allow`
 * or `deny`, opened by a cron `schedule` read in an IANA `timezone` and lasting `duration`.
 * The cron expression is parsed by croner, the zone by the platform's time-zone database (Intl),
 * so `validate` refuses what the run could not evaluate.
 */
import { Cron } from "croner";
import { z } from "zod";
import { onValidValue, strictObject } from "./strict-object";

export const WINDOW_KINDS = ["allow", "deny"] as const;
export type WindowKind = (typeof WINDOW_KINDS)[number];

/** Shape of a window duration: days, hours, minutes in that order, e.g. `14d`, `7h`, `1h30m`. */
export const WINDOW_DURATION_PATTERN = "^(?=\\d)(\\d+d)?(\\d+h)?(\\d+m)?$";
/** A window lasts at least a minute (cron's step) and at most a year. */
export const WINDOW_DURATION_BOUNDS = { minSeconds: 60, maxSeconds: 366 * 86400 } as const;

const durationRegex = new RegExp(WINDOW_DURATION_PATTERN);
const UNIT_SECONDS: Readonly<Record<string, number>> = { d: 86400, h: 3600, m: 60 };

/** `14d` → 1209600 (seconds), or a message that completes "<path> ...". */
export function parseWindowDuration(
  text: string,
): { ok: true; seconds: number } | { ok: false; message: string } {
  const match = durationRegex.exec(text);
  if (match === null) {
    return {
      ok: false,
      message: `must be a duration such as 7h, 14d or 1h30m (days d, hours h, minutes m, in that order); got '${text}'`,
    };
  }
  let seconds = 0;
  for (const [, count, unit] of text.matchAll(/(\d+)([dhm])/g))
    seconds += Number(count) * (UNIT_SECONDS[unit ?? ""] ?? 0);
  if (seconds === 0)
    return { ok: false, message: `must not be zero: a window that lasts no time never opens; got '${text}'` };
  if (seconds < WINDOW_DURATION_BOUNDS.minSeconds || seconds > WINDOW_DURATION_BOUNDS.maxSeconds) {
    return { ok: false, message: `must be between 1m and 366d; got '${text}'` };
  }
  return { ok: true, seconds };
}

/** Options every window's cron is read with: five fields, minutes to weekdays, as crontab(5). */
export function cronOf(schedule: string, timezone: string): Cron {
  return new Cron(schedule, { timezone, paused: true, mode: "5-part" });
}

/** Why `schedule` is not a usable five-field cron expression, or undefined when it is. */
export function scheduleProblem(schedule: string): string | undefined {
  let cron: Cron;
  try {
    // At a fixed offset rather than in the zone "UTC": whether a schedule parses and ever fires
    // does not depend on the zone, and croner's zone arithmetic goes through Intl, whose first use
    // in a process cost about 18 ms of every `validate` (CPU profile) for this check alone.
    cron = new Cron(schedule, { utcOffset: 0, paused: true, mode: "5-part" });
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error))
      .replace(/^CronPattern: /, "")
      .replace(/\.$/, "");
    return `is not a cron expression of five fields (minute hour day-of-month month day-of-week), e.g. "0 9 * * 1-5": ${reason}`;
  }
  // A schedule that matches no date (30 February) would make a window that never opens.
  if (cron.nextRun(new Date(Date.UTC(2000, 0, 1))) === null) {
    return "matches no date, so the window would never open";
  }
  return undefined;
}

let canonicalZones: ReadonlySet<string> | undefined;

/** True when `zone` names a time zone of the IANA database (as Intl knows it). */
export function isTimeZone(zone: string): boolean {
  // The zones Intl lists are known without a formatter: making the first one in a process loads
  // the locale's date data, about 14 ms of every command that reads stack files (a fresh process:
  // 15.7 ms against 1.7 for the list). The list leaves out aliases ("UTC", "Asia/Kolkata"),
  // which the formatter still accepts.
  canonicalZones ??= new Set(Intl.supportedValuesOf("timeZone"));
  if (canonicalZones.has(zone)) return true;
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return zone.trim() !== "";
  } catch {
    return false;
  }
}

const Schedule = z
  .string({ error: 'must be a cron expression in quotes, such as "0 9 * * 1-5"' })
  .check((ctx) => {
    const problem = scheduleProblem(ctx.value);
    if (problem !== undefined) ctx.issues.push({ code: "custom", message: problem, input: ctx.value });
  })
  .meta({
    description:
      'When the window opens: a five-field cron expression (minute hour day-of-month month day-of-week), read in `timezone`, e.g. "0 9 * * 1-4".',
  });

const Duration = z
  .string({ error: "must be a duration such as 7h, 14d or 1h30m (a bare number has no unit)" })
  .meta({ pattern: WINDOW_DURATION_PATTERN })
  .transform((text, ctx) => {
    const parsed = parseWindowDuration(text);
    if (parsed.ok) return parsed.seconds;
    ctx.issues.push({ code: "custom", message: parsed.message, input: text });
    return z.NEVER;
  })
  .meta({
    description:
      "How long the window stays open after each start, e.g. 7h or 14d (1m to 366d; elapsed time). Parsed to seconds.",
  });

const TimeZone = z
  .string({ error: "must be an IANA time zone such as Europe/London" })
  .check((ctx) => {
    if (!isTimeZone(ctx.value)) {
      ctx.issues.push({
        code: "custom",
        message:
          "is not a time zone of the IANA database; write one such as Europe/London, America/New_York or UTC",
        input: ctx.value,
      });
    }
  })
  .meta({ description: "The IANA time zone the schedule is read in, e.g. Europe/London." });

const WindowSpec = strictObject({ schedule: Schedule, duration: Duration, timezone: TimeZone });
/** A window's settings as the evaluator receives them (`duration` in seconds). */
export type WindowSpec = z.output<typeof WindowSpec>;

/** One entry of `windows`: `allow: {...}` or `deny: {...}`. */
export const WindowSchema = strictObject({
  allow: WindowSpec.optional().meta({
    description: "Changes may be made while this window is open (and no deny window is).",
  }),
  deny: WindowSpec.optional().meta({ description: "No change may be made while this window is open." }),
})
  .superRefine((value, ctx) => {
    if ((value.allow === undefined) === (value.deny === undefined)) {
      ctx.addIssue({
        code: "custom",
        message: "must hold exactly one of allow or deny; write one list entry per window",
      });
    }
  }, onValidValue)
  .meta({ description: "A change window: allow or deny, with its schedule, duration and timezone." });
export type WindowConfig = z.output<typeof WindowSchema>;

/** The list under `windows:`. */
export const WindowsSchema = z.array(WindowSchema).default([]).meta({
  description:
    "Change windows. With any allow window, changes need one to be open; a deny window that is open refuses them. Read-only runs are never refused.",
});
