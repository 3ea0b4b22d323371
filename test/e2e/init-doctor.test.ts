/**
 * `stackwright init` and `stackwright doctor` as a user runs them: the build of a copy of the
 * package (with workflow templates), run in this process as its bin/stackwright.js runs it
 * (test/helpers/in-process.ts), in temporary directories, with the real Pulumi CLI sealing the
 * token and the test emulator answering the API check.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { LocalWorkspace } from "@pulumi/pulumi/automation";
import { describe, expect } from "vitest";
import { engineEnv, pulumiCommand } from "../../src/project/engine-env";
import { targetApiConfig, type Target } from "../../src/cli/fleet/open-target";
import { TEST_USERS } from "../helpers/emulator";
import { fixtures, type InProcessEmulator } from "../helpers/fixtures";
import { repoRoot, type ScratchProject } from "../helpers/scratch-project";
import { runInProject } from "../helpers/in-process";
import type { Finished } from "../helpers/stackwright-process";

/** The package's own templates once the checkout has them; the stand-ins of test/fixtures before. */
const TEMPLATES = fs.existsSync(path.join(repoRoot, "templates", "workflows"))
  ? path.join(repoRoot, "templates")
  : path.join(repoRoot, "test", "fixtures", "templates");

const PASSPHRASE = `init-test-${process.pid}-${Date.now()}`;
const TOKEN = TEST_USERS.stackManager.token;
const EMAIL = TEST_USERS.stackManager.email;

/** The package (`tool`: a scratch copy of the project with the templates) and the emulator, for the file. */
const test = fixtures();
let tool: ScratchProject;
let emulator: InProcessEmulator;
let version: string;
let workflows: string[];

test.beforeAll(({ project, emulatorInProcess }) => {
  [tool, emulator] = [project, emulatorInProcess];
  fs.cpSync(TEMPLATES, path.join(tool.dir, "templates"), { recursive: true });
  version = (JSON.parse(fs.readFileSync(path.join(tool.dir, "package.json"), "utf8")) as { version: string })
    .version;
  workflows = fs
    .readdirSync(path.join(tool.dir, "templates", "workflows"))
    .filter((f) => f.endsWith(".yml"))
    .map((f) => `.github/workflows/${f}`);
});

/** The user's environment: Node 24 first on PATH, and only the settings the test gives. */
function userEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(STACKWRIGHT_|PULUMI_)/.test(key)) env[key] = value;
  }
  return { ...env, PATH: tool.env["PATH"] ?? "", ...extra };
}

/** `node <package>/bin/stackwright.js ARGS` run in `cwd`, in this process (test/helpers/in-process.ts). */
function stackwright(cwd: string, args: readonly string[], env = userEnv()): Promise<Finished> {
  return runInProject(cwd, args, env, tool.dir);
}

/** Every file under `dir` (relative path → text). */
function snapshot(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  if (!fs.existsSync(dir)) return files;
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    files.set(path.relative(dir, full), fs.readFileSync(full, "utf8"));
  }
  return files;
}

const SETTINGS = ["--api-url", "", "--email", EMAIL];
const settings = () => SETTINGS.map((a) => (a === "" ? emulator.url : a));

/** `init FLAGS` in `dir` with the API settings and the target's passphrase, as a user runs it. */
function initIn(dir: string, ...flags: string[]): Promise<Finished> {
  return stackwright(
    dir,
    ["init", ...flags, ...settings()],
    userEnv({ PULUMI_CONFIG_PASSPHRASE: PASSPHRASE }),
  );
}

const LISTED = [
  "package.json",
  "Pulumi.yaml",
  "stacks-config/schema.json",
  "Pulumi.production.yaml",
  ".gitignore",
  "README.md",
];

