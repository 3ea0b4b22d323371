/**
 * `stackwright summary [FILE]`: turns `pulumi preview --json` (from FILE, or stdin) into the
 * Markdown comment for a pull request, on stdout.
 */
import * as fs from "node:fs";
import { defineCommand } from "./command";
import { CliError, EXIT_CODES } from "./exit-codes";
import { parsePreviewJson } from "./preview-json";
import { renderSummary } from "./summary";

function readSource(source: string): string {
  try {
    return source === "stdin" ? fs.readFileSync(0, "utf8") : fs.readFileSync(source, "utf8");
  } catch (err) {
    throw new CliError("usage", `cannot read ${source}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

export const summaryCommand = defineCommand({
  name: "summary",
  args: ["FILE"],
  summary: "Reads `pulumi preview --json` output (FILE or stdin) and prints a Markdown summary.",
  flags: {
    title: { type: "string", help: "the heading of the comment (default: Stackwright preview)" },
  },
  run({ flags, positional }) {
    const file = positional[0];
    const source = file === undefined || file === "-" ? "stdin" : file;
    const preview = parsePreviewJson(readSource(source), source);
    process.stdout.write(renderSummary(preview, flags.title === undefined ? {} : { title: flags.title }));
    return Promise.resolve(EXIT_CODES.ok);
  },
});
