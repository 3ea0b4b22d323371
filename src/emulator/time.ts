/** Clock helpers. Text timestamps are platform local time (Pacific/Auckland) like the real service. */

const formatter = new Intl.DateTimeFormat("en-CA", {
  timeZone: "Pacific/Auckland",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hourCycle: "h23",
});

// Intl formatting is the slowest step of building a document; the same seconds recur (seed
// timestamps, one `now` per second), so results are memoised in a bounded map.
const cache = new Map<number, string>();
const CACHE_LIMIT = 10_000;

/** Unix seconds → `YYYY-MM-DD HH:MM:SS` in Pacific/Auckland. */
export function formatDateTime(unixSeconds: number): string {
  const hit = cache.get(unixSeconds);
  if (hit !== undefined) return hit;
  const text = formatUncached(unixSeconds);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(unixSeconds, text);
  return text;
}

function formatUncached(unixSeconds: number): string {
  const parts: Record<string, string> = {};
  for (const p of formatter.formatToParts(new Date(unixSeconds * 1000))) parts[p.type] = p.value;
  return `${parts["year"]}-${parts["month"]}-${parts["day"]} ${parts["hour"]}:${parts["minute"]}:${parts["second"]}`;
}

export function nowUnix(): number {
  return Math.floor(Date.now() / 1000);
}