describe("stackwright init", () => {
  let ops: string;
  let first: Finished;

  test.beforeAll(async ({ fileScratchDir }) => {
    ops = path.join(fileScratchDir, "ops");
    first = await stackwright(
      path.dirname(ops),
      ["init", "ops", ...settings()],
      userEnv({ PULUMI_CONFIG_PASSPHRASE: PASSPHRASE, STACKWRIGHT_API_TOKEN: TOKEN }),
    );
  });

  test("writes the ops repository's files into an empty directory, lists them and ends with the next commands", () => {
    expect(first.status, first.out).toBe(0);
    expect([...snapshot(ops).keys()].sort()).toEqual([...LISTED, ...workflows].sort());
    for (const file of [...LISTED, ...workflows])
      expect(first.out).toMatch(new RegExp(`wrote +${file.replace(/[.]/g, "\\.")}`));
    expect(first.out).toContain(
      "npm install\n  npx stackwright import --all --target production\n  npx stackwright preview",
    );
    const pkg = JSON.parse(fs.readFileSync(path.join(ops, "package.json"), "utf8")) as Record<
      string,
      unknown
    >;
    expect(pkg).toMatchObject({
      dependencies: { stackwright: version },
      scripts: { stackwright: "stackwright" },
    });
    expect(fs.readFileSync(path.join(ops, "Pulumi.yaml"), "utf8")).toContain(
      "main: node_modules/stackwright/dist/src/program/main.js",
    );
  });

  test("checks the API URL with one request and says who it signed in as", () => {
    expect(first.out).toContain(`checked, signed in as ${EMAIL}`);
  });

  test("seals the token as a Pulumi secret that the target's settings read opens, and writes it nowhere else", async () => {
    const file = fs.readFileSync(path.join(ops, "Pulumi.production.yaml"), "utf8");
    expect(file).toMatch(/stackwright:apiToken:\n\s+secure: v1:/);
    for (const [name, text] of snapshot(ops)) expect(text, name).not.toContain(TOKEN);
    expect(first.out).not.toContain(TOKEN);
    const env = {
      ...engineEnv({ projectDir: ops, baseEnv: userEnv({ PULUMI_CONFIG_PASSPHRASE: PASSPHRASE }) }),
      PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
    };
    const workspace = await LocalWorkspace.create({
      workDir: ops,
      envVars: env,
      pulumiCommand: await pulumiCommand(repoRoot),
    });
    const target: Target = {
      name: "production",
      projectDir: ops,
      configFile: path.join(ops, "Pulumi.production.yaml"),
      env,
      given: userEnv({ PULUMI_CONFIG_PASSPHRASE: PASSPHRASE }),
      workspace: () => Promise.resolve(workspace),
      pulumiVersion: workspace.pulumiVersion,
      stacks: { has: () => Promise.resolve(false), resourceCount: () => Promise.resolve(0) },
      hosts: undefined,
    };
    const config = await targetApiConfig(target, (line) => expect.fail(`nothing to repair, yet: ${line}`));
    expect(["stackwright:apiUrl", "stackwright:email", "stackwright:apiToken"].map(config)).toEqual([
      emulator.url,
      EMAIL,
      TOKEN,
    ]);
  });

  test("changes nothing when run a second time, and lists every file as kept", async () => {
    const before = snapshot(ops);
    const again = await stackwright(
      ops,
      ["init", ...settings()],
      userEnv({ PULUMI_CONFIG_PASSPHRASE: PASSPHRASE, STACKWRIGHT_API_TOKEN: TOKEN }),
    );
    expect(again.status, again.out).toBe(0);
    expect(snapshot(ops)).toEqual(before);
    for (const file of [...LISTED, ...workflows])
      expect(again.out).toMatch(new RegExp(`kept +${file.replace(/[.]/g, "\\.")} `));
    expect(again.out).not.toMatch(/wrote|added/);
  });

  test("on a fresh ops repository, doctor finds nothing behind", async () => {
    const doctor = await stackwright(ops, ["doctor", "--project", ops]);
    expect(doctor.out).toContain(`up to date with stackwright ${version}`);
    expect(doctor.status, doctor.out).toBe(0);
  });

  test("doctor names a workflow whose version was edited, and --write puts the installed version back", async () => {
    // A workflow that names the version where the template has its placeholder.
    const workflow = workflows.find((w) =>
      fs.readFileSync(path.join(ops, w), "utf8").includes(`@v${version}`),
    );
    if (workflow === undefined) throw new Error(`no workflow template names the action @v${version}`);
    const file = path.join(ops, workflow);
    const written = fs.readFileSync(file, "utf8");
    fs.writeFileSync(file, written.replaceAll(`@v${version}`, "@v0.0.1"));
    const behind = await stackwright(ops, ["doctor", "--project", ops]);
    expect(behind.status, behind.out).toBe(1);
    expect(behind.out).toContain(
      `behind: ${workflow}: differs from stackwright ${version}'s template only by the version`,
    );
    const fixed = await stackwright(ops, ["doctor", "--project", ops, "--write"]);
    expect(fixed.status, fixed.out).toBe(0);
    expect(fixed.out).toContain(`updated ${workflow}`);
    expect(fixed.out).toMatch(/^-.*@v0\.0\.1/m);
    expect(fs.readFileSync(file, "utf8")).toBe(written);
    expect((await stackwright(ops, ["doctor", "--project", ops])).status).toBe(0);
  });

  test("doctor names a target whose secrets the public demo passphrase opens and notes one without secrets, but not the demo's dev target", async () => {
    const demo = fs.readFileSync(path.join(repoRoot, "Pulumi.dev.yaml"), "utf8");
    const staging = path.join(ops, "Pulumi.staging.yaml");
    const dev = path.join(ops, "Pulumi.dev.yaml");
    const plain = path.join(ops, "Pulumi.ci.yaml");
    fs.writeFileSync(staging, demo);
    fs.writeFileSync(dev, demo);
    fs.writeFileSync(plain, "config:\n  stackwright:email: ci@example.com\n");
    try {
      const doctor = await stackwright(ops, ["doctor", "--project", ops]);
      expect(doctor.status, doctor.out).toBe(1);
      expect(doctor.out).toContain(
        "behind: Pulumi.staging.yaml: its secrets are sealed with Stackwright's public demo passphrase",
      );
      expect(doctor.out).toContain("note: Pulumi.ci.yaml: has no secrets of its own");
      expect(doctor.out).not.toContain("Pulumi.dev.yaml");
      expect(doctor.out).not.toContain("Pulumi.production.yaml");
    } finally {
      fs.rmSync(staging);
      fs.rmSync(dev);
      fs.rmSync(plain);
    }
  });

  test("refuses a passphrase that does not open the target file's secrets, leaving every file as it was", async ({
    scratchDir: other,
  }) => {
    const sealed = fs.readFileSync(path.join(ops, "Pulumi.production.yaml"), "utf8");
    const salt = /^encryptionsalt: .*$/m.exec(sealed)?.[0] ?? "";
    fs.writeFileSync(
      path.join(other, "Pulumi.production.yaml"),
      `config:\n  stackwright:email: ${EMAIL}\n${salt}\n`,
    );
    const before = snapshot(other);
    const result = await stackwright(
      other,
      ["init"],
      userEnv({ PULUMI_CONFIG_PASSPHRASE: "not-the-passphrase", STACKWRIGHT_API_TOKEN: TOKEN }),
    );
    expect(result.status, result.out).toBe(2);
    expect(result.out).toContain(
      "stackwright init: Pulumi could not encrypt the token into Pulumi.production.yaml",
    );
    expect(snapshot(other)).toEqual(before);
  });

  test("doctor --write keeps a workflow the team changed and shows how it differs from the template", async () => {
    const workflow = workflows[0] ?? "";
    const file = path.join(ops, workflow);
    const written = fs.readFileSync(file, "utf8");
    const changed = `${written}      - run: echo our own step\n`;
    fs.writeFileSync(file, changed);
    try {
      const doctor = await stackwright(ops, ["doctor", "--project", ops, "--write"]);
      expect(doctor.out).toContain(`note: ${workflow}: changed by hand`);
      expect(doctor.out).toContain("-      - run: echo our own step");
      expect(fs.readFileSync(file, "utf8")).toBe(changed);
      expect(doctor.status, doctor.out).toBe(0);
    } finally {
      fs.writeFileSync(file, written);
    }
  });
});

