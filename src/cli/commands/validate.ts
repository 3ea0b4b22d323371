/**
 * `stackwright validate [DIR]`: checks the desired state in DIR (default: the project's
 * stacks-config/) without calling the API or starting the engine. Every error of every file is
 * printed at once as `file:line:col: path: message` with the offending line.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import {
  ConfigValidationError,
  formatErrorLine,
  loadDesiredState,
  unsetSinkVariables,
  validateTargetNotify,
  type ConfigError,
  type PathSegment,
  type SinkConfig,
} from "../../config";
import { defineCommand } from "../kit/command";
import { EXIT_CODES } from "../kit/exit-codes";
import type { Env } from "../kit/context";
import { flag } from "../kit/args";
import { defaultProjectDir } from "../../project/engine-env";

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

export const validateCommand = defineCommand({
  name: "validate",
  args: ["DIR"],
  summary: "Checks every stack file in DIR (default: stacks-config/ of the project) without calling the API.",
  flags: {
    // As given (not resolved): the line that says what is valid names the directory as typed.
    project: flag.string("the Stackwright project directory (default: this package)", defaultProjectDir),
  },
  async run({ flags, positional }, { io, env }) {
    const dir = positional[0] ?? path.join(flags.project, "stacks-config");
    const result = await loadDesiredState(dir);
    // The targets' notification sinks (stackwright:notify of each Pulumi.<target>.yaml beside DIR).
    const targets = targetSettingsFiles(path.dirname(path.resolve(dir))).map((file) =>
      validateTargetNotify(file, fs.readFileSync(file, "utf8")),
    );
    const errors = [...(result.ok ? [] : result.errors), ...targets.flatMap((t) => t.errors)];
    if (errors.length > 0) throw new ConfigValidationError(errors);
    if (!result.ok) throw new ConfigValidationError(result.errors);
    const { stacks } = result.state;
    // A sink's variable that is unset here is a warning: it is needed where the run happens (CI).
    const warnings = [
      ...targets.flatMap((t) => unsetWarnings(t.sinks, (p, m) => t.locate(p, m), env)),
      ...stacks.flatMap((s) =>
        unsetWarnings(s.notify, (p, m) => result.state.locate(s.stack, ["notify", ...p], m), env),
      ),
    ];
    for (const w of warnings) io.warn(`warning: ${formatErrorLine(w)}`);
    const environments = stacks.reduce((n, s) => n + Object.keys(s.environments).length, 0);
    io.say(`${dir}: ${plural(stacks.length, "stack")}, ${plural(environments, "environment")}: valid`);
    return EXIT_CODES.ok;
  },
});

/** The settings files of the targets of a project: `Pulumi.<target>.yaml`. */
function targetSettingsFiles(projectDir: string): string[] {
  try {
    return fs
      .readdirSync(projectDir)
      .filter((name) => /^Pulumi\.[^.]+(?:\.[^.]+)*\.ya?ml$/.test(name))
      .sort()
      .map((name) => path.join(projectDir, name));
  } catch {
    return [];
  }
}

function unsetWarnings(
  sinks: readonly SinkConfig[],
  locate: (path: readonly PathSegment[], message: string) => ConfigError,
  env: Env,
): ConfigError[] {
  return unsetSinkVariables(sinks, env).map((u) =>
    locate(
      [u.index, u.key],
      `the variable ${u.variable} of sink '${u.sink}' is not set here; a run that sends to this sink fails until it is`,
    ),
  );
}
