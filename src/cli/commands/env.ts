/**
 * `stackwright env [--target NAME]`: prints the environment a target's engine runs with, as shell
 * `export` lines, so that plain `pulumi` commands in the project directory (`pulumi stack init`,
 * `pulumi config set --secret`, `pulumi preview`) run exactly as `stackwright` runs them:
 * `eval "$(npm run --silent stackwright -- env --target production)"`. Its secrets variables are
 * the target's own (src/project/passphrase.ts): a passphrase the user set is used and never printed, the
 * built-in one only for the demo's `dev` target; a target without one is refused before anything
 * is printed. The directory of a `file://` backend is made, so `pulumi stack init` can run next.
 */
import { engineEnv, ensureStateDir } from "../../project/engine-env";
import { defineCommand } from "../kit/command";
import { EXIT_CODES } from "../kit/exit-codes";
import { quietCommandLine } from "../../project/invocation";
import { targetSecretsEnv } from "../../project/target-settings";
import { targetFlags } from "../kit/flag-sets";

/** Quotes a value for a POSIX shell. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export const envCommand = defineCommand({
  name: "env",
  summary:
    "Prints the environment the engine runs the target with, as export lines, for plain pulumi commands:\n" +
    `  eval "$(${quietCommandLine("env --target production")})"\n` +
    "A target other than the demo's dev needs PULUMI_CONFIG_PASSPHRASE (or a secrets provider in its file); " +
    "a passphrase you set is used and not printed. A file:// state directory is created.",
  flags: targetFlags,
  run({ flags }, { io, env: given }) {
    const projectDir = flags.project;
    const target = flags.target;
    const env = {
      ...engineEnv({ projectDir, baseEnv: given }),
      ...targetSecretsEnv(projectDir, target, given),
    };
    ensureStateDir(env);
    for (const [name, value] of Object.entries(env)) io.say(`export ${name}=${shellQuote(value)}`);
    return Promise.resolve(EXIT_CODES.ok);
  },
});
