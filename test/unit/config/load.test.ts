import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, expectTypeOf, it } from "vitest";
import {
  type ApprovalMode,
  type DeploymentConfig,
  type EnvironmentConfig,
  type LockConfig,
  type RecordActionConfig,
  type RestoreConfig,
  type SnapshotConfig,
  type StackConfig,
  ConfigValidationError,
  formatConfigErrors,
  loadDesiredState,
  loadDesiredStateOrThrow,
  loadDesiredStateSync,
  validateSources,
  validateStackFile,
} from "../../../src/config";

const exampleDir = join(__dirname, "../../../stacks-config");
const header = "# yaml-language-server: $schema=./schema.json\n";

describe("the example stacks-config", () => {
  it("loads with no errors", async () => {
    const result = await loadDesiredState(exampleDir);
    expect(result.errors).toEqual([]);
    expect(result.ok).toBe(true);
  });

  it("describes acme-web with uat and prod (under a change freeze) and a Page publish record, as the demo seed has them", () => {
    const result = loadDesiredStateSync(exampleDir);
    if (!result.ok) throw new Error(formatConfigErrors(result.errors));
    const [stack] = result.state.stacks;
    expect(result.state.stacks).toHaveLength(1);
    expect(stack?.stack).toBe("acme-web");
    expect(Object.keys(stack?.environments ?? {})).toEqual(["uat", "prod"]);
    expect(stack?.environments["uat"]?.deployment).toMatchObject({
      ref_type: "branch",
      ref: "main",
      fetch_first: true,
      timeout: 1800,
    });
    expect(stack?.environments["uat"]?.restores["from-nightly"]).toMatchObject({
      snapshot: "nightly-db",
      confirm: "uat",
    });
    expect(stack?.environments["prod"]?.deployment).toMatchObject({
      ref_type: "promote_from_uat",
      approval: "request",
      self_heal: true,
    });
    expect(stack?.environments["prod"]?.lock).toEqual({ message: "Change freeze until 2026-12-01" });
    expect(stack?.records).toEqual([{ class: "Page", id: "12", method: "publish", trigger: "2026-11-22" }]);
  });
});

describe("a good stack file", () => {
  it("gets the documented defaults for everything left out", () => {
    const text = `${header}stack: shop
environments:
  uat:
    deployment: { ref_type: sha, ref: 0a1b2c3d }
    lock: {}
    snapshots:
      before: {}
    restores:
      back: { snapshot: before, mode: db, confirm: uat }
`;
    const { stack, errors } = validateStackFile("shop.yaml", text);
    expect(errors).toEqual([]);
    expect(stack).toEqual({
      stack: "shop",
      environments: {
        uat: {
          deployment: {
            ref_type: "sha",
            ref: "0a1b2c3d",
            approval: "bypass_and_start",
            fetch_first: false,
            wait: true,
            self_heal: false,
            locked: false,
          },
          lock: { message: "" },
          snapshots: { before: { mode: "all", include_resampled: false, retain: false } },
          restores: { back: { snapshot: "before", mode: "db", skip_build: false, confirm: "uat" } },
          outputs: [],
          checks: [],
          windows: [],
        },
      },
      records: [],
      outputs: [],
      checks: [],
      windows: [],
      notify: [],
    });
  });

  it("needs only a stack name", () => {
    expect(validateStackFile("a.yaml", "stack: shop\n").stack).toEqual({
      stack: "shop",
      environments: {},
      records: [],
      outputs: [],
      checks: [],
      windows: [],
      notify: [],
    });
  });

  it("turns timeouts into seconds and numeric ids and triggers into strings", () => {
    const text = `stack: shop
environments:
  uat:
    deployment: { ref_type: redeploy, timeout: 1h30m, adopt: 77, trigger: 3 }
    restores:
      old: { snapshot: 4711, mode: all, confirm: uat, backup_existing_data: false }
records:
  - { class: Page, id: 12, method: publish }
  - { class: Page, id: home, method: publish }
`;
    const { stack, errors } = validateStackFile("a.yaml", text);
    expect(errors).toEqual([]);
    expect(stack?.environments["uat"]?.deployment).toMatchObject({
      timeout: 5400,
      adopt: "77",
      trigger: "3",
    });
    expect(stack?.environments["uat"]?.restores["old"]).toMatchObject({
      snapshot: "4711",
      backup_existing_data: false,
    });
    expect(stack?.records.map((record) => record.id)).toEqual(["12", "home"]);
  });

  it("accepts an empty ref with promote_from_uat", () => {
    const { errors } = validateStackFile(
      "a.yaml",
      'stack: s\nenvironments: { prod: { deployment: { ref_type: promote_from_uat, ref: "" } } }\n',
    );
    expect(errors).toEqual([]);
  });

  it("accepts a restore into one environment of a snapshot declared in another", () => {
    const text = `stack: s
environments:
  prod:
    snapshots: { copy: { mode: all } }
  uat:
    restores: { from-prod: { snapshot: copy, mode: assets, confirm: uat } }
`;
    expect(validateStackFile("a.yaml", text).errors).toEqual([]);
  });
});