describe("stackwright init with files already there", () => {
  test("keeps an existing package.json that depends on stackwright and adds only the script and the install scripts' review", async ({
    scratchDir: ops,
  }) => {
    const existing =
      '{\n    "name": "our-ops",\n    "devDependencies": {\n        "stackwright": "^0.1.0"\n    }\n}\n';
    fs.writeFileSync(path.join(ops, "package.json"), existing);
    const result = await initIn(ops, "--ci", "none");
    expect(result.status, result.out).toBe(0);
    expect(result.out).toContain(
      "added   package.json: scripts.stackwright, package.json: allowScripts.protobufjs",
    );
    expect(fs.readFileSync(path.join(ops, "package.json"), "utf8")).toBe(
      '{\n    "name": "our-ops",\n    "devDependencies": {\n        "stackwright": "^0.1.0"\n    },\n' +
        '    "scripts": {\n        "stackwright": "stackwright"\n    },\n' +
        '    "allowScripts": {\n        "protobufjs": false\n    }\n}\n',
    );
  });

  test("never overwrites a file that exists, and says it left it as it was", async ({ scratchDir: ops }) => {
    const ours: Record<string, string> = {
      "README.md": "# ours\n",
      ".gitignore": "secrets/\n",
      "Pulumi.production.yaml": "config:\n  stackwright:apiUrl: https://api.example.com\n",
      [workflows[0] ?? ""]: "name: ours\n",
    };
    for (const [file, text] of Object.entries(ours)) {
      fs.mkdirSync(path.dirname(path.join(ops, file)), { recursive: true });
      fs.writeFileSync(path.join(ops, file), text);
    }
    const result = await initIn(ops);
    expect(result.status, result.out).toBe(0);
    for (const [file, text] of Object.entries(ours)) {
      expect(fs.readFileSync(path.join(ops, file), "utf8")).toBe(text);
      expect(result.out).toContain(`kept    ${file} (exists; left as it was)`);
    }
    expect(fs.existsSync(path.join(ops, "Pulumi.yaml"))).toBe(true);
  });

  test("adds the token to a target file that has none, and changes nothing else in it", async ({
    scratchDir: ops,
  }) => {
    const file = path.join(ops, "Pulumi.production.yaml");
    const ours = `# ours\nconfig:\n  stackwright:apiUrl: ${emulator.url} # the test's\n  stackwright:email: ${EMAIL}\n`;
    fs.writeFileSync(file, ours);
    const result = await stackwright(
      ops,
      ["init", "--ci", "none"],
      userEnv({ PULUMI_CONFIG_PASSPHRASE: PASSPHRASE, STACKWRIGHT_API_TOKEN: TOKEN }),
    );
    expect(result.status, result.out).toBe(0);
    expect(result.out).toContain("added   Pulumi.production.yaml: stackwright:apiToken (a Pulumi secret)");
    const after = fs.readFileSync(file, "utf8");
    expect(after.startsWith(ours)).toBe(true);
    expect(after.slice(ours.length)).toMatch(
      /^ {2}stackwright:apiToken:\n {4}secure: v1:\S+\nencryptionsalt: v1:\S+\n$/,
    );
  });

  test("says an API URL it cannot reach is written unchecked, and does not fail", async ({
    scratchDir: ops,
  }) => {
    const result = await stackwright(
      ops,
      ["init", "--ci", "none", "--api-url", "http://127.0.0.1:9", "--email", EMAIL],
      userEnv({ PULUMI_CONFIG_PASSPHRASE: PASSPHRASE, STACKWRIGHT_API_TOKEN: TOKEN }),
    );
    expect(result.status, result.out).toBe(0);
    expect(result.out).toContain("API http://127.0.0.1:9: written as given, unchecked: cannot reach the API");
    expect(fs.readFileSync(path.join(ops, "Pulumi.production.yaml"), "utf8")).toContain("http://127.0.0.1:9");
  });
});

