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

/** Unix seconds → `YYYY-MM-DD HH:MM:SS` in Pacific/Auckland. */
export function formatDateTime(unixSeconds: number): string {
  const parts: Record<string, string> = {};
  for (const p of formatter.formatToParts(new Date(unixSeconds * 1000))) parts[p.type] = p.value;
  return `${parts["year"]}-${parts["month"]}-${parts["day"]} ${parts["hour"]}:${parts["minute"]}:${parts["second"]}`;
}

export function nowUnix(): number {
  return Math.floor(Date.now() / 1000);
}