describe("the values the program consumes", () => {
  it("carry defaults as values, durations as seconds and ids as strings", () => {
    const text = `stack: s
environments:
  prod:
    deployment: { ref_type: branch, ref: main, timeout: 1h30m, adopt: 42 }
    lock: {}
    snapshots: { nightly: {} }
    restores: { back: { snapshot: 7, mode: db, confirm: prod } }
records:
  - { class: Page, id: 12, method: publish, trigger: 2026 }
`;
    const { stack, errors } = validateStackFile("a.yaml", text);
    expect(errors).toEqual([]);
    const prod = stack?.environments["prod"];
    const deployment: DeploymentConfig | undefined = prod?.deployment;
    expect(deployment).toEqual({
      ref_type: "branch",
      ref: "main",
      approval: "bypass_and_start",
      fetch_first: false,
      wait: true,
      timeout: 5400,
      self_heal: false,
      locked: false,
      adopt: "42",
    });
    const lock: LockConfig | undefined = prod?.lock;
    expect(lock).toEqual({ message: "" });
    const snapshot: SnapshotConfig | undefined = prod?.snapshots["nightly"];
    expect(snapshot).toEqual({ mode: "all", include_resampled: false, retain: false });
    const restore: RestoreConfig | undefined = prod?.restores["back"];
    expect(restore).toEqual({ snapshot: "7", mode: "db", skip_build: false, confirm: "prod" });
    const record: RecordActionConfig | undefined = stack?.records[0];
    expect(record).toEqual({ class: "Page", id: "12", method: "publish", trigger: "2026" });
  });
});

// The same shapes at the type level. expectTypeOf is erased at run time, so vitest cannot fail
// these; `npm run typecheck` (tsc over test/) does when an inferred type drifts.
expectTypeOf<DeploymentConfig["approval"]>().toEqualTypeOf<ApprovalMode>();
expectTypeOf<DeploymentConfig["wait"]>().toEqualTypeOf<boolean>();
expectTypeOf<DeploymentConfig["timeout"]>().toEqualTypeOf<number | undefined>();
expectTypeOf<DeploymentConfig["adopt"]>().toEqualTypeOf<string | undefined>();
expectTypeOf<LockConfig["message"]>().toEqualTypeOf<string>();
expectTypeOf<SnapshotConfig["retain"]>().toEqualTypeOf<boolean>();
expectTypeOf<RestoreConfig["snapshot"]>().toEqualTypeOf<string>();
expectTypeOf<RecordActionConfig["id"]>().toEqualTypeOf<string>();
expectTypeOf<EnvironmentConfig["snapshots"]>().toEqualTypeOf<Record<string, SnapshotConfig>>();
expectTypeOf<StackConfig["environments"]>().toEqualTypeOf<Record<string, EnvironmentConfig>>();

