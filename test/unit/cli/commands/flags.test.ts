import * as path from "node:path";
import { runInProcess } from "../../../helpers/in-process";
import { describe, expect, expectTypeOf, it } from "vitest";
import { driftCommand } from "../../../../src/cli/commands/drift";
import { upCommand } from "../../../../src/cli/commands/engine";
import { historyCommand } from "../../../../src/cli/commands/history";
import { logsCommand } from "../../../../src/cli/commands/logs";
import { promoteCommand } from "../../../../src/cli/commands/promote";
import { rollbackCommand } from "../../../../src/cli/commands/rollback";
import { runEmulatorCommand } from "../../../../src/cli/commands/emulator";
import { statusCommand } from "../../../../src/cli/commands/status";
import { UsageError } from "../../../../src/cli/kit/exit-codes";
import { DEFAULT_TARGET } from "../../../../src/project/target-settings";

// Each command's flags, parsed as a run parses them but with no body run (the kit's `parse`):
// what a command reads is typed and decided here, once, with its one default.

describe("the target and project every command shares", () => {
  it("default to the demo's target and this package, resolved once", () => {
    const { flags, given } = historyCommand.parse(["acme-web", "uat"]);
    expect(flags.target).toBe(DEFAULT_TARGET);
    expect(path.isAbsolute(flags.project)).toBe(true);
    expect(given.size).toBe(0);
  });

  it("take a project directory as given, resolved, and refuse a target name the rule refuses", () => {
    expect(statusCommand.parse(["--project", "some/dir"]).flags.project).toBe(path.resolve("some/dir"));
    expect(() => statusCommand.parse(["--target", "prod.eu"])).toThrow(
      new UsageError(
        "stackwright status: --target 'prod.eu' must be 1 to 40 letters, digits, '_' or '-' (no '.')",
      ),
    );
  });
});

describe("history", () => {
  it("reads --limit as a whole number, 20 when not given", () => {
    expect(historyCommand.parse(["a", "b"]).flags.limit).toBe(20);
    expect(historyCommand.parse(["a", "b", "--limit=10000"]).flags.limit).toBe(10_000);
    expectTypeOf(historyCommand.parse([]).flags.limit).toEqualTypeOf<number>();
    expect(() => historyCommand.parse(["--limit", "ten"])).toThrow(
      "stackwright history: --limit must be a whole number from 1 to 10000, not 'ten'",
    );
  });
});

describe("status and drift", () => {
  it("read --json as stdout or a file, --shard as I/N and --api-concurrency as a number, at the edge", () => {
    const { flags } = statusCommand.parse(["--json", "-", "--shard", "2/4", "--api-concurrency", "16"]);
    expect(flags.json).toEqual({ to: "stdout" });
    expect(flags.shard).toEqual({ index: 2, count: 4 });
    expect(flags["api-concurrency"]).toBe(16);
    expect(driftCommand.parse(["--json", "drift.json", "--full"]).flags).toMatchObject({
      json: { to: "file", path: "drift.json" },
      full: true,
    });
  });

  it("refuse a shard out of range in one line naming the flag", () => {
    expect(() => driftCommand.parse(["--shard", "5/4"])).toThrow(
      /^stackwright drift: --shard takes I\/N with 1 <= I <= N <= 256 .*not '5\/4'$/,
    );
  });
});

describe("up", () => {
  it("reads the lock durations in milliseconds and the counts as numbers", () => {
    const { flags } = upCommand.parse(["--lock-wait", "10m", "--stale-lock-after=2h", "--concurrency", "3"]);
    // Typed as any of the four engine commands' requests: up's own flags are read by name.
    const values: Readonly<Record<string, unknown>> = flags;
    expect(values["lock-wait"]).toBe(600_000);
    expect(values["stale-lock-after"]).toBe(7_200_000);
    expect(flags.concurrency).toBe(3);
    expect(flags.parallel).toBeUndefined();
  });

  it("refuses --parallel 0 and --concurrency 65, each in one line with its bounds", () => {
    expect(() => upCommand.parse(["--parallel", "0"])).toThrow(
      "stackwright up: --parallel must be a whole number from 1 to 1024, not '0'",
    );
    expect(() => upCommand.parse(["--concurrency", "65"])).toThrow(
      "stackwright up: --concurrency must be a whole number from 1 to 64, not '65'",
    );
  });
});

describe("--override-window", () => {
  it("is read as the trimmed reason, and a blank one is refused with what to give", () => {
    expect(rollbackCommand.parse(["a", "b", "--override-window", " INC-1 "]).flags["override-window"]).toBe(
      "INC-1",
    );
    expect(() => upCommand.parse(["--override-window", "  "])).toThrow(
      'stackwright up: --override-window needs a reason, e.g. --override-window "INC-123: hotfix for checkout"',
    );
  });
});

describe("promote, rollback and logs", () => {
  it("require promote's --from and --to unless --ready, checked by the name rule", async () => {
    expect(promoteCommand.parse(["--from", "uat", "--to", "prod", "--all"]).flags).toMatchObject({
      from: "uat",
      to: "prod",
      all: true,
    });
    const run = await runInProcess(promoteCommand, ["--from", "uat", "--all"], { env: {} });
    expect(run.code).toBe(2);
    expect(run.errorLines).toEqual([
      "stackwright promote: --to is required unless --ready is given (npm run stackwright -- promote --help lists its flags)",
    ]);
    expect(() => promoteCommand.parse(["--from", "u a t", "--to", "prod"])).toThrow(
      /^stackwright promote: --from "u a t" must not contain whitespace/,
    );
  });

  it("read rollback's --to as a platform id and --steps as a bounded count", () => {
    expect(rollbackCommand.parse(["a", "b", "--to", "42"]).flags.to).toBe("42");
    expect(() => rollbackCommand.parse(["a", "b", "--to", "007"])).toThrow(
      /--to '007' must be a positive whole number/,
    );
    expect(() => rollbackCommand.parse(["a", "b", "--steps", "0"])).toThrow(
      "stackwright rollback: --steps must be a whole number from 1 to 1000, not '0'",
    );
  });

  it("read logs' --timeout as a duration", () => {
    expect(logsCommand.parse(["a", "b", "--timeout", "1h30m"]).flags.timeout).toBe(5_400_000);
    expect(() => logsCommand.parse(["a", "b", "--timeout", "90"])).toThrow(
      /^stackwright logs: --timeout must be a duration/,
    );
  });
});

describe("emulator", () => {
  it("reads its pace and answers as one of their words, its port as a number, with their defaults", () => {
    expect(runEmulatorCommand.parse([]).flags).toMatchObject({
      port: 0,
      speed: "fast",
      answers: "documented",
    });
    expect(runEmulatorCommand.parse(["--speed", "instant", "--port", "8787"]).flags).toMatchObject({
      speed: "instant",
      port: 8787,
    });
    expect(() => runEmulatorCommand.parse(["--answers", "weird"])).toThrow(
      "stackwright emulator: --answers must be one of documented, platform, not 'weird'",
    );
  });
});
