/**
 * `stackwright validate [DIR]`: checks the desired state in DIR (default: the project's
 * stacks-config/) without calling the API or starting the engine. Every error of every file is
 * printed at once as `file:line:col: path: message` with the offending line.
 */
import * as path from "node:path";
import { ConfigValidationError, loadDesiredState } from "../config";
import { defineCommand } from "./command";
import { EXIT_CODES } from "./exit-codes";
import { say } from "./output";
import { defaultProjectDir } from "./workspace";

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

export const validateCommand = defineCommand({
  name: "validate",
  args: ["DIR"],
  summary: "Checks every stack file in DIR (default: stacks-config/ of the project) without calling the API.",
  flags: {
    project: { type: "string", help: "the Stackwright project directory (default: this package)" },
  },
  async run({ flags, positional }) {
    const dir = positional[0] ?? path.join(flags.project ?? defaultProjectDir(), "stacks-config");
    const result = await loadDesiredState(dir);
    if (!result.ok) throw new ConfigValidationError(result.errors);
    const { stacks } = result.state;
    const environments = stacks.reduce((n, s) => n + Object.keys(s.environments).length, 0);
    say(`${dir}: ${plural(stacks.length, "stack")}, ${plural(environments, "environment")}: valid`);
    return EXIT_CODES.ok;
  },
});
