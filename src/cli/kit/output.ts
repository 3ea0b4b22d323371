/**
 * How the commands' text is shaped: the engine's stream passed through (prefixed by its stack
 * when several run at once) and plain-text tables. Where it goes is the command's `io`
 * (context.ts): nothing here writes to the process's streams.
 */
import { terminalLines, terminalText } from "../../safe-text";

/** Where text goes: one of a command's streams, or a part of one. Tests pass their own. */
export interface Sink {
  write(text: string): void;
}

/**
 * One line of the engine's stream as the terminal gets it: the engine runs without colour, so a
 * control character in it is the platform's (a title or log line a provider quoted), shown, never
 * interpreted; a tab stays.
 */
function shown(line: string): string {
  return terminalLines(line.replace(/\r$/, "")).join("^J");
}

/**
 * A writer that puts `prefix` before every line of a chunked stream, holding a partial line until
 * its end arrives, so that the lines of stacks running at once never interleave mid-line.
 * `flush()` writes what is left.
 */
export function prefixedLines(prefix: string, sink: Sink): { write(chunk: string): void; flush(): void } {
  let pending = "";
  return {
    write(chunk) {
      pending += chunk;
      const lastNewline = pending.lastIndexOf("\n");
      if (lastNewline === -1) return;
      const complete = pending.slice(0, lastNewline).split("\n");
      pending = pending.slice(lastNewline + 1);
      sink.write(complete.map((line) => `${prefix}${shown(line)}\n`).join(""));
    },
    flush() {
      if (pending !== "") sink.write(`${prefix}${shown(pending)}\n`);
      pending = "";
    },
  };
}

/**
 * A left-aligned plain-text table with a header rule, for terminals and CI logs. Cells hold the
 * platform's words (titles, deployers): each is one line with every control character shown.
 */
export function renderTable(headers: readonly string[], cellRows: readonly (readonly string[])[]): string {
  const rows = cellRows.map((r) => r.map(terminalText));
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  return [line(headers), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}
