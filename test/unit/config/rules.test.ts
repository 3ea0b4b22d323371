import { describe, expect, it } from "vitest";
import {
  DURATION_BOUNDS,
  formatErrorLine,
  SAFE_NAME_PATTERN,
  nameProblem,
  parseDuration,
  resolveRestoreSnapshot,
  validateStackFile,
} from "../../../src/config";

describe("parseDuration", () => {
  it.each([
    ["30m", 1800],
    ["90s", 90],
    ["1h30m", 5400],
    ["2h", 7200],
    ["1h0m10s", 3610],
    ["10s", DURATION_BOUNDS.minSeconds],
    ["24h", DURATION_BOUNDS.maxSeconds],
  ])("reads %s as %i seconds", (text, seconds) => {
    expect(parseDuration(text)).toEqual({ ok: true, seconds });
  });

  it.each(["", "30", "m", "30 m", "1m1h", "1.5h", "-5m", "30min"])(
    "refuses the malformed duration '%s'",
    (text) => {
      const result = parseDuration(text);
      expect(result.ok).toBe(false);
    },
  );

  it("refuses durations outside 10s to 24h and says how many seconds were asked", () => {
    expect(parseDuration("9s")).toEqual({
      ok: false,
      message: "must be between 10s and 24h; got '9s' (9 seconds)",
    });
    expect(parseDuration("24h1s").ok).toBe(false);
  });
});

describe("names", () => {
  const unsafe = [
    "",
    "a/b",
    "a\\b",
    "..",
    ".",
    "a..b",
    "a b",
    "a\tb",
    "a\nb",
    "a\u0000b",
    "a\u007fb",
    "a?b",
    "a#b",
    "a%2F",
  ];
  const safe = ["uat", "prod", "acme-web", "nightly_db", "v1.2", "Page", "été", "a.b"];

  it.each(unsafe)("refuses %j because it could alter an API path", (name) => {
    expect(nameProblem(name)).toBeDefined();
  });

  it.each(safe)("accepts %j", (name) => {
    expect(nameProblem(name)).toBeUndefined();
  });

  it("matches the JSON Schema pattern on every sample, so editors and the loader agree", () => {
    const pattern = new RegExp(SAFE_NAME_PATTERN, "u");
    for (const name of unsafe) expect(pattern.test(name), JSON.stringify(name)).toBe(false);
    for (const name of safe) expect(pattern.test(name), JSON.stringify(name)).toBe(true);
  });
});

const stackText = `stack: s
environments:
  uat:
    snapshots: { nightly: { mode: db } }
    restores:
      by-name: { snapshot: nightly, mode: db, confirm: uat }
  prod:
    lock: { message: freeze }
    restores:
      by-id: { snapshot: 4711, mode: all, confirm: prod }
`;

function stack() {
  const { stack: parsed, errors } = validateStackFile("s.yaml", stackText);
  if (parsed === undefined) throw new Error(JSON.stringify(errors));
  return parsed;
}

describe("resolveRestoreSnapshot", () => {
  it("resolves a logical name to the environment that declares the snapshot", () => {
    const parsed = stack();
    const restore = parsed.environments["uat"]?.restores["by-name"];
    if (restore === undefined) throw new Error("fixture");
    expect(resolveRestoreSnapshot(parsed, restore)).toEqual({
      kind: "declared",
      environment: "uat",
      name: "nightly",
      snapshot: { mode: "db", include_resampled: false, retain: false },
    });
  });

  it("resolves digits to a platform snapshot id", () => {
    const parsed = stack();
    const restore = parsed.environments["prod"]?.restores["by-id"];
    if (restore === undefined) throw new Error("fixture");
    expect(resolveRestoreSnapshot(parsed, restore)).toEqual({ kind: "id", id: "4711" });
  });
});
describe("rules shared with the client (src/api)", () => {
  it("refuses an environment name over 200 characters, as the client does, at its line", () => {
    const name = "e".repeat(201);
    const { errors } = validateStackFile("s.yaml", `stack: s\nenvironments:\n  ${name}: {}\n`);
    expect(errors.map(formatErrorLine)).toEqual([
      `s.yaml:3:3: environments.${name}: environment name '${name}' must not be longer than 200 characters (it has 201)`,
    ]);
  });

  it("refuses a C1 control character in a stack name, as the client does", () => {
    const { errors } = validateStackFile("s.yaml", 'stack: "a\\u0085b"\n');
    expect(errors.map(formatErrorLine)).toEqual([
      "s.yaml:1:8: stack: must not contain control characters (it would change the API path); got 'a\u0085b'",
    ]);
  });

  it("refuses a restore of snapshot id 007, which no platform id can be", () => {
    const { errors } = validateStackFile(
      "s.yaml",
      "stack: s\nenvironments:\n  uat:\n    restores:\n      r: { snapshot: '007', mode: db, confirm: uat }\n",
    );
    expect(errors.map(formatErrorLine)).toEqual([
      "s.yaml:5:22: environments.uat.restores.r.snapshot: must name a snapshot declared in this file or be a positive numeric snapshot id; got '007'",
    ]);
  });
});
