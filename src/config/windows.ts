/**
 * Evaluates `windows:` at a given instant: pure functions of the windows and the clock the caller
 * passes (never the machine's own), so tests pin any instant, daylight-saving days included.
 *
 * A window opens at each time its cron schedule names, read as wall-clock time in its zone
 * (croner: a start in the hour a spring change skips moves to the first minute after the gap; a
 * start in the hour an autumn change repeats happens once, at its first occurrence), and stays
 * open for `duration` of elapsed time. Changes are allowed when no deny window is open and,
 * if there are allow windows, one of them is.
 */
import type { Cron } from "croner";
import { cronOf, type WindowConfig, type WindowKind, type WindowSpec } from "./window-schema";

/** Where the search for the next open instant gives up (a window that opens later is no help). */
export const NEXT_OPEN_HORIZON_DAYS = 400;

/**
 * How many schedule lookups (croner's next or previous run, a tenth to a quarter of a millisecond
 * each: its zone arithmetic goes through Intl) one search for the next open instant may make.
 * A window that keeps itself open is searched through run by run: a deny window every minute for
 * 2 minutes never closes, and walking it to the horizon would take 53 seconds of CPU (one every
 * half hour for 3 hours, 1.7 seconds). Realistic windows find their opening in a few dozen.
 */
export const NEXT_OPEN_LOOKUPS = 1000;

/** When changes may next be made, in the zone of the window that decides it and in UTC. */
export interface NextOpen {
  readonly at: Date;
  readonly zone: string;
  /** e.g. `Tue 2026-11-24 09:00 UTC+00:00 (Europe/London)`. */
  readonly local: string;
  /** e.g. `2026-11-24 09:00 UTC`. */
  readonly utc: string;
}

/** The verdict at one instant. */
export type WindowVerdict =
  | { readonly open: true }
  | {
      readonly open: false;
      /** What keeps it closed: the open deny window, or being outside every allow window. */
      readonly reason: string;
      /**
       * Null when nothing opens within {@link NEXT_OPEN_HORIZON_DAYS} days, or before
       * `stoppedAt` when the search stopped there.
       */
      readonly next: NextOpen | null;
      /**
       * Where the search for `next` stopped when its {@link NEXT_OPEN_LOOKUPS} lookups ran out
       * before the horizon (windows that open and close that often); null when it did not.
       */
      readonly stoppedAt: Date | null;
    };

interface Compiled {
  readonly kind: WindowKind;
  readonly spec: WindowSpec;
  readonly cron: Cron;
}

function compile(windows: readonly WindowConfig[]): Compiled[] {
  return windows.flatMap((window): Compiled[] => {
    const kind: WindowKind = window.allow !== undefined ? "allow" : "deny";
    const spec = window.allow ?? window.deny;
    return spec === undefined ? [] : [{ kind, spec, cron: cronOf(spec.schedule, spec.timezone) }];
  });
}

/** Counts the schedule lookups of one verdict against {@link NEXT_OPEN_LOOKUPS}. */
class Lookups {
  private left = NEXT_OPEN_LOOKUPS;
  get exhausted(): boolean {
    return this.left <= 0;
  }
  /** The latest start of `window` before `before` (exclusive, whole seconds, as croner looks back). */
  previous(window: Compiled, before: number): number | undefined {
    this.left -= 1;
    return window.cron.previousRuns(1, new Date(before))[0]?.getTime();
  }
  /** The next start of `window` after `from`, as croner looks forward (from the next whole second). */
  next(window: Compiled, from: number): number | undefined {
    this.left -= 1;
    return window.cron.nextRun(new Date(from))?.getTime();
  }
}

/** The start of the run of `window` that is open at `t`, if one is (start ≤ t < start + duration). */
function openSince(window: Compiled, t: number, lookups: Lookups): number | undefined {
  // croner looks back from whole seconds, exclusively: one second later includes a start at `t`,
  // and a start in that second but after `t` (a sub-second `t`) sends the look further back.
  let start = lookups.previous(window, t + 1000);
  if (start !== undefined && start > t) start = lookups.previous(window, start);
  return start !== undefined && t < start + window.spec.duration * 1000 ? start : undefined;
}

