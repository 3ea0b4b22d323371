/**
 * The flag sets that commands share, each read once here, at the edge: `--target`/`--project`
 * (the target's name by the one rule of src/config, the project directory resolved), and the
 * selection of API stacks (`--changed-since`, `--shard`). What they mean is below the CLI
 * (src/project: target-settings.ts, selection.ts).
 */
import { targetProblem } from "../../config";
import { DEFAULT_TARGET, projectDirOf } from "../../project/target-settings";
import type { Shard } from "../../project/selection";
import { flag, FlagRuleError, wholeNumber, type Flag } from "./args";

/**
 * `--target` and `--project`, as every command that reads a target's settings declares them:
 * the target's name, checked by the one rule and {@link DEFAULT_TARGET} when not given, and the
 * project directory, resolved ({@link projectDirOf}'s default when not given). The one place
 * either default is decided.
 */
export const targetFlags = {
  target: targetNameFlag(
    `the target whose settings file Pulumi.<target>.yaml to use (default: ${DEFAULT_TARGET})`,
    DEFAULT_TARGET,
  ),
  project: flag.parsedOr(
    "the Stackwright project directory (default: this package)",
    (text) => projectDirOf(text),
    () => projectDirOf(undefined),
  ),
};

/** A flag that names a target, checked by the one rule; `fallback` when not given. */
export function targetNameFlag(help: string, fallback: string): Flag<string> {
  return flag.parsedOr(
    help,
    (text) => {
      const problem = targetProblem(text);
      // The rule says "target 'x' must be ..."; after the flag's name, the name alone reads right.
      if (problem !== undefined) throw new FlagRuleError(problem.replace(/^target /, ""));
      return text;
    },
    () => fallback,
  );
}

/** How the `--help` of a command that reads the API says where its settings come from. */
export const API_SETTINGS_HELP =
  "Reads the API settings from Pulumi.<target>.yaml (--target, default dev); STACKWRIGHT_API_URL, " +
  "STACKWRIGHT_EMAIL and STACKWRIGHT_API_TOKEN win over it.";

/** Parses `I/N` (1 ≤ I ≤ N ≤ 256); a FlagRuleError says the rule. */
export function parseShard(text: string): Shard {
  const [i, n, ...rest] = text.split("/");
  const count = n === undefined || rest.length > 0 ? undefined : wholeNumber(n, 1, 256);
  const index = i === undefined || count === undefined ? undefined : wholeNumber(i, 1, count);
  if (count === undefined || index === undefined) {
    throw new FlagRuleError(
      `takes I/N with 1 <= I <= N <= 256 (e.g. 2/4 for the second of four runners), not '${text}'`,
    );
  }
  return { index, count };
}

/**
 * How every command that runs over several API stacks narrows them besides naming them: the
 * files changed since a git ref, and this runner's shard (parsed here, once).
 */
export const selectionFlags = {
  "changed-since": flag.string(
    "GIT_REF: only the API stacks whose file differs from this git ref (all when a shared file changed)",
  ),
  shard: flag.parsed("I/N: this runner's share of the selected stacks (stable per API stack)", parseShard),
};
