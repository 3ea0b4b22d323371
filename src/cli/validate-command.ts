/**
 * `stackwright validate [DIR]`: checks the desired state in DIR (default: the project's
 * stacks-config/) without calling the API or starting the engine. Every error of every file is
 * printed at once as `file:line:col: path: message` with the offending line.
 */
import * as path from "node:path";
import { formatConfigErrors, loadDesiredState } from "../config";
import { describeFlags, parseFlags, type FlagSpec } from "./args";
import { defaultProjectDir } from "./workspace";

const flagsSpec = {
  project: { type: "string", help: "the Stackwright project directory (default: this package)" },
} satisfies FlagSpec;

export async function validateCommand(argv: string[]): Promise<number> {
  if (argv.includes("--help")) {
    console.log(
      `usage: stackwright validate [DIR] [flags]\n\nChecks every stack file in DIR (default: stacks-config/ of the project) without calling the API.\n\nflags:\n${describeFlags(flagsSpec)}`,
    );
    return 0;
  }
  let dir: string;
  try {
    const { flags, positional } = parseFlags("validate", argv, flagsSpec, ["DIR"]);
    dir = positional[0] ?? path.join(flags.project ?? defaultProjectDir(), "stacks-config");
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    return 2;
  }
  const result = await loadDesiredState(dir);
  if (!result.ok) {
    console.error(formatConfigErrors(result.errors));
    return 1;
  }
  const environments = result.state.stacks.reduce((n, s) => n + Object.keys(s.environments).length, 0);
  console.log(
    `${dir}: ${result.state.stacks.length} stack${result.state.stacks.length === 1 ? "" : "s"}, ${environments} environment${environments === 1 ? "" : "s"}: valid`,
  );
  return 0;
}
