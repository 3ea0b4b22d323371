import { Cron } from "croner";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import {
  NEXT_OPEN_LOOKUPS,
  type WindowConfig,
  type WindowVerdict,
  formatInZone,
  parseWindowDuration,
  refusalText,
  windowVerdict,
  windowsOf,
} from "../../../src/config";
import { cronOf } from "../../../src/config/window-schema";

/** A window as the schema yields it (`duration` in seconds). */
function allow(schedule: string, duration: string, timezone: string): WindowConfig {
  return { allow: { schedule, duration: seconds(duration), timezone } };
}
function deny(schedule: string, duration: string, timezone: string): WindowConfig {
  return { deny: { schedule, duration: seconds(duration), timezone } };
}
function seconds(text: string): number {
  const parsed = parseWindowDuration(text);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.seconds;
}
const at = (iso: string) => new Date(iso);

function closed(windows: WindowConfig[], now: string) {
  const verdict = windowVerdict(windows, at(now));
  if (verdict.open) throw new Error(`expected the windows to be closed at ${now}`);
  return verdict;
}

/**
 * Transition days of 2026, with a daily 09:00 window and the instant (UTC) it opens that day:
 * the offset on the day itself is the new one, so 09:00 local is a different UTC hour than the
 * day before.
 */
const transitionDays = [
  {
    zone: "Europe/London",
    change: "spring forward",
    day: "2026-03-29",
    opensUtc: "2026-03-29T08:00:00Z",
    label: "Sun 2026-03-29 09:00 UTC+01:00",
  },
  {
    zone: "Europe/London",
    change: "fall back",
    day: "2026-10-25",
    opensUtc: "2026-10-25T09:00:00Z",
    label: "Sun 2026-10-25 09:00 UTC+00:00",
  },
  {
    zone: "America/New_York",
    change: "spring forward",
    day: "2026-03-08",
    opensUtc: "2026-03-08T13:00:00Z",
    label: "Sun 2026-03-08 09:00 UTC-04:00",
  },
  {
    zone: "America/New_York",
    change: "fall back",
    day: "2026-11-01",
    opensUtc: "2026-11-01T14:00:00Z",
    label: "Sun 2026-11-01 09:00 UTC-05:00",
  },
  {
    zone: "Australia/Sydney",
    change: "fall back",
    day: "2026-04-05",
    opensUtc: "2026-04-04T23:00:00Z",
    label: "Sun 2026-04-05 09:00 UTC+10:00",
  },
  {
    zone: "Australia/Sydney",
    change: "spring forward",
    day: "2026-10-04",
    opensUtc: "2026-10-03T22:00:00Z",
    label: "Sun 2026-10-04 09:00 UTC+11:00",
  },
] as const;

describe("change windows on daylight-saving days", () => {
  for (const c of transitionDays) {
    it(`opens a 09:00 window of ${c.zone} at 09:00 local on its ${c.change} day (${c.day})`, () => {
      const windows = [allow("0 9 * * *", "8h", c.zone)];
      const opens = Date.parse(c.opensUtc);
      const before = closed(windows, new Date(opens - 60_000).toISOString());
      expect(before.next?.at.toISOString()).toBe(new Date(opens).toISOString());
      expect(before.next?.local).toBe(`${c.label} (${c.zone})`);
      expect(windowVerdict(windows, new Date(opens)).open).toBe(true);
      expect(windowVerdict(windows, new Date(opens + 8 * 3600_000 - 1)).open).toBe(true);
      expect(windowVerdict(windows, new Date(opens + 8 * 3600_000)).open).toBe(false);
    });
  }

  // Starts in the hour a spring change skips: croner moves them to the first minute after the gap.
  const skipped = [
    {
      zone: "Europe/London",
      schedule: "30 1 * * *",
      opensUtc: "2026-03-29T01:00:00Z",
      local: "Sun 2026-03-29 02:00 UTC+01:00",
    },
    {
      zone: "America/New_York",
      schedule: "30 2 * * *",
      opensUtc: "2026-03-08T07:00:00Z",
      local: "Sun 2026-03-08 03:00 UTC-04:00",
    },
    {
      zone: "Australia/Sydney",
      schedule: "30 2 * * *",
      opensUtc: "2026-10-03T16:00:00Z",
      local: "Sun 2026-10-04 03:00 UTC+11:00",
    },
  ] as const;
  for (const c of skipped) {
    it(`opens a window of ${c.zone} that starts in the skipped hour at the end of the gap`, () => {
      const windows = [allow(c.schedule, "1h", c.zone)];
      const opens = Date.parse(c.opensUtc);
      const before = closed(windows, new Date(opens - 60_000).toISOString());
      expect(before.next?.at.toISOString()).toBe(new Date(opens).toISOString());
      expect(before.next?.local).toBe(`${c.local} (${c.zone})`);
      expect(windowVerdict(windows, new Date(opens + 59 * 60_000)).open).toBe(true);
      expect(windowVerdict(windows, new Date(opens + 60 * 60_000)).open).toBe(false);
    });
  }

  // Starts in the hour an autumn change repeats: the window opens once, at the first occurrence,
  // and lasts its duration in elapsed time (so it ends at the second occurrence of that time).
  const repeated = [
    {
      zone: "Europe/London",
      schedule: "30 1 * * *",
      opensUtc: "2026-10-25T00:30:00Z",
      next: "2026-10-26T01:30:00Z",
    },
    {
      zone: "America/New_York",
      schedule: "30 1 * * *",
      opensUtc: "2026-11-01T05:30:00Z",
      next: "2026-11-02T06:30:00Z",
    },
    {
      zone: "Australia/Sydney",
      schedule: "30 2 * * *",
      opensUtc: "2026-04-04T15:30:00Z",
      next: "2026-04-05T16:30:00Z",
    },
  ] as const;
  for (const c of repeated) {
    it(`opens a window of ${c.zone} that starts in the repeated hour once, for its elapsed duration`, () => {
      const windows = [allow(c.schedule, "1h", c.zone)];
      const opens = Date.parse(c.opensUtc);
      expect(closed(windows, new Date(opens - 1000).toISOString()).next?.at.toISOString()).toBe(
        new Date(opens).toISOString(),
      );
      // One hour later the wall clock shows the same time again: the window is over, not reopened.
      expect(windowVerdict(windows, new Date(opens + 30 * 60_000)).open).toBe(true);
      const after = closed(windows, new Date(opens + 60 * 60_000).toISOString());
      expect(after.next?.at.toISOString()).toBe(new Date(c.next).toISOString());
    });
  }

  it("measures a window's duration in elapsed time across the spring change", () => {
    // Opens 00:00 GMT; eight hours later it is 09:00 BST (UTC+01:00), not 08:00.
    const windows = [allow("0 0 * * *", "8h", "Europe/London")];
    expect(windowVerdict(windows, at("2026-03-29T07:59:00Z")).open).toBe(true);
    expect(windowVerdict(windows, at("2026-03-29T08:00:00Z")).open).toBe(false);
    expect(formatInZone(at("2026-03-29T08:00:00Z"), "Europe/London")).toBe("Sun 2026-03-29 09:00 UTC+01:00");
  });
});

