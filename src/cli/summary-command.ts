/**
 * `stackwright summary [FILE]`: turns `pulumi preview --json` (from FILE, or stdin) into the
 * Markdown comment for a pull request, on stdout.
 */
import * as fs from "node:fs";
import { describeFlags, parseFlags, UsageError, type FlagSpec } from "./args";
import { parsePreviewJson } from "./preview-json";
import { renderSummary } from "./summary";

const flagsSpec = {
  title: { type: "string", help: "the heading of the comment (default: Stackwright preview)" },
} satisfies FlagSpec;

export async function summaryCommand(argv: string[]): Promise<number> {
  if (argv.includes("--help")) {
    console.log(
      `usage: stackwright summary [FILE] [flags]\n\nReads \`pulumi preview --json\` output (FILE or stdin) and prints a Markdown summary.\n\nflags:\n${describeFlags(flagsSpec)}`,
    );
    return 0;
  }
  try {
    const { flags, positional } = parseFlags("summary", argv, flagsSpec, ["FILE"]);
    const file = positional[0];
    const source = file === undefined || file === "-" ? "stdin" : file;
    const text = source === "stdin" ? fs.readFileSync(0, "utf8") : fs.readFileSync(source, "utf8");
    const preview = parsePreviewJson(text, source);
    process.stdout.write(renderSummary(preview, flags.title === undefined ? {} : { title: flags.title }));
    return 0;
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    return err instanceof UsageError ? 2 : 1;
  }
}