describe("stackwright init refuses", () => {
  test("a target that is not a Pulumi stack name, with the rule, writing nothing", async ({
    scratchDir: ops,
  }) => {
    const result = await initIn(ops, "--target", "prod.eu");
    expect(result.status).toBe(2);
    expect(result.out.split("\n")[0]).toBe(
      "stackwright init: --target 'prod.eu' must be 1 to 40 letters, digits, '_' or '-' (no '.') (npm run stackwright -- init --help lists its flags)",
    );
    expect(snapshot(ops).size).toBe(0);
  });

  test("a target other than the demo's without a passphrase of its own, in one line, writing nothing", async ({
    scratchDir: ops,
  }) => {
    const result = await stackwright(ops, ["init", ...settings()], userEnv({ STACKWRIGHT_API_TOKEN: TOKEN }));
    expect(result.status).toBe(2);
    expect(result.out.trim().split("\n")).toHaveLength(1);
    expect(result.out).toContain(
      "target 'production' needs a secrets passphrase: set PULUMI_CONFIG_PASSPHRASE",
    );
    expect(snapshot(ops).size).toBe(0);
  });

  test("a package.json that is not JSON, in one line, writing nothing", async ({ scratchDir: ops }) => {
    fs.writeFileSync(path.join(ops, "package.json"), '{ "name": "ops", }\n');
    const result = await initIn(ops, "--ci", "none");
    expect(result.status).toBe(2);
    expect(result.out.trim().split("\n")).toHaveLength(1);
    expect(result.out).toContain(
      `stackwright init: ${path.join(ops, "package.json")} is not a package.json init can add to`,
    );
    expect([...snapshot(ops).keys()]).toEqual(["package.json"]);
  });

  test("nothing with --dry-run, which shows what it would write", async ({ scratchDir }) => {
    const ops = path.join(scratchDir, "ops");
    const result = await stackwright(
      path.dirname(ops),
      ["init", "ops", "--dry-run", ...settings()],
      userEnv({ PULUMI_CONFIG_PASSPHRASE: PASSPHRASE, STACKWRIGHT_API_TOKEN: TOKEN }),
    );
    expect(result.status, result.out).toBe(0);
    expect(result.out).toContain("would write Pulumi.yaml\n    # The Pulumi project");
    expect(result.out).toContain("nothing was written (--dry-run)");
    expect(result.out).not.toContain(TOKEN);
    expect(fs.existsSync(ops)).toBe(false);
  });
});