/** The first start of `window` strictly after `t`, if any. */
function nextStart(window: Compiled, t: number, lookups: Lookups): number | undefined {
  let next = lookups.next(window, t);
  while (next !== undefined && next <= t) next = lookups.next(window, next + 1000);
  return next;
}

function describeWindow(window: Compiled): string {
  const { schedule, timezone, duration } = window.spec;
  return `${window.kind} "${schedule}" ${timezone} for ${durationText(duration)}`;
}

/** 1209600 → `14d`, 25200 → `7h`, 5400 → `1h30m`. */
export function durationText(seconds: number): string {
  const days = Math.floor(seconds / 86400);
  const hours = Math.floor((seconds % 86400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const text = `${days > 0 ? `${days}d` : ""}${hours > 0 ? `${hours}h` : ""}${minutes > 0 ? `${minutes}m` : ""}`;
  return text === "" ? "0m" : text;
}

/** `Tue 2026-11-24 09:00 UTC+00:00` in `zone`. */
export function formatInZone(at: Date, zone: string): string {
  const parts = new Intl.DateTimeFormat("en-GB", {
    timeZone: zone,
    weekday: "short",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    timeZoneName: "longOffset",
  }).formatToParts(at);
  const get = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? "";
  // Offsets rather than abbreviations: `BST` or `AEDT` depend on the reader's locale, `+01:00` does not.
  const offset = get("timeZoneName").replace(/^GMT$/, "GMT+00:00").replace(/^GMT/, "UTC");
  return `${get("weekday")} ${get("year")}-${get("month")}-${get("day")} ${get("hour")}:${get("minute")} ${offset}`;
}

/** `2026-11-24 09:00 UTC`. */
export function formatUtc(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

function nextOpen(at: number, zone: string): NextOpen {
  const date = new Date(at);
  return { at: date, zone, local: `${formatInZone(date, zone)} (${zone})`, utc: formatUtc(date) };
}

/** The verdict of `windows` at `now`. No window at all: always open. */
export function windowVerdict(windows: readonly WindowConfig[], now: Date): WindowVerdict {
  const judged = judge(windows, now);
  if (judged.state.open) return judged.state;
  const { allows, denies, lookups } = judged;
  return { ...judged.state, ...findNextOpen(allows, denies, now.getTime(), lookups) };
}

/**
 * Whether `windows` are open at `now` and, when not, why: the verdict without looking for the
 * next opening, for what needs no more (an override's note).
 */
export function windowState(
  windows: readonly WindowConfig[],
  now: Date,
): { readonly open: true } | { readonly open: false; readonly reason: string } {
  return judge(windows, now).state;
}

function judge(
  windows: readonly WindowConfig[],
  now: Date,
): {
  readonly state: { readonly open: true } | { readonly open: false; readonly reason: string };
  readonly allows: readonly Compiled[];
  readonly denies: readonly Compiled[];
  readonly lookups: Lookups;
} {
  const compiled = compile(windows);
  const allows = compiled.filter((w) => w.kind === "allow");
  const denies = compiled.filter((w) => w.kind === "deny");
  const start = now.getTime();
  const lookups = new Lookups();
  let openDeny: { window: Compiled; since: number } | undefined;
  for (const window of denies) {
    const since = openSince(window, start, lookups);
    if (since !== undefined) {
      openDeny = { window, since };
      break;
    }
  }
  const inAllow = allows.length === 0 || allows.some((w) => openSince(w, start, lookups) !== undefined);
  if (openDeny === undefined && inAllow) return { state: { open: true }, allows, denies, lookups };
  const reason =
    openDeny !== undefined
      ? `inside the window ${describeWindow(openDeny.window)} that opened ${formatInZone(new Date(openDeny.since), openDeny.window.spec.timezone)}`
      : `outside every allow window (${allows.map(describeWindow).join("; ")})`;
  return { state: { open: false, reason }, allows, denies, lookups };
}

/**
 * The first instant after `from` at which no deny window is open and an allow window (if any)
 * is: jump past the deny window that is open, or to the next start of an allow window, until
 * both hold. Every jump moves forward, so the search ends: at the horizon, or sooner when its
 * lookups run out (then `stoppedAt` says how far it got).
 */
function findNextOpen(
  allows: readonly Compiled[],
  denies: readonly Compiled[],
  from: number,
  lookups: Lookups,
): { next: NextOpen | null; stoppedAt: Date | null } {
  const horizon = from + NEXT_OPEN_HORIZON_DAYS * 86400 * 1000;
  const none = { next: null, stoppedAt: null };
  let t = from;
  let zone = (allows[0] ?? denies[0])?.spec.timezone ?? "UTC";
  while (t <= horizon) {
    if (lookups.exhausted) return { next: null, stoppedAt: new Date(t) };
    let denyEnd: { end: number; zone: string } | undefined;
    for (const deny of denies) {
      const since = openSince(deny, t, lookups);
      const end = since === undefined ? undefined : since + deny.spec.duration * 1000;
      if (end !== undefined && (denyEnd === undefined || end > denyEnd.end))
        denyEnd = { end, zone: deny.spec.timezone };
    }
    if (denyEnd !== undefined) {
      t = denyEnd.end;
      zone = denyEnd.zone;
      continue;
    }
    if (allows.length === 0 || allows.some((w) => openSince(w, t, lookups) !== undefined)) {
      return { next: nextOpen(t, zone), stoppedAt: null };
    }
    let soonest: { at: number; zone: string } | undefined;
    for (const allow of allows) {
      const at = nextStart(allow, t, lookups);
      if (at !== undefined && (soonest === undefined || at < soonest.at))
        soonest = { at, zone: allow.spec.timezone };
    }
    if (soonest === undefined) return none;
    t = soonest.at;
    zone = soonest.zone;
  }
  return none;
}

/** The text of a refusal: what is refused, why, and when the next window opens. */
export function refusalText(
  what: string,
  verdict: Extract<WindowVerdict, { open: false }>,
  now: Date,
): string {
  const next =
    verdict.next !== null
      ? `the next window opens ${verdict.next.local}, ${verdict.next.utc}`
      : verdict.stoppedAt === null
        ? `no window opens in the next ${NEXT_OPEN_HORIZON_DAYS} days`
        : `no window opens before ${formatUtc(verdict.stoppedAt)} (they open and close too often to look further)`;
  return `${what} is outside its change windows at ${formatUtc(now)}: ${verdict.reason}; ${next}`;
}

/** The windows that apply to one environment: the stack's and the environment's own. */
export function windowsOf(
  stack: { readonly windows: readonly WindowConfig[] },
  environment: { readonly windows: readonly WindowConfig[] },
): WindowConfig[] {
  return [...stack.windows, ...environment.windows];
}

/**
 * Test hook: `STACKWRIGHT_NOW` (an ISO 8601 instant) replaces the machine's clock for change
 * windows, in the CLI and in the program alike, so tests pin an instant. Unset in real use.
 */
export const WINDOW_CLOCK_VARIABLE = "STACKWRIGHT_NOW";
/** Carries `--override-window`'s reason from the CLI to the program, which records it. */
export const WINDOW_OVERRIDE_VARIABLE = "STACKWRIGHT_WINDOW_OVERRIDE";

/** The instant windows are judged at: {@link WINDOW_CLOCK_VARIABLE} when set, else now. */
export function windowClock(env: Readonly<Record<string, string | undefined>>): Date {
  const pinned = env[WINDOW_CLOCK_VARIABLE];
  if (pinned === undefined || pinned === "") return new Date();
  const at = new Date(pinned);
  if (Number.isNaN(at.getTime())) {
    throw new Error(
      `${WINDOW_CLOCK_VARIABLE} must be an ISO 8601 instant such as 2026-11-24T09:00:00Z, not '${pinned}'`,
    );
  }
  return at;
}
