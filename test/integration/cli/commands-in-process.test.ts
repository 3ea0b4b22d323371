import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { historyCommand } from "../../../src/cli/commands/history";
import { logsCommand } from "../../../src/cli/commands/logs";
import { notifyCommand } from "../../../src/cli/commands/notify";
import { promoteCommand } from "../../../src/cli/commands/promote";
import { rollbackCommand } from "../../../src/cli/commands/rollback";
import { snapshotCommand } from "../../../src/cli/commands/snapshot";
import { statusCommand } from "../../../src/cli/commands/status";
import { unlockCommand } from "../../../src/cli/commands/unlock";
import type { Command } from "../../../src/cli/kit/command";
import { demoCredentials, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { runInProcess, type InProcessRun } from "../../helpers/in-process";
import { repoRoot } from "../../helpers/scratch-project";

// Commands run in-process against the emulator (no CLI spawned), with a context of the test's
// own: every refusal and every mistake of the day-two commands is one line on stderr, with the
// exit code the README's table gives its kind, and a command reads its settings from the context.

let emulator: TestEmulator;
let dir: string;
let env: Record<string, string | undefined>;

const ACME_WEB = `stack: acme-web
environments:
  uat:
    deployment: { ref_type: branch, ref: main }
  prod:
    deployment: { ref_type: tag, ref: v1.4.0 }
    lock: { message: Change freeze }
`;

beforeAll(async () => {
  emulator = await startTestEmulator();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-refusals-"));
  fs.copyFileSync(path.join(repoRoot, "Pulumi.yaml"), path.join(dir, "Pulumi.yaml"));
  fs.mkdirSync(path.join(dir, "stacks-config"));
  fs.writeFileSync(path.join(dir, "stacks-config", "acme-web.yaml"), ACME_WEB);
  env = {
    PATH: process.env["PATH"],
    ...demoCredentials(emulator.url),
    STACKWRIGHT_PROXY: "direct",
    PULUMI_BACKEND_URL: `file://${path.join(dir, "state")}`,
  };
});

afterAll(async () => {
  await emulator.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const run = (command: Command, argv: string[], extraEnv: Record<string, string> = {}) =>
  runInProcess(command, [...argv, "--project", dir], { env: { ...env, ...extraEnv } });

/** The run printed exactly `line` on stderr, and nothing else there, and exited `code`. */
function refusedWith(result: InProcessRun, code: number, line: string | RegExp): void {
  expect(result.errorLines, result.stderr).toHaveLength(1);
  expect(result.errorLines[0]).toMatch(line);
  expect(result.code).toBe(code);
}

describe("an environment the stack does not have", () => {
  const UNKNOWN = "stackwright %s: acme-web has no environment 'staging'; its environments are: uat, prod";

  it("is one line naming the environments there are, exit 2, for history, logs and rollback", async () => {
    refusedWith(await run(historyCommand, ["acme-web", "staging"]), 2, UNKNOWN.replace("%s", "history"));
    refusedWith(await run(logsCommand, ["acme-web", "staging"]), 2, UNKNOWN.replace("%s", "logs"));
    refusedWith(await run(rollbackCommand, ["acme-web", "staging"]), 2, UNKNOWN.replace("%s", "rollback"));
  });

  it("is one line naming the environments there are, exit 2, for promote's --from", async () => {
    const result = await run(promoteCommand, ["acme-web", "--from", "staging", "--to", "prod"]);
    refusedWith(result, 2, UNKNOWN.replace("%s", "promote"));
  });
});

describe("a mistake in a flag or an argument", () => {
  it.each([
    [
      historyCommand,
      ["acme-web", "uat", "--limit", "0"],
      /^stackwright history: --limit must be a whole number from 1 to 10000, not '0' \(/,
    ],
    [
      logsCommand,
      ["acme-web", "uat", "--deployment", "abc"],
      /^stackwright logs: --deployment 'abc' must be a positive whole number/,
    ],
    [
      logsCommand,
      ["acme-web", "uat", "--timeout", "soon"],
      /^stackwright logs: --timeout must be a duration such as 30m/,
    ],
    [
      rollbackCommand,
      ["acme-web", "uat", "--steps", "1001"],
      /^stackwright rollback: --steps must be a whole number from 1 to 1000, not '1001' \(/,
    ],
    [
      promoteCommand,
      ["acme-web", "--from", "uat"],
      /^stackwright promote: --to is required unless --ready is given \(/,
    ],
    [
      promoteCommand,
      ["nosuch", "--from", "uat", "--to", "prod"],
      /^stackwright promote: no file in stacks-config\/ declares API stack 'nosuch'; the API stacks are: acme-web \(/,
    ],
    [snapshotCommand, ["download", "acme-web", "1"], /^stackwright snapshot download: --to FILE is required/],
    [snapshotCommand, ["upload"], /^stackwright snapshot: unknown subcommand 'upload' \(known: download\)/],
    [notifyCommand, ["tset"], /^stackwright notify: unknown subcommand 'tset' \(known: test\)/],
    [
      notifyCommand,
      ["test", "--sink", "nope"],
      /^stackwright notify test: no sink is named 'nope'; no sink is declared/,
    ],
  ] as const)("is one line naming what to change, exit 2 (%#)", async (command, argv, line) => {
    refusedWith(await run(command, [...argv]), 2, line);
  });
});

describe("a refusal", () => {
  it("of logs for a deployment the environment does not have is one line, exit 2", async () => {
    const result = await run(logsCommand, ["acme-web", "uat", "--deployment", "99999"]);
    refusedWith(
      result,
      2,
      /^stackwright logs: acme-web\/uat has no deployment 99999 \(.*history acme-web uat lists them\)$/,
    );
  });

  it("of snapshot download for a snapshot the stack does not have is one line, exit 2", async () => {
    const to = path.join(dir, "snapshot.bin");
    refusedWith(
      await run(snapshotCommand, ["download", "acme-web", "99999", "--to", to]),
      2,
      "stackwright snapshot download: acme-web has no snapshot 99999",
    );
  });

  it("of promote is one line per refusal, each saying no file was changed, exit 1", async () => {
    const before = fs.readFileSync(path.join(dir, "stacks-config", "acme-web.yaml"), "utf8");
    const result = await run(promoteCommand, ["acme-web", "--from", "uat", "--to", "prod", "--allow-drift"]);
    refusedWith(
      result,
      1,
      /^stackwright promote: acme-web\/prod is locked in .*acme-web\.yaml \("Change freeze"\); lift the lock, or pass --allow-locked .*; no file was changed$/,
    );
    expect(fs.readFileSync(path.join(dir, "stacks-config", "acme-web.yaml"), "utf8")).toBe(before);
  });
});

describe("unlock", () => {
  it("of a directory that is no project is one line saying so, exit 4", async () => {
    const nowhere = path.join(dir, "nowhere");
    const result = await runInProcess(unlockCommand, ["dev.acme-web", "--project", nowhere], { env });
    refusedWith(
      result,
      4,
      `stackwright unlock: ${nowhere} has no Pulumi.yaml: pass the Stackwright project directory with --project`,
    );
  });
});

describe("notify test with its receiver down", () => {
  it("says the samples were not delivered and exits 1, never that the exit code does not depend on them", async () => {
    const sinks = `${ACME_WEB}notify:\n  - { name: oncall, kind: webhook, url_env: ONCALL_URL, secret_env: ONCALL_SECRET, events: [deployment.failed] }\n`;
    const file = path.join(dir, "stacks-config", "acme-web.yaml");
    fs.writeFileSync(file, sinks);
    try {
      // A port that was free a moment ago: nothing listens there, the delivery fails at once.
      const closed = await new Promise<number>((resolve) => {
        const server = net.createServer();
        server.listen(0, "127.0.0.1", () => {
          const address = server.address();
          const port = typeof address === "object" && address !== null ? address.port : 0;
          server.close(() => resolve(port));
        });
      });
      const result = await run(notifyCommand, ["test"], {
        ONCALL_URL: `http://127.0.0.1:${closed}/hook`,
        ONCALL_SECRET: "s",
      });
      expect(result.stdout, result.stderr).toContain("notifications: 0 delivered, 1 failed\n");
      expect(result.stdout).not.toContain("does not depend");
      refusedWith(
        result,
        1,
        "stackwright notify test: 1 of 1 sample(s) not delivered; the lines above say why",
      );
    } finally {
      fs.writeFileSync(file, ACME_WEB);
    }
  });
});

describe("status run in-process", () => {
  it("reads the API settings, the backend and the time from the context it is handed, and prints to its io", async () => {
    const now = new Date("2026-11-24T09:00:00Z");
    const result = await runInProcess(statusCommand, ["--json", "-", "--project", dir], { env, now });
    expect(result.code, result.stderr).toBe(0);
    const status = JSON.parse(result.stdout) as {
      target: string;
      generated_at: string;
      stacks: { stack: string }[];
    };
    expect(status.generated_at).toBe(now.toISOString());
    expect(status.target).toBe("dev");
    expect(status.stacks.map((s) => s.stack)).toEqual(["acme-web"]);
  });
});
