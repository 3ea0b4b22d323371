import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect } from "vitest";
import type { EmulatorHooks } from "../helpers/emulator";
import { fixtures, startEmulatorProcess, type RunningEmulator } from "../helpers/fixtures";
import type { ScratchProject } from "../helpers/scratch-project";
import { runInProject } from "../helpers/in-process";
import { runStackwright, waitFor } from "../helpers/stackwright-process";

// The `stackwright` command as an operator runs it, on a scratch copy of the project with the
// example stacks-config/: the real engine, the real emulator, and the demo's `dev` target as the
// repository has it (its token sealed with the built-in passphrase). The main job (`start`), the
// lines said before the engine starts and the runs that read TMPDIR are processes of their own;
// the other commands run in the test's process (`runInProject`), as in the other end-to-end files.
const test = fixtures({ project: { secrets: "passphrase" } }).extend(
  "emulatorOfMainJob",
  { scope: "file" },
  // The state the main job left, served by the `emulator` command (started once a test names it,
  // after the main job ran).
  async ({ project }, { onCleanup }): Promise<RunningEmulator> => {
    const stateFile = path.join(project.dir, ".stackwright", "emulator.db");
    const { emulator, stop } = await startEmulatorProcess({ emulatorArgs: ["--state-file", stateFile] });
    onCleanup(stop);
    return emulator;
  },
);

