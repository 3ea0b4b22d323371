/**
 * The name of the Pulumi stack that reconciles one API stack file for one target: `<target>.<api
 * stack>`, e.g. `dev.acme-web` or `production.acme-web`. The CLI builds it, and the program reads
 * it back to find its file, so `pulumi up -s dev.acme-web` works without Stackwright. A target
 * (`dev`, `production`) is itself a Pulumi stack that holds no resources: its `Pulumi.<target>.yaml`
 * carries the API settings that all of its per-file stacks use.
 */

/** Targets: letters, digits, `_` and `-` (no `.`: it separates the target from the API stack). */
const TARGET = /^[A-Za-z0-9_-]{1,40}$/;
/** What Pulumi accepts in a stack name of the local and S3 backends. */
const PULUMI_STACK = /^[A-Za-z0-9_.-]{1,100}$/;

/** Why `target` cannot name a target, or undefined when it can. */
export function targetProblem(target: string): string | undefined {
  return TARGET.test(target)
    ? undefined
    : `target '${target}' must be 1 to 40 letters, digits, '_' or '-' (no '.')`;
}

/** The per-file stack's name, or why there is none (an API stack name Pulumi cannot carry). */
export function perFileStackName(
  target: string,
  apiStack: string,
): { ok: true; name: string } | { ok: false; problem: string } {
  const problem = targetProblem(target);
  if (problem !== undefined) return { ok: false, problem };
  const name = `${target}.${apiStack}`;
  if (!PULUMI_STACK.test(name)) {
    return {
      ok: false,
      problem:
        `API stack '${apiStack}' cannot name a Pulumi stack ('${name}'): Pulumi stack names take ` +
        "letters, digits, '_', '.' and '-', 100 characters at most",
    };
  }
  return { ok: true, name };
}

/** The target and API stack of a per-file stack's name; undefined for any other name. */
export function parsePerFileStackName(name: string): { target: string; apiStack: string } | undefined {
  const dot = name.indexOf(".");
  if (dot <= 0 || dot === name.length - 1) return undefined;
  const target = name.slice(0, dot);
  const apiStack = name.slice(dot + 1);
  return targetProblem(target) === undefined ? { target, apiStack } : undefined;
}
