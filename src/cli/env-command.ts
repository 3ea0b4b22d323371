/**
 * `stackwright env`: prints the engine environment as shell `export` lines, so that plain
 * `pulumi preview` and `pulumi up` in the project directory run exactly as `stackwright` runs
 * them: `eval "$(npm run --silent stackwright -- env)"`.
 */
import { engineEnv } from "./engine-env";
import { defaultProjectDir } from "./workspace";

/** Quotes a value for a POSIX shell. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export async function envCommand(argv: string[]): Promise<number> {
  if (argv.length > 0) {
    console.error(
      argv.includes("--help")
        ? 'usage: eval "$(npm run --silent stackwright -- env)"\n\nPrints the environment the engine runs with.'
        : `stackwright env takes no arguments: ${argv.join(" ")}`,
    );
    return argv.includes("--help") ? 0 : 2;
  }
  const env = engineEnv({ projectDir: defaultProjectDir() });
  for (const [name, value] of Object.entries(env)) console.log(`export ${name}=${shellQuote(value)}`);
  return 0;
}
