import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type EnvironmentCheck,
  type EnvironmentFacts,
  EnvironmentCheckSchema,
  StackCheckSchema,
  configurationFact,
  domainsFact,
  evaluateEnvironmentChecks,
  evaluateStackChecks,
  factsForChecks,
  failureMessage,
  newestManifestRelease,
  validateStackFile,
} from "../../../src/config";

/** Checks as the schema yields them (severity defaulted). */
function checks(...entries: unknown[]): EnvironmentCheck[] {
  return entries.map((entry) => EnvironmentCheckSchema.parse(entry));
}

/** The facts of the emulator's default prod environment. */
const prod: EnvironmentFacts = {
  url: "https://www.acme.example.com",
  framework: "5.2.1",
  modules: { "silverstripe/framework": "5.2.1", "silverstripe/cms": "5.2.0" },
  domains: [
    { name: "www.acme.example.com", primary: true, ssl: true, www: true },
    { name: "acme.example.com", primary: false, ssl: true, www: false },
  ],
  configuration: { names: ["APP_ENV", "SS_LOG_LEVEL"], pending_changes: false },
  whitelist: { enabled: false, entries: 0, pending_changes: false },
};
const base = ["environments", "prod", "checks"] as const;

describe("environment checks", () => {
  it("passes every kind of check that the facts satisfy", () => {
    const all = checks(
      { modules: { "silverstripe/framework": "^5.2", "silverstripe/cms": ">=5.0 <6" } },
      { framework: ">=5.0" },
      { domains: { primary: "www.acme.example.com", ssl: true, includes: ["acme.example.com"] } },
      { whitelist: { enabled: false, max_entries: 0 } },
      { configuration: { pending_changes: false, has: ["APP_ENV"] } },
    );
    expect(evaluateEnvironmentChecks(all, prod, base)).toEqual([]);
  });

  it("says which module failed, what was expected and what the platform answered", () => {
    const failures = evaluateEnvironmentChecks(
      checks({ modules: { "silverstripe/framework": "^6", "silverstripe/admin": "^2" } }),
      prod,
      base,
    );
    expect(failures).toEqual([
      {
        severity: "error",
        path: [...base, 0, "modules", "silverstripe/framework"],
        expected: "silverstripe/framework ^6",
        actual: "silverstripe/framework '5.2.1'",
      },
      {
        severity: "error",
        path: [...base, 0, "modules", "silverstripe/admin"],
        expected: "silverstripe/admin ^2",
        actual: "silverstripe/admin is not installed",
      },
    ]);
    expect(failureMessage(failures[0]!)).toBe(
      "expected silverstripe/framework ^6; the platform answered silverstripe/framework '5.2.1'",
    );
  });

  it("keeps a warning's severity", () => {
    const [failure] = evaluateEnvironmentChecks(
      checks({ framework: ">=6", severity: "warning" }),
      prod,
      base,
    );
    expect(failure?.severity).toBe("warning");
    expect(failureMessage(failure!)).toBe("expected framework >=6; the platform answered '5.2.1'");
  });

  it("fails a version the platform writes that is no version at all", () => {
    const [failure] = evaluateEnvironmentChecks(
      checks({ framework: "^5" }),
      { ...prod, framework: "dev-main" },
      base,
    );
    expect(failure?.actual).toBe("'dev-main' (not a version)");
  });

  it("fails domains, whitelist and configuration assertions with the field at fault", () => {
    const failures = evaluateEnvironmentChecks(
      checks(
        { domains: { primary: "acme.example.com", ssl: false, includes: ["shop.acme.example.com"] } },
        { whitelist: { enabled: true } },
        { configuration: { pending_changes: true, has: ["APP_ENV", "SECRET_KEY"] } },
      ),
      prod,
      base,
    );
    expect(failures.map((f) => [f.path.slice(3).join("."), failureMessage(f)])).toEqual([
      [
        "0.domains.primary",
        "expected primary domain 'acme.example.com'; the platform answered primary 'www.acme.example.com'",
      ],
      [
        "0.domains.ssl",
        "expected ssl false on every domain; the platform answered ssl true on 'www.acme.example.com', 'acme.example.com'",
      ],
      [
        "0.domains.includes.0",
        "expected domain 'shop.acme.example.com'; the platform answered domains 'www.acme.example.com', 'acme.example.com'",
      ],
      ["1.whitelist.enabled", "expected whitelist enabled: true; the platform answered enabled: false"],
      [
        "2.configuration.pending_changes",
        "expected pending_changes: true; the platform answered pending_changes: false",
      ],
      [
        "2.configuration.has.1",
        "expected variable SECRET_KEY to be set; the platform answered variables 'APP_ENV', 'SS_LOG_LEVEL'",
      ],
    ]);
  });

  it("fails a whitelist with more entries than allowed", () => {
    const [failure] = evaluateEnvironmentChecks(
      checks({ whitelist: { max_entries: 1 } }),
      { ...prod, whitelist: { enabled: true, entries: 2, pending_changes: false } },
      base,
    );
    expect(failureMessage(failure!)).toBe(
      "expected at most 1 whitelist entries; the platform answered 2 entries",
    );
  });

  it("names the facts that the checks need, once each", () => {
    expect(
      factsForChecks(checks({ framework: "^5" }, { framework: ">=5" }, { modules: { a: "1" } })),
    ).toEqual(["framework", "modules"]);
    expect(factsForChecks([])).toEqual([]);
  });

  it("passes any installed version against the exact range of that version", () => {
    fc.assert(
      fc.property(fc.nat(40), fc.nat(40), fc.nat(40), (major, minor, patch) => {
        const version = `${major}.${minor}.${patch}`;
        const facts = { ...prod, framework: version, modules: { m: version } };
        const all = checks(
          { framework: version },
          { framework: `^${version}` },
          { modules: { m: `~${version}` } },
        );
        expect(evaluateEnvironmentChecks(all, facts, base)).toEqual([]);
      }),
    );
  });
});

