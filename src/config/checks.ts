/**
 * Evaluates `checks:` against facts: pure functions, no clock, no request. Each failed
 * assertion says where it is written (a document path, placed in the file by the caller), what
 * was expected and what the platform answered.
 */
// One by one, as in check-schema.ts.
import gte from "semver/functions/gte";
import semverSatisfies from "semver/functions/satisfies";
import {
  ENVIRONMENT_CHECK_KINDS,
  type CheckSeverity,
  type EnvironmentCheck,
  type EnvironmentCheckKind,
  type StackCheck,
  versionOfLabel,
} from "./check-schema";
import type { PathSegment } from "./errors";
import type { EnvironmentFact, EnvironmentFacts, StackFact, StackFacts } from "./facts";

/** One failed assertion of a check. */
export interface CheckFailure {
  readonly severity: CheckSeverity;
  /** Where in the stack file, e.g. `environments.prod.checks[0].modules["silverstripe/framework"]`. */
  readonly path: readonly PathSegment[];
  readonly expected: string;
  readonly actual: string;
}

/**
 * The one-line text of a failure (after its position): `expected ...; the platform answered ...`.
 * The severity is said by whoever shows it (an error stops the run, a warning is logged as one).
 */
export function failureMessage(failure: CheckFailure): string {
  return `expected ${failure.expected}; the platform answered ${failure.actual}`;
}

/** The kind of an environment check (the schema guarantees exactly one). */
export function environmentCheckKind(check: EnvironmentCheck): EnvironmentCheckKind {
  return ENVIRONMENT_CHECK_KINDS.find((kind) => check[kind] !== undefined) ?? "modules";
}

/** The fact each kind of check reads. */
const CHECK_FACT: Readonly<Record<EnvironmentCheckKind, EnvironmentFact>> = {
  modules: "modules",
  framework: "framework",
  domains: "domains",
  whitelist: "whitelist",
  configuration: "configuration",
};

/** The facts an environment's checks need. */
export function factsForChecks(checks: readonly EnvironmentCheck[]): EnvironmentFact[] {
  return [...new Set(checks.map((check) => CHECK_FACT[environmentCheckKind(check)]))];
}

/** The facts a stack's checks need. */
export function stackFactsForChecks(checks: readonly StackCheck[]): StackFact[] {
  return checks.length === 0 ? [] : ["manifest_release"];
}

function quoted(values: readonly string[]): string {
  return values.length === 0 ? "none" : values.map((v) => `'${v}'`).join(", ");
}

/** True when `version` (as the platform writes it) lies in `range`; prereleases count. */
function satisfies(version: string, range: string): boolean {
  const parsed = versionOfLabel(version);
  return parsed !== null && semverSatisfies(parsed, range, { includePrerelease: true });
}

function versionAnswer(version: string): string {
  return versionOfLabel(version) === null ? `'${version}' (not a version)` : `'${version}'`;
}

/**
 * Every failed assertion of one environment's checks. `base` is the path of the list
 * (`["environments", name, "checks"]`). A fact the caller did not supply is a programming error.
 */
export function evaluateEnvironmentChecks(
  checks: readonly EnvironmentCheck[],
  facts: EnvironmentFacts,
  base: readonly PathSegment[],
): CheckFailure[] {
  const failures: CheckFailure[] = [];
  checks.forEach((check, index) => {
    const at = [...base, index];
    const fail = (path: readonly PathSegment[], expected: string, actual: string) =>
      failures.push({ severity: check.severity, path: [...at, ...path], expected, actual });
    if (check.modules !== undefined) {
      const installed = need(facts.modules, "modules");
      for (const [name, range] of Object.entries(check.modules)) {
        const version = installed[name];
        if (version === undefined) fail(["modules", name], `${name} ${range}`, `${name} is not installed`);
        else if (!satisfies(version, range))
          fail(["modules", name], `${name} ${range}`, `${name} ${versionAnswer(version)}`);
      }
    }
    if (check.framework !== undefined) {
      const version = need(facts.framework, "framework");
      if (!satisfies(version, check.framework))
        fail(["framework"], `framework ${check.framework}`, versionAnswer(version));
    }
    if (check.domains !== undefined) {
      const domains = need(facts.domains, "domains");
      const { primary, ssl, includes } = check.domains;
      const names = domains.map((d) => d.name);
      if (primary !== undefined) {
        const actual = domains.filter((d) => d.primary).map((d) => d.name);
        if (!(actual.length === 1 && actual[0] === primary))
          fail(["domains", "primary"], `primary domain '${primary}'`, `primary ${quoted(actual)}`);
      }
      if (ssl !== undefined) {
        const wrong = domains.filter((d) => d.ssl !== ssl).map((d) => d.name);
        if (wrong.length > 0)
          fail(["domains", "ssl"], `ssl ${ssl} on every domain`, `ssl ${!ssl} on ${quoted(wrong)}`);
      }
      for (const [i, name] of (includes ?? []).entries()) {
        if (!names.includes(name))
          fail(["domains", "includes", i], `domain '${name}'`, `domains ${quoted(names)}`);
      }
    }
    if (check.whitelist !== undefined) {
      const whitelist = need(facts.whitelist, "whitelist");
      const { enabled, max_entries } = check.whitelist;
      if (enabled !== undefined && whitelist.enabled !== enabled)
        fail(["whitelist", "enabled"], `whitelist enabled: ${enabled}`, `enabled: ${whitelist.enabled}`);
      if (max_entries !== undefined && whitelist.entries > max_entries)
        fail(
          ["whitelist", "max_entries"],
          `at most ${max_entries} whitelist entries`,
          `${whitelist.entries} entries`,
        );
    }
    if (check.configuration !== undefined) {
      const configuration = need(facts.configuration, "configuration");
      const { pending_changes, has } = check.configuration;
      if (pending_changes !== undefined && configuration.pending_changes !== pending_changes)
        fail(
          ["configuration", "pending_changes"],
          `pending_changes: ${pending_changes}`,
          `pending_changes: ${configuration.pending_changes}`,
        );
      for (const [i, name] of (has ?? []).entries()) {
        if (!configuration.names.includes(name))
          fail(
            ["configuration", "has", i],
            `variable ${name} to be set`,
            `variables ${quoted(configuration.names)}`,
          );
      }
    }
  });
  return failures;
}

/** Every failed assertion of a stack's checks; `base` is `["checks"]`. */
export function evaluateStackChecks(
  checks: readonly StackCheck[],
  facts: StackFacts,
  base: readonly PathSegment[],
): CheckFailure[] {
  const failures: CheckFailure[] = [];
  checks.forEach((check, index) => {
    if (check.manifest_release === undefined) return;
    const wanted = check.manifest_release.at_least;
    const newest = facts.manifest_release;
    if (newest === undefined)
      throw new Error("the manifest_release fact was not read for a check that needs it");
    const have = newest === null ? null : versionOfLabel(newest.label);
    const want = versionOfLabel(wanted);
    if (have !== null && want !== null && gte(have, want)) return;
    failures.push({
      severity: check.severity,
      path: [...base, index, "manifest_release", "at_least"],
      expected: `the newest manifest release at least '${wanted}'`,
      actual: newest === null ? "no release" : `'${newest.label}' (released ${newest.released})`,
    });
  });
  return failures;
}

function need<T>(value: T | undefined, fact: EnvironmentFact): T {
  if (value === undefined) throw new Error(`the ${fact} fact was not read for a check that needs it`);
  return value;
}