describe("an upgrade by version", () => {
  test("doctor says what is behind the newly installed version, --write replaces the untouched workflows, and bumping the dependency is the user's", async ({
    scratchDir: ops,
  }) => {
    const made = await initIn(ops);
    expect(made.status, made.out).toBe(0);
    const manifest = path.join(tool.dir, "package.json");
    const installed = fs.readFileSync(manifest, "utf8");
    fs.writeFileSync(manifest, installed.replace(`"version": "${version}"`, '"version": "9.9.9"'));
    try {
      const behind = await stackwright(ops, ["doctor", "--project", ops]);
      expect(behind.status, behind.out).toBe(1);
      for (const workflow of workflows) {
        expect(behind.out).toContain(
          `behind: ${workflow}: stackwright ${version}'s workflow, unchanged since written`,
        );
      }
      expect(behind.out).toContain(
        `behind: package.json: asks for stackwright ${version}, but 9.9.9 is installed`,
      );
      const written = await stackwright(ops, ["doctor", "--project", ops, "--write"]);
      expect(written.status, written.out).toBe(1);
      for (const workflow of workflows) {
        expect(fs.readFileSync(path.join(ops, workflow), "utf8")).toContain(
          "(stackwright 9.9.9, target production)",
        );
      }
      const pkg = path.join(ops, "package.json");
      fs.writeFileSync(
        pkg,
        fs.readFileSync(pkg, "utf8").replace(`"stackwright": "${version}"`, '"stackwright": "9.9.9"'),
      );
      const clean = await stackwright(ops, ["doctor", "--project", ops]);
      expect(clean.status, clean.out).toBe(0);
    } finally {
      fs.writeFileSync(manifest, installed);
    }
  });
});

describe("the review of the dependencies' install scripts", () => {
  test("doctor names a package.json that lacks it, --write records it and changes nothing else, and a team's own entry stands", async ({
    scratchDir: ops,
  }) => {
    const made = await initIn(ops, "--ci", "none");
    expect(made.status, made.out).toBe(0);
    const pkg = path.join(ops, "package.json");
    const { allowScripts, ...earlier } = JSON.parse(fs.readFileSync(pkg, "utf8")) as Record<string, unknown>;
    expect(allowScripts).toEqual({ protobufjs: false });
    // As an earlier version's init wrote it.
    fs.writeFileSync(pkg, `${JSON.stringify(earlier, null, 2)}\n`);

    const behind = await stackwright(ops, ["doctor", "--project", ops]);
    expect(behind.status, behind.out).toBe(1);
    expect(behind.out).toContain(
      "behind: package.json: allowScripts says nothing of the install script of protobufjs, so npm warns on every install",
    );
    const written = await stackwright(ops, ["doctor", "--project", ops, "--write"]);
    expect(written.status, written.out).toBe(0);
    expect(written.out).toContain('+  "allowScripts": {');
    expect(JSON.parse(fs.readFileSync(pkg, "utf8"))).toEqual({
      ...earlier,
      allowScripts: { protobufjs: false },
    });

    // The team approved a pinned release itself: that is a review too.
    fs.writeFileSync(
      pkg,
      `${JSON.stringify({ ...earlier, allowScripts: { "protobufjs@7.6.6": true } }, null, 2)}\n`,
    );
    const clean = await stackwright(ops, ["doctor", "--project", ops]);
    expect(clean.status, clean.out).toBe(0);

    // A review that is not an object is named where it is, and --write leaves the file alone.
    const broken = `${JSON.stringify({ ...earlier, allowScripts: true }, null, 2)}\n`;
    fs.writeFileSync(pkg, broken);
    const refused = await stackwright(ops, ["doctor", "--project", ops, "--write"]);
    expect(refused.status, refused.out).toBe(1);
    expect(refused.out).toMatch(
      /^behind: package\.json: is not a package\.json doctor can check: at allowScripts: .+: fix it$/m,
    );
    expect(fs.readFileSync(pkg, "utf8")).toBe(broken);
  });
});

describe("stackwright doctor", () => {
  test("outside an ops repository says so in one line (exit 2)", async ({ scratchDir: dir }) => {
    const result = await stackwright(dir, ["doctor", "--project", dir]);
    expect(result.status).toBe(2);
    expect(result.out.trim()).toBe(
      `${dir} is not a Stackwright ops repository (no Pulumi.yaml whose main is the stackwright package's program)`,
    );
  });
});
