import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { formatErrorLine, loadDesiredStateSync } from "../../../src/config";

/**
 * The corpus of bad configurations: one directory per case under test/fixtures/bad-configs/.
 * Each case lists every error the loader must report, as `file:line:col: path: message` with the
 * file relative to the case directory, so a change of position or wording is a visible diff.
 */
const fixtures = join(__dirname, "../../fixtures/bad-configs");

interface BadConfigCase {
  readonly dir: string;
  readonly it: string;
  readonly errors: readonly string[];
}

const cases: readonly BadConfigCase[] = [
  {
    dir: "adopt-not-an-id",
    it: "refuses an adopt value that is not a numeric deployment id",
    errors: [
      "acme-web.yaml:7:14: environments.uat.deployment.adopt: must be a positive whole number (a platform id); got 'latest'",
    ],
  },
  {
    dir: "verify-mistakes",
    it: "refuses verify checks with a bad status, pattern or URL, a within longer than the deployment's wait, and a deployment not waited for",
    errors: [
      "acme-web.yaml:5:11: verify.within: applies to uat and is longer than the default deployment timeout of 30m: make within at most 30m or the timeout longer (at most 24h)",
      "acme-web.yaml:14:19: environments.prod.verify.checks[0].status: must be an HTTP status from 100 to 599 or a range of them such as 200-299; got the number 700",
      "acme-web.yaml:15:17: environments.prod.verify.checks[0].body: is not a valid regular expression (JavaScript syntax): /ok(/: Unterminated group; got 'ok('",
      "acme-web.yaml:16:16: environments.prod.verify.checks[1].url: uses http to www.example.com, which would send the request in clear text; use https; got 'http://www.example.com/'",
      "acme-web.yaml:17:16: environments.prod.verify.checks[2].url: must carry no credentials: a check sends none (leave out user:password@); got 'https://***@www.example.com/'",
      "acme-web.yaml:20:11: environments.prod.verify.checks[3]: a check names exactly one of path (on the environment's URL) and url (absolute); got a map",
      "acme-web.yaml:21:15: environments.prod.verify.within: is longer than environments.prod.deployment.timeout (10m): make within at most 10m or the timeout longer (at most 24h)",
      "acme-web.yaml:23:5: environments.test.verify: verifies a deployment, and this environment declares none: add deployment: or remove verify:",
      "acme-web.yaml:26:54: environments.staging.deployment.wait: is false, so the deployment is not waited for and verify: would check a build that is not running yet: remove wait: false or verify:",
    ],
  },
  {
    dir: "duplicate-deployment-key",
    it: "reports a key repeated inside a deployment and where it first appeared",
    errors: ["acme-web.yaml:9:7: duplicate key 'ref' (first at line 7); each key may appear once per map"],
  },
  {
    dir: "duplicate-record-action",
    it: "refuses a record action repeated with the same class, id, method and trigger",
    errors: [
      "acme-web.yaml:5:5: records[1]: repeats records[0] (same class, id, method and trigger); change its trigger to run the method again",
    ],
  },
  {
    dir: "duplicate-stack-in-two-files",
    it: "refuses a stack declared in two files and points at both",
    errors: [
      "acme-web-copy.yml:3:8: stack: stack 'acme-web' is also declared in acme-web.yaml:2:8; keep one file per stack",
      "acme-web.yaml:2:8: stack: stack 'acme-web' is also declared in acme-web-copy.yml:3:8; keep one file per stack",
    ],
  },
  {
    dir: "duplicate-top-level-key",
    it: "reports a repeated top-level key and where it first appeared",
    errors: ["acme-web.yaml:4:1: duplicate key 'stack' (first at line 2); each key may appear once per map"],
  },
  {
    dir: "empty-environment-name",
    it: "refuses an empty environment name",
    errors: ["acme-web.yaml:4:3: environments[\"\"]: environment name '' must not be empty"],
  },
  {
    dir: "empty-file",
    it: "refuses a file that holds only comments",
    errors: ["acme-web.yaml:1:1: the file is empty; a stack file needs at least 'stack: <name>'"],
  },
  {
    dir: "empty-ref-for-tag",
    it: "refuses an empty ref for a tag deployment",
    errors: [
      "acme-web.yaml:7:12: environments.uat.deployment.ref: must not be empty when ref_type is 'tag' (the tag name to deploy)",
    ],
  },
  {
    dir: "environment-name-dot-dot",
    it: "refuses an environment name that would climb the API path",
    errors: [
      "acme-web.yaml:4:3: environments[\"..\"]: environment name '..' must not be '.' or contain '..' (it would change the API path)",
    ],
  },
  {
    dir: "environment-name-with-space",
    it: "refuses an environment name with whitespace",
    errors: [
      "acme-web.yaml:4:3: environments[\"u at\"]: environment name 'u at' must not contain whitespace (it would change the API path)",
    ],
  },
  {
    dir: "errors-in-several-files",
    it: "reports the errors of several broken files together",
    errors: [
      "a-shop.yaml:5:29: environments.uat.deployment.ref: is required when ref_type is 'branch' (the branch name to deploy)",
      'b-web.yaml:5:22: environments.prod.lock.message: must be text; got the number 42 (YAML reads it as a number; write "42" in quotes to mean text)',
      "c-broken.yaml:3:16: YAML syntax error: flow sequence in block collection must be sufficiently indented and end with a ] (reached the end of the file)",
    ],
  },
  {
    dir: "invalid-approval",
    it: "names the allowed approval modes when the value is unknown",
    errors: [
      "acme-web.yaml:7:17: environments.uat.deployment.approval: must be one of: bypass_and_start, bypass, request; got 'auto'",
    ],
  },
  {
    dir: "invalid-ref-type",
    it: "names the allowed ref types when the value is unknown",
    errors: [
      "acme-web.yaml:6:17: environments.uat.deployment.ref_type: must be one of: promote_from_uat, sha, branch, tag, redeploy, package; got 'commit'",
    ],
  },
  {
    dir: "missing-ref-for-branch",
    it: "requires a ref for a branch deployment and points at the ref_type",
    errors: [
      "acme-web.yaml:6:17: environments.uat.deployment.ref: is required when ref_type is 'branch' (the branch name to deploy)",
    ],
  },
  {
    dir: "missing-ref-type",
    it: "requires a ref_type and names its values",
    errors: [
      "acme-web.yaml:5:5: environments.uat.deployment.ref_type: is required; one of: promote_from_uat, sha, branch, tag, redeploy, package",
    ],
  },
  {
    dir: "missing-stack",
    it: "requires the stack key",
    errors: ["acme-web.yaml:2:1: stack: is required"],
  },
  {
    dir: "multiple-documents",
    it: "refuses a second YAML document in one file",
    errors: [
      "acme-web.yaml:3:1: more than one YAML document (---) in the file; a stack file holds exactly one",
    ],
  },
  {
    dir: "no-stack-files",
    it: "refuses a directory without stack files because an empty desired state deletes everything",
    errors: [".:1:1: holds no *.yaml or *.yml stack file; an empty desired state would delete everything"],
  },
  {
    dir: "proto-key",
    it: "refuses __proto__ as a key because it would silently vanish",
    errors: [
      "acme-web.yaml:4:3: the key '__proto__' is not allowed (it cannot be told apart from JavaScript internals)",
    ],
  },
  {
    dir: "record-class-with-slash",
    it: "refuses a record class that would change the API path",
    errors: [
      "acme-web.yaml:4:14: records[0].class: must not contain '/' (it would change the API path); got 'Page/../Member'",
    ],
  },
  {
    dir: "record-id-negative",
    it: "refuses a negative record id",
    errors: [
      "acme-web.yaml:4:24: records[0].id: must be a record id: a positive whole number or text; got the number -12",
    ],
  },
  {
    dir: "record-method-empty",
    it: "refuses an empty record method",
    errors: ["acme-web.yaml:6:13: records[0].method: must not be empty; got ''"],
  },
  {
    dir: "record-missing-method",
    it: "requires a record method",
    errors: ["acme-web.yaml:4:5: records[0].method: is required"],
  },
  {
    dir: "records-not-a-list",
    it: "requires records to be a list",
    errors: ["acme-web.yaml:4:3: records: must be a list (lines starting with '- '); got a map"],
  },
  {
    dir: "ref-read-as-number",
    it: "suggests quotes when YAML reads a tag ref as a number",
    errors: [
      'acme-web.yaml:7:12: environments.uat.deployment.ref: must be text; got the number 1.10 (YAML reads it as a number; write "1.10" in quotes to mean text)',
    ],
  },
  {
    dir: "ref-with-promote-from-uat",
    it: "refuses a ref with promote_from_uat because it would take precedence",
    errors: [
      "acme-web.yaml:5:52: environments.prod.deployment.ref: must be empty when ref_type is 'promote_from_uat': a non-empty ref takes precedence and would deploy 'main' instead; remove it",
    ],
  },
  {
    dir: "ref-with-redeploy",
    it: "refuses a ref with redeploy because it would take precedence",
    errors: [
      "acme-web.yaml:7:12: environments.uat.deployment.ref: must be empty when ref_type is 'redeploy': a non-empty ref takes precedence and would deploy 'main' instead; remove it",
    ],
  },
  {
    dir: "restore-confirm-names-another-environment",
    it: "refuses a restore whose confirm is not the target environment",
    errors: [
      "acme-web.yaml:9:18: environments.uat.restores.from-id.confirm: must equal the environment name 'uat' to confirm that the restore overwrites its data; got 'prod'",
    ],
  },
  {
    dir: "restore-mode-not-in-snapshot",
    it: "refuses a restore mode the declared snapshot does not hold",
    errors: [
      "acme-web.yaml:9:51: environments.prod.restores.from-nightly.mode: 'assets' needs a snapshot that holds it, but snapshot 'nightly-db' is taken with mode 'db'; restore with mode 'db' or take the snapshot with mode 'all'",
    ],
  },
  {
    dir: "restore-of-undeclared-snapshot",
    it: "refuses a restore of a snapshot the file does not declare and lists the declared ones",
    errors: [
      "acme-web.yaml:8:32: environments.uat.restores.from-weekly.snapshot: 'weekly-db' is not a snapshot declared in this file (declared: nightly-db); name one declared under environments.<name>.snapshots, or give a numeric snapshot id",
    ],
  },
  {
    dir: "restore-snapshot-is-negative",
    it: "refuses a negative snapshot id in a restore",
    errors: [
      "acme-web.yaml:6:28: environments.uat.restores.from-id.snapshot: must name a snapshot declared in this file or be a positive numeric snapshot id; got the number -1",
    ],
  },
  {
    dir: "restore-without-confirm",
    it: "requires confirm on a restore",
    errors: ["acme-web.yaml:6:7: environments.uat.restores.from-id.confirm: is required"],
  },
  {
    dir: "snapshot-mode-invalid",
    it: "names the allowed snapshot modes when the value is unknown",
    errors: [
      "acme-web.yaml:6:24: environments.uat.snapshots.nightly.mode: must be one of: all, db, assets; got 'database'",
    ],
  },
  {
    dir: "snapshot-name-in-two-environments",
    it: "refuses a snapshot name declared in two environments of one file",
    errors: [
      "acme-web.yaml:9:7: environments.prod.snapshots.before-release: snapshot name 'before-release' is already declared in environment 'uat' (line 6); snapshot names are unique per file because restores refer to them by name",
    ],
  },
  {
    dir: "snapshot-name-only-digits",
    it: "refuses a snapshot name made of digits because restores read it as an id",
    errors: [
      "acme-web.yaml:6:7: environments.uat.snapshots.2026: snapshot name '2026' must not be only digits: a restore would read it as a snapshot id",
    ],
  },
  {
    dir: "snapshot-name-with-control-character",
    it: "refuses a snapshot name with a control character and shows it escaped",
    errors: [
      'acme-web.yaml:6:7: environments.uat.snapshots["nightly\\u0007db"]: snapshot name "nightly\\u0007db" must not contain control characters (it would change the API path)',
    ],
  },
  {
    dir: "snapshots-left-empty",
    it: "refuses snapshots left without a value",
    errors: [
      "acme-web.yaml:5:15: environments.uat.snapshots: must be a map (name: settings lines); got an empty value",
    ],
  },
  {
    dir: "stack-is-a-list",
    it: "refuses a stack name written as a list",
    errors: ["acme-web.yaml:2:8: stack: must be text; got a list"],
  },
  {
    dir: "stack-name-with-slash",
    it: "refuses a stack name with a slash",
    errors: ["acme-web.yaml:2:8: stack: must not contain '/' (it would change the API path); got 'acme/web'"],
  },
  {
    dir: "syntax-bad-indentation",
    it: "reports a YAML syntax error once per line",
    errors: ["acme-web.yaml:2:8: YAML syntax error: nested mappings are not allowed in compact mappings"],
  },
  {
    dir: "syntax-unclosed-flow-map",
    it: "reports an unclosed flow map",
    errors: [
      "acme-web.yaml:6:3: YAML syntax error: flow map in block collection must be sufficiently indented and end with a }",
    ],
  },
  {
    dir: "tab-indentation",
    it: "reports a tab used for indentation",
    errors: ["acme-web.yaml:5:1: tab character used for indentation; YAML allows only spaces there"],
  },
  {
    dir: "timeout-bare-number",
    it: "refuses a timeout without a unit",
    errors: [
      "acme-web.yaml:7:16: environments.uat.deployment.timeout: must be a duration such as 30m, 90s or 1h30m (a bare number has no unit); got the number 90",
    ],
  },
  {
    dir: "timeout-in-words",
    it: "refuses a timeout written in words and shows the accepted format",
    errors: [
      "acme-web.yaml:7:16: environments.uat.deployment.timeout: must be a duration such as 30m, 90s or 1h30m (hours h, minutes m, seconds s, in that order); got '30 minutes'",
    ],
  },
  {
    dir: "timeout-too-long",
    it: "refuses a timeout above 24 hours",
    errors: [
      "acme-web.yaml:7:16: environments.uat.deployment.timeout: must be between 10s and 24h; got '25h' (90000 seconds)",
    ],
  },
  {
    dir: "top-level-list",
    it: "refuses a file whose top level is a list",
    errors: [
      "acme-web.yaml:2:1: a stack file must be a map with the keys stack, environments, records, outputs, checks, windows, verify, notify",
    ],
  },
  {
    dir: "unknown-deployment-key",
    it: "refuses an unknown deployment key, suggests the close one and names the allowed keys",
    errors: [
      "acme-web.yaml:8:7: environments.uat.deployment.fetch-first: unknown key 'fetch-first' (did you mean 'fetch_first'?); allowed keys: ref_type, ref, title, summary, approval, fetch_first, wait, timeout, self_heal, trigger, locked, adopt",
    ],
  },
  {
    dir: "unknown-environment-key",
    it: "refuses an unknown environment key and suggests lock",
    errors: [
      "acme-web.yaml:5:5: environments.prod.locks: unknown key 'locks' (did you mean 'lock'?); allowed keys: deployment, lock, snapshots, restores, outputs, checks, windows, promotion, verify",
    ],
  },
  {
    dir: "unknown-lock-key",
    it: "refuses an unknown lock key and names message as the only one",
    errors: [
      "acme-web.yaml:5:13: environments.prod.lock.reason: unknown key 'reason'; allowed keys: message",
    ],
  },
  {
    dir: "unknown-top-level-key",
    it: "refuses a misspelt top-level key and suggests the right one",
    errors: [
      "acme-web.yaml:3:1: enviroments: unknown key 'enviroments' (did you mean 'environments'?); allowed keys: stack, environments, records, outputs, checks, windows, verify, notify",
    ],
  },
  {
    dir: "wait-is-yes",
    it: "refuses yes for a boolean because YAML 1.2 reads it as text",
    errors: ["acme-web.yaml:7:13: environments.uat.deployment.wait: must be true or false; got 'yes'"],
  },
  {
    dir: "check-bad-semver-range",
    it: "refuses a module or framework check whose range is not a semver range",
    errors: [
      `acme-web.yaml:6:44: environments.prod.checks[0].modules["silverstripe/framework"]: must be a version range in quotes, such as "^5.2", ">=5.0 <6" or "5.x"; got 'five point two'`,
      `acme-web.yaml:7:20: environments.prod.checks[1].framework: must be a version range in quotes, such as "^5.2", ">=5.0 <6" or "5.x"; got the number 5.2`,
    ],
  },
  {
    dir: "check-unknown-kind",
    it: "refuses a check of an unknown kind, one that names nothing and an unknown severity",
    errors: [
      "acme-web.yaml:6:9: environments.prod.checks[0].module: unknown key 'module' (did you mean 'modules'?); allowed keys: modules, framework, domains, whitelist, configuration, severity",
      "acme-web.yaml:7:20: environments.prod.checks[1].whitelist: names nothing to check; give at least one of: enabled, max_entries (whitelist); got a map",
      "acme-web.yaml:8:19: environments.prod.checks[2].severity: must be one of: error, warning; got 'fatal'",
    ],
  },
  {
    dir: "check-manifest-label-not-a-version",
    it: "refuses a manifest release check whose label holds no version",
    errors: [
      `acme-web.yaml:4:35: checks[0].manifest_release.at_least: must be a release label with a version in it, such as "2026.11.1"; got 'latest'`,
    ],
  },
  {
    dir: "outputs-unknown-fact",
    it: "refuses an output that is not a fact of the stack or of the environment",
    errors: [
      "acme-web.yaml:3:11: outputs[0]: must be one of: manifest_release; got 'url'",
      "acme-web.yaml:6:29: environments.prod.outputs[2]: must be one of: deployment, url, domains, framework, modules, configuration, whitelist; got 'secrets'",
    ],
  },
  {
    dir: "window-allow-and-deny",
    it: "refuses a window entry that is both allow and deny, one without a timezone, and a misspelled one in one line",
    errors: [
      "acme-web.yaml:6:9: environments.prod.windows[0]: must hold exactly one of allow or deny; write one list entry per window; got a map",
      "acme-web.yaml:8:9: environments.prod.windows[1].allow.timezone: is required",
      "acme-web.yaml:9:9: environments.prod.windows[2].alow: unknown key 'alow' (did you mean 'allow'?); allowed keys: allow, deny",
    ],
  },
  {
    dir: "window-bad-cron",
    it: "refuses a schedule that is not a five-field cron expression or that matches no date",
    errors: [
      `acme-web.yaml:6:28: environments.prod.windows[0].allow.schedule: is not a cron expression of five fields (minute hour day-of-month month day-of-week), e.g. "0 9 * * 1-5": Invalid value for hour: 25; got '0 25 * * 1-4'`,
      `acme-web.yaml:7:28: environments.prod.windows[1].allow.schedule: is not a cron expression of five fields (minute hour day-of-month month day-of-week), e.g. "0 9 * * 1-5": mode '5-part' requires exactly 5 parts, but pattern '0 0 9 * * 1' has 6 parts; got '0 0 9 * * 1'`,
      "acme-web.yaml:8:27: environments.prod.windows[2].deny.schedule: matches no date, so the window would never open; got '0 0 30 2 *'",
    ],
  },
  {
    dir: "window-unknown-zone",
    it: "refuses a time zone that the IANA database does not know",
    errors: [
      "acme-web.yaml:4:63: windows[0].deny.timezone: is not a time zone of the IANA database; write one such as Europe/London, America/New_York or UTC; got 'Europe/Lundon'",
    ],
  },
  {
    dir: "window-zero-duration",
    it: "refuses a window of zero duration, a bare number and an unknown unit",
    errors: [
      "acme-web.yaml:6:53: environments.prod.windows[0].allow.duration: must not be zero: a window that lasts no time never opens; got '0h'",
      "acme-web.yaml:7:53: environments.prod.windows[1].allow.duration: must be a duration such as 7h, 14d or 1h30m (a bare number has no unit); got the number 7",
      "acme-web.yaml:8:52: environments.prod.windows[2].deny.duration: must be a duration such as 7h, 14d or 1h30m (days d, hours h, minutes m, in that order); got '2w'",
    ],
  },
];

function errorsOf(dir: string): string[] {
  const caseDir = join(fixtures, dir);
  const result = loadDesiredStateSync(caseDir);
  expect(result.ok).toBe(false);
  return result.errors.map((error) =>
    formatErrorLine({ ...error, file: relative(caseDir, error.file) || "." }),
  );
}

describe("a bad configuration", () => {
  it.each(cases)("$it", ({ dir, errors }) => {
    expect(errorsOf(dir)).toEqual(errors);
  });

  it("corpus holds at least 30 cases and every case directory is listed", () => {
    const dirs = readdirSync(fixtures).sort();
    expect(dirs.length).toBeGreaterThanOrEqual(30);
    expect(cases.map((c) => c.dir).sort()).toEqual(dirs);
  });
});
