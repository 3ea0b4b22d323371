/**
 * Writes a pull-request comment where `--summary FILE` says, cut to fit a GitHub comment
 * (summary.ts), and the full text where `--summary-full FILE` says. A cut comment whose run named
 * no full file gets one beside it (`FILE.full.md`), so its last line can say where the rest is.
 */
import * as fs from "node:fs";
import { renderComment, type SummaryInput } from "./summary";

/** The file the full text goes to when a cut summary was given none. */
export function besideFile(summary: string): string {
  return `${summary.replace(/\.md$/i, "")}.full.md`;
}

/**
 * Writes the files and says where, through `tell`: stdout, or stderr when stdout carries a
 * document of the run (`--json -`).
 */
export function writeSummary(
  input: SummaryInput,
  file: string,
  fullFile: string | undefined,
  tell: (line: string) => void,
): void {
  const first = renderComment(input, fullFile === undefined ? {} : { fullText: fullFile });
  const full = fullFile ?? (first.omitted > 0 || first.text !== first.full ? besideFile(file) : undefined);
  const rendered = full === fullFile ? first : renderComment(input, { fullText: full ?? "" });
  fs.writeFileSync(file, rendered.text);
  if (full !== undefined) fs.writeFileSync(full, rendered.full);
  const cut = rendered.text !== rendered.full;
  tell(
    `summary written to ${file}${cut ? ` (cut to fit a GitHub comment: ${rendered.omitted} stack(s) left out)` : ""}` +
      `${full === undefined ? "" : `; the full text to ${full}`}`,
  );
}
