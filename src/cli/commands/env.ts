/**
 * `stackwright env`: prints the engine environment as shell `export` lines, so that plain
 * `pulumi preview` and `pulumi up` in the project directory run exactly as `stackwright` runs
 * them: `eval "$(npm run --silent stackwright -- env)"`.
 */
import { defineCommand } from "../kit/command";
import { engineEnv } from "../engine/env";
import { EXIT_CODES } from "../kit/exit-codes";
import { say } from "../kit/output";
import { defaultProjectDir } from "../engine/workspace";

/** Quotes a value for a POSIX shell. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export const envCommand = defineCommand({
  name: "env",
  summary:
    'Prints the environment the engine runs with, as export lines:\n  eval "$(npm run --silent stackwright -- env)"',
  flags: {},
  run() {
    const env = engineEnv({ projectDir: defaultProjectDir() });
    for (const [name, value] of Object.entries(env)) say(`export ${name}=${shellQuote(value)}`);
    return Promise.resolve(EXIT_CODES.ok);
  },
});
