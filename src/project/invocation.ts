/**
 * How the user runs `stackwright`, for every message that tells them to run something. The
 * package's `bin` is on no PATH: in a checkout of Stackwright's repository it is the npm script
 * (`npm run stackwright -- preview`), in a repository that installed the package it is npx
 * (`npx stackwright preview`). Which one is decided by where the running code lives: an installed
 * package sits under a `node_modules` directory, a checkout does not.
 */
/** The words that start a `stackwright` command, for code living at `codePath`. */
export function invocationOf(codePath: string): string {
  return codePath.split(/[\\/]/).includes("node_modules") ? "npx stackwright" : "npm run stackwright --";
}

/** The command line the user types for `stackwright ARGS` (e.g. `preview --target production`). */
export function commandLine(args: string): string {
  return `${invocationOf(__dirname)} ${args}`;
}

/** The same, printing only what `stackwright` prints (npm's own lines left out), for `$(...)`. */
export function quietCommandLine(args: string): string {
  const words = invocationOf(__dirname);
  return `${words.startsWith("npm run ") ? "npm run --silent stackwright --" : words} ${args}`;
}