describe("stack checks", () => {
  const releases = [
    {
      type: "manifestreleases" as const,
      id: "1",
      attributes: { sha: "2026.11.1", released_unix: 1762300800 },
    },
    {
      type: "manifestreleases" as const,
      id: "2",
      attributes: { sha: "2026.11.2", released_unix: 1763510400 },
    },
  ];
  const facts = { manifest_release: newestManifestRelease(releases) };

  it("reads the newest manifest release by its release date", () => {
    expect(facts.manifest_release).toEqual({ label: "2026.11.2", released: "2025-11-19T00:00:00Z" });
    expect(newestManifestRelease([])).toBeNull();
  });

  it("passes when the newest release is at least the label and fails otherwise", () => {
    const ok = [StackCheckSchema.parse({ manifest_release: { at_least: "2026.11.1" } })];
    expect(evaluateStackChecks(ok, facts, ["checks"])).toEqual([]);
    const late = [StackCheckSchema.parse({ manifest_release: { at_least: "2026.12" }, severity: "warning" })];
    expect(evaluateStackChecks(late, facts, ["checks"])).toEqual([
      {
        severity: "warning",
        path: ["checks", 0, "manifest_release", "at_least"],
        expected: "the newest manifest release at least '2026.12'",
        actual: "'2026.11.2' (released 2025-11-19T00:00:00Z)",
      },
    ]);
    expect(evaluateStackChecks(ok, { manifest_release: null }, ["checks"])[0]?.actual).toBe("no release");
  });
});

describe("facts", () => {
  it("orders domains primary first, then by name", () => {
    const domain = (name: string, primary: boolean) => ({
      type: "domains" as const,
      id: name,
      attributes: { name, primary, ssl: true, www: false },
      relationships: { environment: { data: { type: "environments" as const, id: "prod" } } },
    });
    expect(
      domainsFact([domain("b.example", false), domain("z.example", true), domain("a.example", false)]).map(
        (d) => d.name,
      ),
    ).toEqual(["z.example", "a.example", "b.example"]);
  });

  it("keeps configuration variable names and drops every value", () => {
    const fact = configurationFact([
      {
        type: "configuration",
        id: "1",
        attributes: { pending_changes: true, configuration: { SECRET: "hunter2", APP_ENV: "prod" } },
        relationships: { environment: { data: { type: "environments" as const, id: "prod" } } },
      },
    ]);
    expect(fact).toEqual({ names: ["APP_ENV", "SECRET"], pending_changes: true });
    expect(JSON.stringify(fact)).not.toContain("hunter2");
  });
});

describe("validate on checks and windows", () => {
  const errorsOf = (yaml: string) =>
    validateStackFile("acme-web.yaml", yaml).errors.map(
      (e) => `${e.line}:${e.column}: ${e.path}: ${e.message}`,
    );

  it("accepts every kind of check and window", () => {
    const yaml = [
      "stack: acme-web",
      "outputs: [manifest_release]",
      "checks:",
      '  - manifest_release: { at_least: "2026.11.1" }',
      "windows:",
      '  - deny: { schedule: "0 0 20 12 *", duration: 14d, timezone: Europe/London }',
      "environments:",
      "  prod:",
      "    outputs: [deployment, url, domains, framework, modules, configuration, whitelist]",
      "    checks:",
      '      - modules: { silverstripe/framework: "^5.2" }',
      '      - framework: ">=5.0"',
      "        severity: warning",
      "    windows:",
      '      - allow: { schedule: "0 9 * * 1-4", duration: 7h, timezone: Europe/London }',
    ].join("\n");
    const result = validateStackFile("acme-web.yaml", yaml);
    expect(result.errors).toEqual([]);
    expect(result.stack?.environments["prod"]?.windows).toEqual([
      { allow: { schedule: "0 9 * * 1-4", duration: 25200, timezone: "Europe/London" } },
    ]);
    expect(result.stack?.environments["prod"]?.checks[1]?.severity).toBe("warning");
  });

  it("refuses an entry with no check or with two", () => {
    expect(
      errorsOf(
        'stack: s\nenvironments:\n  prod:\n    checks:\n      - severity: warning\n      - framework: "^5"\n        modules: { a: "^1" }\n',
      ),
    ).toEqual([
      "5:9: environments.prod.checks[0]: names no check; give one of: modules, framework, domains, whitelist, configuration; got a map",
      "6:9: environments.prod.checks[1]: holds 2 checks (modules, framework); write one list entry per check so each has its own severity and position; got a map",
    ]);
  });
});