describe("allow and deny windows", () => {
  const workdays = allow("0 9 * * 1-4", "7h", "Europe/London");
  const christmas = deny("0 0 20 12 *", "14d", "Europe/London");

  it("is always open with no window", () => {
    expect(windowVerdict([], at("2026-12-25T12:00:00Z"))).toEqual({ open: true });
  });

  it("refuses outside every allow window and names when the next one opens, in its zone and UTC", () => {
    const verdict = closed([workdays], "2026-11-26T17:30:00Z"); // Thursday after 16:00
    expect(verdict.reason).toContain('outside every allow window (allow "0 9 * * 1-4" Europe/London for 7h)');
    expect(verdict.next?.local).toBe("Mon 2026-11-30 09:00 UTC+00:00 (Europe/London)");
    expect(verdict.next?.utc).toBe("2026-11-30 09:00 UTC");
    expect(refusalText("acme-web/prod", verdict, at("2026-11-26T17:30:00Z"))).toBe(
      'acme-web/prod is outside its change windows at 2026-11-26 17:30 UTC: outside every allow window (allow "0 9 * * 1-4" Europe/London for 7h); the next window opens Mon 2026-11-30 09:00 UTC+00:00 (Europe/London), 2026-11-30 09:00 UTC',
    );
  });

  it("refuses inside a deny window even while an allow window is open, and opens after both", () => {
    const verdict = closed([workdays, christmas], "2026-12-21T10:00:00Z"); // Monday, 10:00
    expect(verdict.reason).toBe(
      'inside the window deny "0 0 20 12 *" Europe/London for 14d that opened Sun 2026-12-20 00:00 UTC+00:00',
    );
    // The freeze ends Sunday 3 January; the first allowed start after it is Monday 09:00.
    expect(verdict.next?.utc).toBe("2027-01-04 09:00 UTC");
  });

  it("opens when a deny window ends if there is no allow window", () => {
    expect(closed([christmas], "2026-12-24T00:00:00Z").next?.utc).toBe("2027-01-03 00:00 UTC");
  });

  it("says when no window opens within the horizon", () => {
    const never = [allow("0 9 1 1 *", "1h", "UTC"), deny("0 0 1 1 *", "366d", "UTC")];
    const verdict = closed(never, "2026-06-01T00:00:00Z");
    expect(verdict.next).toBeNull();
    expect(refusalText("s/e", verdict, at("2026-06-01T00:00:00Z"))).toContain(
      "no window opens in the next 400 days",
    );
  });

  it("stops looking for the next opening when a window never closes, and says where it stopped", () => {
    const always = [deny("* * * * *", "2m", "UTC")];
    const verdict = closed(always, "2026-11-27T18:00:00Z");
    expect(verdict.next).toBeNull();
    expect(verdict.stoppedAt?.toISOString()).toBe("2026-11-29T03:18:00.000Z");
    expect(refusalText("s/e", verdict, at("2026-11-27T18:00:00Z"))).toContain(
      "no window opens before 2026-11-29 03:18 UTC (they open and close too often to look further)",
    );
  });

  it("applies the stack's windows and the environment's own together", () => {
    const windows = windowsOf({ windows: [christmas] }, { windows: [workdays] });
    expect(windows).toEqual([christmas, workdays]);
  });
});

