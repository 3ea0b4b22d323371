/**
 * Markers make creates safe to retry and to adopt after a crash. The caller embeds a unique
 * string (e.g. `sw:7f3a9c1e`) in the deployment title/summary or the snapshot notes; after an
 * ambiguous failure, or on a rerun after a crash, the client lists the objects and adopts the
 * one that carries it instead of creating a second.
 */
import { InvalidArgumentError } from "./errors";

/** Shortest accepted marker: short strings would match unrelated titles. */
export const MIN_MARKER_LENGTH = 8;

/** Throws unless `marker` is long enough and single-line. */
export function checkMarker(marker: string): void {
  if (typeof marker !== "string" || marker.length < MIN_MARKER_LENGTH || /[\r\n]/.test(marker)) {
    throw new InvalidArgumentError(
      `[marker] must be a single-line string of at least ${MIN_MARKER_LENGTH} characters, unique per object`,
      { argument: "marker" },
    );
  }
}

/** Throws unless one of `fields` (e.g. title, summary) contains the marker, or lookup could not find it. */
export function requireMarkerIn(marker: string, fields: Record<string, string | null | undefined>): void {
  checkMarker(marker);
  if (Object.values(fields).some((text) => typeof text === "string" && text.includes(marker))) return;
  throw new InvalidArgumentError(
    `[marker] must appear in ${Object.keys(fields).join(" or ")}, otherwise the object could not be found again`,
    { argument: "marker" },
  );
}

/** True when `text` carries `marker`. */
export function hasMarker(text: string | null | undefined, marker: string): boolean {
  return typeof text === "string" && text.includes(marker);
}