describe("the stackwright command on the example stacks-config", () => {
  let project: ScratchProject;
  const run = (args: string[], env: Record<string, string> = {}) =>
    runStackwright(project.dir, args, { ...project.env, ...env });
  const inProcess = (args: string[], env: Record<string, string> = {}) =>
    runInProject(project.dir, args, { ...project.env, ...env });

  test.beforeAll(({ project: scratch }) => {
    project = scratch;
  });

  test("validates the example with no API and no engine", async () => {
    const { status, out } = await inProcess(["validate"]);
    expect(out).toContain("1 stack, 2 environments: valid");
    expect(status).toBe(0);
  });

  test("runs the main job on the embedded emulator", () => {
    const { status, out } = run(["start", "--project", project.dir, "--speed", "instant", "--port", "0"]);
    expect(out).toContain("against the embedded emulator");
    // What it made, in the summary's words, and each environment's links; no output values.
    expect(out).toMatch(
      /^acme-web\/uat {2}deploy from 8f3c2a1 to branch main: deployment \d+ Completed http\S+$/m,
    );
    expect(out).toMatch(
      /^acme-web\/prod {2}http:\/\/127\.0\.0\.1:\d+\/_sites\/acme-web\/prod {2}deployment \d+ Submitted http\S+$/m,
    );
    // uat declares verify: its site (served by the emulator) answers as the build just deployed.
    expect(out).toMatch(/^acme-web\/uat {2}deployment \d+ verified \(1 attempt\(s\)\)$/m);
    expect(out).toMatch(/^dev\.acme-web\s+ok\s+.*\bdeploy\b.*start runs every engine$/m);
    expect(out).not.toMatch(/\bcreate\b/);
    expect(out).not.toContain("Outputs:");
    expect(out.trimEnd().split("\n").length).toBeLessThan(40);
    expect(status).toBe(0);
  }, 240_000);

  test("changes nothing when the main job runs again", () => {
    const { status, out } = run(["start", "--project", project.dir, "--speed", "instant", "--port", "0"]);
    // prod's deployment waits for approval (the example asks for one): said as such, not "no changes".
    expect(out).toMatch(/^dev\.acme-web\s+ok\s+none\s/m);
    expect(out).toContain("1 awaiting approval: approve it, then run npm run stackwright -- up --refresh");
    expect(out).not.toContain("no changes");
    expect(status).toBe(0);
  }, 240_000);

  test("says in one line, before the engine starts, that the API cannot be reached", () => {
    const { status, out } = run(["preview", "--project", project.dir], {
      STACKWRIGHT_API_URL: "http://127.0.0.1:1",
      STACKWRIGHT_EMAIL: "ops@example.com",
      STACKWRIGHT_API_TOKEN: "demo-token",
    });
    // The preflight's line alone: no engine output, no stack trace, no token.
    expect(out.trim()).toBe(
      "stackwright preview: cannot reach the API at http://127.0.0.1:1 (ECONNREFUSED); check STACKWRIGHT_API_URL and that the API is up",
    );
    expect(status).toBe(2);
  }, 240_000);

  test("keeps the token out of the state and the stack configuration's plain text", () => {
    const state = fs.readFileSync(project.stateFile("dev.acme-web"), "utf8");
    const basic = Buffer.from("ops@example.com:demo-token").toString("base64");
    expect(state).toContain("pulumi-nodejs:dynamic/stackwright:Deployment");
    expect(state).not.toContain("demo-token");
    expect(state).not.toContain(basic);
    expect(fs.readFileSync(path.join(project.dir, "Pulumi.dev.yaml"), "utf8")).not.toContain("demo-token");
    // The per-file stack reads the target's settings: no config file of its own.
    expect(fs.existsSync(path.join(project.dir, "Pulumi.dev.acme-web.yaml"))).toBe(false);
  });

  describe("against a running emulator", () => {
    let emulator: RunningEmulator;
    let hooks: EmulatorHooks;
    let env: Record<string, string>;
    const configFile = () => path.join(project.dir, "stacks-config", "acme-web.yaml");
    /** Rewrites the example stack file, as an operator's change would. */
    const editConfig = (change: (text: string) => string) =>
      fs.writeFileSync(configFile(), change(fs.readFileSync(configFile(), "utf8")));

    test.beforeAll(({ emulatorOfMainJob }) => {
      emulator = emulatorOfMainJob;
      ({ hooks, env } = emulator);
      editConfig((text) =>
        text.replace(/trigger: "2026-11-22"\n\s+snapshots:/, (m) => m.replace("2026-11-22", "2026-11-23")),
      );
    }, 30_000);

    test("refuses a wrong token in one line before the engine starts, never printing it", () => {
      const { status, out } = run(["preview", "--project", project.dir], {
        ...env,
        STACKWRIGHT_API_TOKEN: "not-the-token-4711",
      });
      expect(out.trim()).toBe(
        `stackwright preview: the API at ${emulator.url} refused the credentials of ops@example.com (401); check STACKWRIGHT_API_TOKEN and STACKWRIGHT_EMAIL`,
      );
      expect(out).not.toContain("not-the-token-4711");
      expect(status).toBe(2);
    }, 240_000);

    test("refuses a stack the user cannot see in one line, without starting its engine", async () => {
      const { status, out } = await inProcess(["preview", "--project", project.dir], {
        ...env,
        STACKWRIGHT_EMAIL: "outsider@example.com",
        STACKWRIGHT_API_TOKEN: "outsider-token",
      });
      expect(out).toContain(
        "stackwright preview: outsider@example.com has no access to stack 'acme-web'; ask an owner of the stack",
      );
      expect(out).not.toMatch(/Previewing|pulumi:pulumi:Stack| {4}at /);
      expect(out).not.toContain("outsider-token");
      expect(status).toBe(2);
    }, 240_000);

    test("with every API setting in its variables, reads no settings file before the engine, which still names a wrong passphrase in one line", async ({
      scratchDir,
    }) => {
      // The settings read works in a scratch backend under TMPDIR (stackwright-settings-*); it is
      // removed before the run ends, so the directory's own change events are what tell.
      const made: string[] = [];
      const watcher = fs.watch(scratchDir, (_event, name) => {
        if (name !== null) made.push(name);
      });
      // The kernel reports changes in order: once a marker written now is seen, so is all before it.
      const settingsReads = async (marker: string) => {
        fs.writeFileSync(path.join(scratchDir, marker), "");
        await waitFor(() => made.includes(marker), `the change event of ${marker}`, 10_000);
        return made.filter((name) => name.startsWith("stackwright-settings-"));
      };
      try {
        const ok = run(["preview", "--project", project.dir], { ...env, TMPDIR: scratchDir });
        expect(ok.status).toBe(0);
        const wrong = run(["preview", "--project", project.dir], {
          ...env,
          TMPDIR: scratchDir,
          PULUMI_CONFIG_PASSPHRASE: "not-the-passphrase-0815",
        });
        expect(wrong.out).toContain(
          "dev.acme-web: stackwright preview: the engine cannot open the target's secrets: incorrect passphrase; " +
            "check PULUMI_CONFIG_PASSPHRASE (or the secrets provider the file names)",
        );
        expect(wrong.out).not.toContain("not-the-passphrase-0815");
        expect(wrong.status).toBe(2);
        // Without the variables the file is read, in the place watched: the check above can fail.
        const settingsFile = path.join(project.dir, "Pulumi.dev.yaml");
        const original = fs.readFileSync(settingsFile, "utf8");
        fs.writeFileSync(
          settingsFile,
          original.replace(/stackwright:apiUrl: .*/, `stackwright:apiUrl: ${emulator.url}`),
        );
        expect(await settingsReads("after-the-variables")).toEqual([]);
        try {
          expect(run(["preview", "--project", project.dir], { TMPDIR: scratchDir }).status).toBe(0);
        } finally {
          fs.writeFileSync(settingsFile, original);
        }
        expect(await settingsReads("after-the-file")).not.toEqual([]);
      } finally {
        watcher.close();
      }
    }, 240_000);

    test("previews with the settings of Pulumi.dev.yaml alone, its token decrypted, with no stack named dev", async () => {
      // The README's laptop flow: no STACKWRIGHT_* variables; the file points at this emulator.
      const settingsFile = path.join(project.dir, "Pulumi.dev.yaml");
      const original = fs.readFileSync(settingsFile, "utf8");
      fs.writeFileSync(
        settingsFile,
        original.replace(/stackwright:apiUrl: .*/, `stackwright:apiUrl: ${emulator.url}`),
      );
      try {
        const { status, out } = await inProcess(["preview", "--project", project.dir]);
        expect(out).not.toContain("no API settings");
        expect(out).toContain("redeploy from 8f3c2a1 to branch main (changed: trigger)");
        expect(status).toBe(0);
        expect(fs.existsSync(project.stateFile("dev"))).toBe(false);
      } finally {
        fs.writeFileSync(settingsFile, original);
      }
    }, 240_000);

    test("says in one line that the target's file cannot be decrypted with a wrong passphrase", () => {
      const { status, out } = run(["preview", "--project", project.dir], {
        PULUMI_CONFIG_PASSPHRASE: "not-the-passphrase-0815",
      });
      expect(out.split("\n")[0]).toBe(
        `cannot read the settings of target 'dev' from ${path.join(project.dir, "Pulumi.dev.yaml")}: incorrect passphrase; ` +
          "check PULUMI_CONFIG_PASSPHRASE (or the secrets provider the file names)",
      );
      expect(out).not.toContain("not-the-passphrase-0815");
      expect(status).toBe(2);
    }, 240_000);

    test("previews a changed trigger as a redeploy and writes the pull-request summary", async () => {
      const summary = path.join(project.dir, "summary.md");
      const { status, out } = await inProcess(
        ["preview", "--project", project.dir, "--summary", summary],
        env,
      );
      expect(out).toContain("summary written to");
      expect(status).toBe(0);
      expect(out).toContain("redeploy from 8f3c2a1 to branch main (changed: trigger)");
      const md = fs.readFileSync(summary, "utf8");
      expect(md).toContain("### acme-web");
      expect(md).toMatch(/\| uat \| redeploy \| from `[0-9a-f]{7}` to branch `main` \(changed: trigger\) \|/);
    }, 240_000);

    test("applies the change with up, then summarises a plain pulumi preview --json as no changes", async () => {
      const up = await inProcess(["up", "--project", project.dir], env);
      expect(up.out).toContain("1 redeploy");
      expect(up.status).toBe(0);

      const preview = spawnSync(
        path.join(project.dir, ".tools", "bin", "pulumi"),
        ["preview", "--json", "--stack", "dev.acme-web", "--config-file", "Pulumi.dev.yaml"],
        {
          cwd: project.dir,
          env: { ...project.pulumiEnv(), ...env },
          encoding: "utf8",
          timeout: 240_000,
        },
      );
      expect(preview.status).toBe(0);
      fs.writeFileSync(path.join(project.dir, "preview.json"), preview.stdout);
      const summary = await inProcess(["summary", path.join(project.dir, "preview.json")]);
      expect(summary.out).toContain("**No changes**");
      expect(summary.status).toBe(0);
    }, 240_000);

    test("gives the same comment from plain pulumi's event log as preview --summary, Facts included", async () => {
      const events = path.join(project.dir, "preview-events.json");
      const preview = spawnSync(
        path.join(project.dir, ".tools", "bin", "pulumi"),
        ["preview", "--event-log", events, "--stack", "dev.acme-web", "--config-file", "Pulumi.dev.yaml"],
        {
          cwd: project.dir,
          // --event-log is one of Pulumi's debug commands (docs/guide.md, "Reading the summary").
          env: { ...project.pulumiEnv(), ...env, PULUMI_DEBUG_COMMANDS: "true" },
          encoding: "utf8",
          timeout: 240_000,
        },
      );
      expect(preview.status, preview.stderr).toBe(0);
      const fromLog = await inProcess(["summary", events]);
      expect(fromLog.status).toBe(0);
      const file = path.join(project.dir, "same.md");
      const fromRun = await inProcess(["preview", "--project", project.dir, "--summary", file], env);
      expect(fromRun.status, fromRun.out).toBe(0);
      expect(fromLog.out).toContain("### Facts");
      expect(fromLog.out).toMatch(/\*\*No changes\*\* \([1-9]\d* unchanged\)/);
      expect(fromLog.out).toBe(fs.readFileSync(file, "utf8"));
    }, 480_000);

    test("fails the preview of a deployment change on an environment that stays locked, naming the lock", async () => {
      editConfig((text) =>
        text.replace(
          "title: Promote UAT to production",
          'title: Promote UAT to production\n      trigger: "again"',
        ),
      );
      const { status, out } = await inProcess(["preview", "--project", project.dir], env);
      expect(out).toContain(
        'acme-web/prod is locked ("Change freeze until 2026-12-01") and stays locked in this change',
      );
      expect(status).toBe(1);
    }, 240_000);

    test("unlocks before it deploys when the same change removes the lock", async () => {
      editConfig((text) => text.replace(/\n {4}lock:\n {6}message: Change freeze until 2026-12-01\n/, "\n"));
      await hooks.clearRequests();
      const { status, out } = await inProcess(["up", "--project", project.dir], env);
      expect(status).toBe(0);
      expect(out).toContain("redeploy");
      const writes = (await hooks.requests())
        .filter((r) => r.method !== "GET")
        .map((r) => `${r.method} ${r.path}`);
      const unlock = writes.indexOf("DELETE /svc/project/acme-web/environment/prod/lock");
      const deploy = writes.indexOf("POST /svc/project/acme-web/environment/prod/deploys");
      expect(unlock).toBeGreaterThanOrEqual(0);
      expect(deploy).toBeGreaterThan(unlock);
    }, 240_000);

    test("fails the preview of a new snapshot on an environment that stays locked, naming the lock", async () => {
      const lock = "    lock:\n      message: Second freeze\n";
      editConfig((text) => text.replace("\nrecords:", `${lock}\nrecords:`));
      const up = await inProcess(["up", "--project", project.dir], env);
      expect(up.status).toBe(0);

      editConfig((text) => text.replace(lock, `${lock}    snapshots:\n      frozen-db: { mode: db }\n`));
      const { status, out } = await inProcess(["preview", "--project", project.dir], env);
      expect(out).toContain(
        'acme-web/prod is locked ("Second freeze") and stays locked in this change, so the platform would refuse snapshot frozen-db.',
      );
      expect(status).toBe(1);
    }, 240_000);

    test("runs start on the emulator that already serves .stackwright/emulator.db, never a second one", async () => {
      editConfig((text) => text.replace("    snapshots:\n      frozen-db: { mode: db }\n", ""));
      await hooks.clearRequests();
      const { status, out } = run(["start", "--project", project.dir, "--speed", "instant"]);
      expect(out).toContain(
        `against the emulator of process ${String(emulator.child.pid)} at ${emulator.url}, which serves .stackwright/emulator.db`,
      );
      expect(status, out).toBe(0);
      // The run's reads reached the emulator that was running.
      expect((await hooks.requests()).some((r) => r.path.startsWith("/svc/project/acme-web"))).toBe(true);
    }, 240_000);

    test("stops start in one line when the process that holds the state file does not answer", () => {
      const lock = path.join(project.dir, ".stackwright", "emulator.db.lock");
      const held = fs.readFileSync(lock, "utf8");
      fs.writeFileSync(lock, JSON.stringify({ pid: process.pid, url: "http://127.0.0.1:1" }));
      try {
        const { status, out } = run(["start", "--project", project.dir, "--speed", "instant"]);
        expect(out.trim().split("\n").slice(1)).toEqual([
          `.stackwright/emulator.db is held by process ${process.pid}, which does not answer at http://127.0.0.1:1; stop it (kill ${process.pid}) and run start again`,
        ]);
        expect(status).toBe(2);
      } finally {
        fs.writeFileSync(lock, held);
      }
    }, 240_000);
  });
});