describe("window properties", () => {
  const zones = ["Europe/London", "America/New_York", "Australia/Sydney", "UTC", "Asia/Kolkata"];
  const schedules = ["0 9 * * 1-5", "30 1 * * *", "30 2 * * *", "0 0 * * 0", "*/30 * * * *", "15 3 1 * *"];
  const instant = fc.date({
    min: new Date("2026-01-01T00:00:00Z"),
    max: new Date("2027-12-31T00:00:00Z"),
    noInvalidDate: true,
  });
  const window = fc.record({
    schedule: fc.constantFrom(...schedules),
    timezone: fc.constantFrom(...zones),
    duration: fc.integer({ min: 1, max: 3 * 24 * 60 }).map((minutes) => minutes * 60),
  });

  /** One to three windows, each allow or deny. */
  const windowSet = fc
    .array(fc.tuple(fc.boolean(), window), { minLength: 1, maxLength: 3 })
    .map((entries) =>
      entries.map(([isAllow, spec]): WindowConfig => (isAllow ? { allow: spec } : { deny: spec })),
    );

  it("never refuses a time inside an allow window when no deny window is open", () => {
    fc.assert(
      fc.property(
        window,
        instant,
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (spec, from, fraction) => {
          const windows: WindowConfig[] = [{ allow: spec }];
          // The next start after a random instant (as croner reads the schedule), then a moment inside that run.
          const opened = cronOf(spec.schedule, spec.timezone).nextRun(from);
          if (opened === null) throw new Error(`${spec.schedule} never runs`);
          const inside = new Date(opened.getTime() + Math.floor(fraction * spec.duration) * 1000);
          expect(windowVerdict(windows, inside).open).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });

  /** The verdict of `windows` at `now`, and the schedule lookups it made (croner's own methods). */
  function counted(windows: readonly WindowConfig[], now: Date): { verdict: WindowVerdict; lookups: number } {
    const next = vi.spyOn(Cron.prototype, "nextRun");
    const previous = vi.spyOn(Cron.prototype, "previousRuns");
    try {
      const verdict = windowVerdict(windows, now);
      return { verdict, lookups: next.mock.calls.length + previous.mock.calls.length };
    } finally {
      vi.restoreAllMocks();
    }
  }
  /** The budget, and what the step that spends its last lookup may add: two lookups to tell
   * whether a window is open and one for its next start, per window. */
  const mostLookups = (windows: readonly WindowConfig[]) => NEXT_OPEN_LOOKUPS + 3 * windows.length;

  it("makes a bounded number of schedule lookups, whatever the windows", () => {
    fc.assert(
      fc.property(windowSet, instant, (windows, now) => {
        expect(counted(windows, now).lookups).toBeLessThanOrEqual(mostLookups(windows));
      }),
      { numRuns: 30 },
    );
  });

  it("never opens beside a deny window that never closes, and says so within its lookups", () => {
    // Every minute or every half hour, each run outlasting the gap to the next: always open.
    const neverCloses = fc.record({
      schedule: fc.constantFrom("* * * * *", "*/30 * * * *"),
      timezone: fc.constantFrom(...zones),
      duration: fc.integer({ min: 30, max: 180 }).map((minutes) => minutes * 60),
    });
    fc.assert(
      fc.property(windowSet, neverCloses, instant, (others, spec, now) => {
        const windows: WindowConfig[] = [...others.slice(1), { deny: spec }];
        const { verdict, lookups } = counted(windows, now);
        expect(lookups).toBeLessThanOrEqual(mostLookups(windows));
        if (verdict.open) throw new Error("a deny window that never closes was open");
        // Never opens: said for the whole horizon, or up to where the lookups ran out.
        expect(verdict.next).toBeNull();
        if (verdict.stoppedAt !== null) expect(verdict.stoppedAt.getTime()).toBeGreaterThan(now.getTime());
        expect(refusalText("s/e", verdict, now)).toMatch(
          /; no window opens (in the next 400 days|before \d{4}-\d\d-\d\d \d\d:\d\d UTC \(they open and close too often to look further\))$/,
        );
      }),
      { numRuns: 15 },
    );
  });

  it("names a next opening that is open, after now, with every earlier minute sampled closed", () => {
    fc.assert(
      fc.property(windowSet, instant, (windows, now) => {
        const verdict = windowVerdict(windows, now);
        if (verdict.open || verdict.next === null) return;
        expect(verdict.next.at.getTime()).toBeGreaterThan(now.getTime());
        expect(windowVerdict(windows, verdict.next.at).open).toBe(true);
        const span = verdict.next.at.getTime() - now.getTime();
        for (const fraction of [0.3, 0.7]) {
          const probe = new Date(now.getTime() + Math.floor((span * fraction) / 60_000) * 60_000);
          expect(windowVerdict(windows, probe).open).toBe(false);
        }
      }),
      { numRuns: 30 },
    );
  });
});
