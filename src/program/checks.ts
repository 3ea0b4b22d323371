/**
 * Runs the desired state's `checks` before the program declares any resource, so a failing
 * error-check stops `preview` and `up` with no change made. Each failure is placed at the
 * check's `file:line:col` and says what was expected and what the platform answered; warnings
 * are logged (the engine shows them in the preview and the pull-request summary lists them).
 */
import * as pulumi from "@pulumi/pulumi";
import {
  type CheckFailure,
  type ConfigError,
  type DesiredState,
  type StackConfig,
  evaluateEnvironmentChecks,
  evaluateStackChecks,
  factsForChecks,
  failureMessage,
  formatConfigErrors,
  formatErrorLine,
  stackFactsForChecks,
  verifySpecOf,
} from "../config";
import { readEnvironmentFacts, readStackFacts } from "./facts";
import { userError } from "./run-error";

/**
 * Evaluates every check: warnings are logged, and any error-check that fails throws a RunError
 * (the engine shows its message alone) listing each with its position, before any resource
 * exists in this run.
 */
export async function enforceChecks(
  state: DesiredState,
  stack: StackConfig,
  shownFile: (file: string) => string,
): Promise<void> {
  const shown = (e: ConfigError) => ({ ...e, file: shownFile(e.file) });
  const evaluated = await evaluateChecks(state, stack);
  const results = { errors: evaluated.errors.map(shown), warnings: evaluated.warnings.map(shown) };
  for (const warning of results.warnings) void pulumi.log.warn(`check ${formatErrorLine(warning)}`);
  if (results.errors.length > 0) {
    throw userError(
      `checks failed, so nothing was changed:\n${formatConfigErrors(results.errors, "in checks: fix the platform or the check, or make it a warning (severity: warning)")}`,
    );
  }
}

/** Failed checks of one API stack's file (`stack`, part of `state`), split by severity, in file order. */
export async function evaluateChecks(
  state: DesiredState,
  stack: StackConfig,
): Promise<{ errors: ConfigError[]; warnings: ConfigError[] }> {
  const stackFailures =
    stack.checks.length === 0
      ? []
      : evaluateStackChecks(stack.checks, await readStackFacts(stackFactsForChecks(stack.checks)), [
          "checks",
        ]);
  const environmentFailures = await Promise.all(
    Object.entries(stack.environments)
      .filter(([, config]) => config.checks.length > 0)
      .map(async ([environment, config]) => {
        const facts = await readEnvironmentFacts(stack.stack, environment, factsForChecks(config.checks));
        return evaluateEnvironmentChecks(config.checks, facts, ["environments", environment, "checks"]);
      }),
  );
  const all = [...stackFailures, ...environmentFailures.flat(), ...(await verifyUrlFailures(stack))]
    .map((failure: CheckFailure) => ({
      severity: failure.severity,
      located: state.locate(stack.stack, failure.path, failureMessage(failure)),
    }))
    .sort((a, b) => byPosition(a.located, b.located));
  return {
    errors: all.filter((f) => f.severity === "error").map((f) => f.located),
    warnings: all.filter((f) => f.severity === "warning").map((f) => f.located),
  };
}

/**
 * A `path` check of `verify:` needs the environment's URL, which only the platform knows: one
 * error at the check when the platform gives the environment none (validate cannot tell).
 */
async function verifyUrlFailures(stack: StackConfig): Promise<CheckFailure[]> {
  const failures = await Promise.all(
    Object.entries(stack.environments).map(async ([environment, config]) => {
      const spec = verifySpecOf(stack, config);
      const paths = (spec?.checks ?? []).flatMap((c, index) =>
        c.path === undefined ? [] : [{ index, path: c.path }],
      );
      if (paths.length === 0) return [];
      const { url } = await readEnvironmentFacts(stack.stack, environment, ["url"]);
      if (url !== undefined && url !== "") return [];
      const base = config.verify === undefined ? ["verify"] : ["environments", environment, "verify"];
      return paths.map(
        ({ index, path }): CheckFailure => ({
          severity: "error",
          path: [...base, "checks", index, "path"],
          expected: `a URL of ${stack.stack}/${environment} to join ${path} to (or an absolute url: instead)`,
          actual: "no URL",
        }),
      );
    }),
  );
  return failures.flat();
}

function byPosition(a: ConfigError, b: ConfigError): number {
  return a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column;
}