describe("error reporting", () => {
  it("reports every error of several files at once, ordered by file and line", () => {
    const result = validateSources([
      { file: "b.yaml", text: "stack: b\nenvironments:\n  uat:\n    deployment: { ref_type: nope }\n" },
      { file: "a.yaml", text: "stack: a\nextra: 1\nrecords: {}\n" },
      { file: "c.yaml", text: "stack: [c\n" },
    ]);
    expect(result.ok).toBe(false);
    expect(result.errors.map((error) => [error.file, error.line, error.column])).toEqual([
      ["a.yaml", 2, 1],
      ["a.yaml", 3, 10],
      ["b.yaml", 4, 29],
      ["c.yaml", 1, 10],
    ]);
  });

  it("reports schema faults and cross-field faults of one file together", () => {
    const text = `stack: s
environments:
  uat:
    deployment: { ref_type: redeploy, ref: main, wait: 1 }
    restores:
      r: { snapshot: missing, mode: db, confirm: prod }
`;
    const messages = validateStackFile("a.yaml", text).errors.map((error) => `${error.line}:${error.path}`);
    expect(messages).toEqual([
      "4:environments.uat.deployment.ref",
      "4:environments.uat.deployment.wait",
      "6:environments.uat.restores.r.snapshot",
      "6:environments.uat.restores.r.confirm",
    ]);
  });

  it("reports an alias bomb as an error instead of expanding it", () => {
    const levels = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
    for (let level = 1; level < 8; level += 1) {
      const previous = String.fromCharCode(96 + level);
      const name = String.fromCharCode(97 + level);
      levels.push(`${name}: &${name} [${Array.from({ length: 10 }, () => `*${previous}`).join(", ")}]`);
    }
    const { errors } = validateStackFile("bomb.yaml", `${levels.join("\n")}\nstack: s\n`);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toMatch(/^the file cannot be read as data: /);
  });

  it("shows the source line and a caret under the column", () => {
    const { errors } = validateStackFile(
      "acme.yaml",
      "stack: acme\nenvironments:\n  uat: { lock: { msg: x } }\n",
    );
    expect(formatConfigErrors(errors)).toBe(
      [
        "acme.yaml:3:18: environments.uat.lock.msg: unknown key 'msg'; allowed keys: message",
        "  3 |   uat: { lock: { msg: x } }",
        "    |                  ^",
        "1 error in stacks config",
        "",
      ].join("\n"),
    );
  });

  it("keeps a tab before the column in the caret line so the caret stays aligned", () => {
    const formatted = formatConfigErrors([
      { file: "f.yaml", line: 1, column: 3, path: "x", message: "bad", lineText: "\tab" },
    ]);
    expect(formatted.split("\n")[2]).toBe("    | \t ^");
  });

  it("throws a ConfigValidationError listing every error when asked to", async () => {
    const dir = scratchDir();
    writeFileSync(join(dir, "a.yaml"), "stack: a/b\n");
    const thrown = await loadDesiredStateOrThrow(dir).catch((error: unknown) => error);
    expect(ConfigValidationError.isInstance(thrown)).toBe(true);
    if (!ConfigValidationError.isInstance(thrown)) return;
    expect(thrown.errors).toHaveLength(1);
    expect(thrown.message).toContain("a.yaml:1:8: stack: must not contain '/'");
  });
});

describe("the directory loader", () => {
  it("reads .yaml and .yml files and skips schema.json, hidden files and subdirectories", async () => {
    const dir = scratchDir();
    writeFileSync(join(dir, "one.yaml"), "stack: one\n");
    writeFileSync(join(dir, "two.yml"), "stack: two\n");
    writeFileSync(join(dir, "schema.json"), "{}");
    writeFileSync(join(dir, ".draft.yaml"), "stack: [broken\n");
    mkdirSync(join(dir, "old"));
    writeFileSync(join(dir, "old", "three.yaml"), "stack: [broken\n");
    const result = await loadDesiredState(dir);
    expect(result.errors).toEqual([]);
    if (!result.ok) return;
    expect(result.state.stacks.map((stack) => stack.stack)).toEqual(["one", "two"]);
    expect(result.state.sourceFiles).toEqual({ one: join(dir, "one.yaml"), two: join(dir, "two.yml") });
  });

  it("gives the same result synchronously and asynchronously", async () => {
    // `locate` is a closure over each run's parsed files: compare what it answers, not its identity.
    const sync = loadDesiredStateSync(exampleDir);
    const async = await loadDesiredState(exampleDir);
    const data = (result: typeof sync) =>
      result.ok ? { ...result, state: { ...result.state, locate: undefined } } : result;
    expect(data(sync)).toEqual(data(async));
    const where = (result: typeof sync) =>
      result.ok && result.state.locate("acme-web", ["environments", "prod"], "m");
    expect(where(sync)).toEqual(where(async));
  });

  it("orders stacks by name, whatever the file names", () => {
    const result = validateSources([
      { file: "1.yaml", text: "stack: zeta\n" },
      { file: "2.yaml", text: "stack: alpha\n" },
    ]);
    expect(result.ok && result.state.stacks.map((stack) => stack.stack)).toEqual(["alpha", "zeta"]);
  });

  it("fails when a stack file cannot be read, so that its stack never looks deleted", async () => {
    const dir = scratchDir();
    writeFileSync(join(dir, "good.yaml"), "stack: good\n");
    symlinkSync(join(dir, "nowhere.yaml"), join(dir, "gone.yaml"));
    const result = await loadDesiredState(dir);
    expect(result.ok).toBe(false);
    expect(result.errors.map((error) => [error.file, error.message])).toEqual([
      [join(dir, "gone.yaml"), "the file cannot be read (ENOENT)"],
    ]);
    expect(loadDesiredStateSync(dir).errors).toEqual(result.errors);
  });

  it("reports a missing directory as an error instead of throwing", async () => {
    const missing = join(scratchDir(), "nope");
    const result = await loadDesiredState(missing);
    expect(result.errors).toEqual([
      {
        file: missing,
        line: 1,
        column: 1,
        path: "",
        message: "the config directory does not exist",
        lineText: "",
      },
    ]);
  });
});

const scratch: string[] = [];
function scratchDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "stackwright-config-"));
  scratch.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});
