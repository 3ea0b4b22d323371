/**
 * A target other than the demo's, as an operator sets it up and uses it: `stackwright env`, then
 * plain `pulumi stack init` and `pulumi config set` (docs/guide.md, "Targets and per-file stacks"), then
 * the commands reading `Pulumi.production.yaml` with no STACKWRIGHT_* variable; the passphrase
 * rule (passphrase.ts) refusing before anything is written; the variables winning over the file;
 * and the messages naming the command as it is run, from a checkout and from node_modules.
 */
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect } from "vitest";
import { encryptedWithBuiltInPassphrase } from "../../src/project/passphrase";
import { TEST_USERS } from "../helpers/emulator";
import { fixtures, type InProcessEmulator } from "../helpers/fixtures";
import { repoRoot, type ScratchProject } from "../helpers/scratch-project";
import { runInProject } from "../helpers/in-process";
import { runToEnd, runToEndAsync } from "../helpers/stackwright-process";

const OPS = TEST_USERS.stackManager;
const test = fixtures();

describe("a production target", { timeout: 180_000 }, () => {
  let emulator: InProcessEmulator;
  let project: ScratchProject;
  /** The operator's own passphrase (never the built-in one). */
  const passphrase = crypto.randomBytes(18).toString("base64url");
  const settingsFile = () => path.join(project.dir, "Pulumi.production.yaml");
  /** Runs the built command (in this process, which serves the emulator too). */
  const run = (args: readonly string[], extra: Record<string, string> = {}) =>
    runInProject(project.dir, [...args, "--project", project.dir], { ...project.env, ...extra });
  /** The state backend's stacks, by name. */
  const stacksIn = (stateDir: string) => {
    const dir = path.join(stateDir, ".pulumi", "stacks", "stackwright");
    return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
  };

  test.beforeAll(({ emulatorInProcess, project: scratch }) => {
    [emulator, project] = [emulatorInProcess, scratch];
  });

  test("is created as docs/guide.md says: env makes the state directory and pulumi seals the token with the operator's passphrase", () => {
    const fresh = path.join(project.dir, ".stackwright", "fresh-state");
    const script = [
      'eval "$(node bin/stackwright.js env --target production)"',
      "pulumi stack init production",
      `pulumi config set stackwright:apiUrl ${emulator.url}`,
      `pulumi config set stackwright:email ${OPS.email}`,
      'pulumi config set --secret stackwright:apiToken "$TOKEN"',
    ].join(" && ");
    const created = runToEnd(project.dir, "bash", ["-c", script], {
      ...project.env,
      PULUMI_BACKEND_URL: pathToFileURL(fresh).href,
      PULUMI_CONFIG_PASSPHRASE: passphrase,
      TOKEN: OPS.token,
    });
    expect(created.status, created.out).toBe(0);
    const text = fs.readFileSync(settingsFile(), "utf8");
    expect(text).toContain("secure: ");
    expect(text).not.toContain(OPS.token);
    expect(encryptedWithBuiltInPassphrase(settingsFile())).toBe(false);
    expect(stacksIn(fresh)).toContain("production.json");
  });

  test("is read by history --target production with no STACKWRIGHT_* variable set", async () => {
    const { status, out } = await run(["history", "acme-web", "uat", "--target", "production"], {
      PULUMI_CONFIG_PASSPHRASE: passphrase,
    });
    expect(out).toContain("current build of acme-web/uat");
    expect(out).not.toContain(OPS.token);
    expect(status).toBe(0);
  });

  test("is read by status with the Pulumi CLI alone, without loading the engine's SDK", async () => {
    // The history run above made the CLI's version known; from then on the settings are read
    // by running the binary, and the SDK (its Automation API, gRPC) stays unloaded.
    const probe = path.join(project.dir, "probe.cjs");
    const report = path.join(project.dir, "loaded.json");
    fs.writeFileSync(
      probe,
      [
        "process.on('exit', () => {",
        "  const names = new Set();",
        // A package by name, the SDK by its folder: bin/stackwright.js puts two stand-ins of
        // runtime/closure in the module cache (src/lazy-sdk), which load nothing.
        "  for (const key of Object.keys(require.cache)) {",
        "    const m = /node_modules\\/(@pulumi\\/pulumi\\/[^/]+|(?:@[^/]+\\/)?[^/]+)/.exec(key);",
        "    if (m) names.add(m[1]);",
        "  }",
        `  require('node:fs').writeFileSync(${JSON.stringify(report)}, JSON.stringify([...names]));`,
        "});",
      ].join("\n"),
    );
    // In a process of its own: what that process loaded is the question.
    const { status, out } = await runToEndAsync(
      project.dir,
      process.execPath,
      [path.join(project.dir, "bin", "stackwright.js"), "status", "--target", "production"],
      { ...project.env, PULUMI_CONFIG_PASSPHRASE: passphrase, NODE_OPTIONS: `--require ${probe}` },
    );
    expect(status, out).toBe(0);
    const loaded = JSON.parse(fs.readFileSync(report, "utf8")) as string[];
    expect(loaded).toContain("zod"); // the probe sees what was loaded
    expect(loaded).toContain("@pulumi/pulumi/runtime"); // the stand-ins: the probe sees the SDK's files
    expect(
      loaded.filter((name) => name.startsWith("@pulumi/pulumi/") && name !== "@pulumi/pulumi/runtime"),
    ).toEqual([]);
    expect(loaded).not.toContain("@grpc/grpc-js");
  });

  test("is refused without a passphrase, in one line and before any file or state is written", async () => {
    const before = fs.readFileSync(settingsFile(), "utf8");
    const stacksBefore = stacksIn(project.stateDir);
    for (const args of [
      ["history", "acme-web", "uat", "--target", "production"],
      ["up", "--target", "production"],
      ["status", "--target", "production"],
    ]) {
      const { status, out } = await run(args);
      expect(out.trim().split("\n"), out).toEqual([
        expect.stringContaining(
          "target 'production' needs a secrets passphrase: set PULUMI_CONFIG_PASSPHRASE",
        ),
      ]);
      expect(status).toBe(2);
    }
    expect(fs.readFileSync(settingsFile(), "utf8")).toBe(before);
    expect(stacksIn(project.stateDir)).toEqual(stacksBefore);
  });

  test("is never created by env without a passphrase: no settings file, no state directory", async () => {
    const fresh = path.join(project.dir, ".stackwright", "staging-state");
    const { status, out } = await run(["env", "--target", "staging"], {
      PULUMI_BACKEND_URL: pathToFileURL(fresh).href,
    });
    expect(out.trim().split("\n")).toEqual([
      expect.stringContaining("target 'staging' needs a secrets passphrase"),
    ]);
    expect(status).toBe(2);
    expect(fs.existsSync(fresh)).toBe(false);
    expect(fs.existsSync(path.join(project.dir, "Pulumi.staging.yaml"))).toBe(false);
  });

  test("gives way to the variables: they win over the file, and with all three set the file is not read", async () => {
    const wrongToken = await run(["history", "acme-web", "uat", "--target", "production"], {
      PULUMI_CONFIG_PASSPHRASE: passphrase,
      STACKWRIGHT_API_TOKEN: "not-the-token",
    });
    expect(wrongToken.out).toContain(
      "refused the credentials of ops@example.com (401); check STACKWRIGHT_API_TOKEN",
    );
    expect(wrongToken.status).toBe(2);
    // No passphrase is needed when nothing is read from the file.
    const variables = await run(["history", "acme-web", "uat", "--target", "production"], emulator.env);
    expect(variables.out).toContain("current build of acme-web/uat");
    expect(variables.status).toBe(0);
  });

  test("names a production file sealed with the built-in passphrase as readable by anyone", async () => {
    const own = fs.readFileSync(settingsFile(), "utf8");
    // What the old README made: the demo's file, its token sealed with the public passphrase.
    fs.copyFileSync(path.join(repoRoot, "Pulumi.dev.yaml"), settingsFile());
    try {
      const without = await run(["history", "acme-web", "uat", "--target", "production"]);
      expect(without.out.trim().split("\n")).toEqual([
        expect.stringContaining("anyone who reads Pulumi.production.yaml can decrypt them"),
      ]);
      expect(without.status).toBe(2);
      const mine = await run(["preview", "--target", "production"], { PULUMI_CONFIG_PASSPHRASE: passphrase });
      expect(mine.out.trim().split("\n")).toEqual([
        expect.stringContaining("anyone who reads Pulumi.production.yaml can decrypt them"),
      ]);
      expect(mine.status).toBe(2);
    } finally {
      fs.writeFileSync(settingsFile(), own);
    }
  });

  test("points to --help after a flag error only, naming the command as run in a checkout", async () => {
    const flag = await run(["history", "acme-web", "uat", "--target", "prod.eu"]);
    expect(flag.out.trim().split("\n")).toEqual([
      "stackwright history: --target 'prod.eu' must be 1 to 40 letters, digits, '_' or '-' (no '.') (npm run stackwright -- history --help lists its flags)",
    ]);
    expect(flag.status).toBe(2);
    const missing = await run(["history", "acme-web", "uat", "--target", "nowhere"]);
    expect(missing.out).toContain("no API settings for target 'nowhere'");
    expect(missing.out).toContain("npm run stackwright -- env --target nowhere");
    expect(missing.out).not.toContain("--help");
    expect(missing.status).toBe(2);
  });

  test("names the settings file and the key when the file leaves a setting out", async () => {
    const partial = path.join(project.dir, "Pulumi.partial.yaml");
    fs.writeFileSync(
      partial,
      "config:\n  stackwright:apiUrl: https://api.example.com\n  stackwright:email: ops@example.com\n",
    );
    try {
      const run1 = await run(["history", "acme-web", "uat", "--target", "partial"], {
        PULUMI_CONFIG_PASSPHRASE: passphrase,
      });
      expect(run1.out.trim()).toBe(
        `no API settings for target 'partial': set STACKWRIGHT_API_TOKEN, or add stackwright:apiToken to ${partial}`,
      );
      expect(run1.status).toBe(2);
      // The engine commands read the file the same way, before any engine starts.
      const preview = await run(["preview", "--target", "partial"], { PULUMI_CONFIG_PASSPHRASE: passphrase });
      expect(preview.out.trim()).toBe(run1.out.trim());
      expect(preview.status).toBe(2);
    } finally {
      fs.rmSync(partial, { force: true });
    }
  });
});

describe("the command a message names, from an installed package", { timeout: 60_000 }, () => {
  test("is npx stackwright when the code lives under node_modules", ({ scratchDir: ops }) => {
    const installed = path.join(ops, "node_modules", "stackwright");
    fs.mkdirSync(installed, { recursive: true });
    for (const entry of ["package.json", "Pulumi.yaml", "bin", "dist"]) {
      fs.cpSync(path.join(repoRoot, entry), path.join(installed, entry), { recursive: true });
    }
    fs.symlinkSync(path.join(repoRoot, "node_modules"), path.join(installed, "node_modules"));
    const { status, out } = runToEnd(
      ops,
      process.execPath,
      [path.join(installed, "bin", "stackwright.js"), "validate", "--bogus"],
      { PATH: process.env["PATH"] ?? "" },
    );
    expect(out).toContain("(npx stackwright validate --help lists its flags)");
    expect(status).toBe(2);
  });
});
