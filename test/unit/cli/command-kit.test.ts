import { CommandError, ConcurrentUpdateError } from "@pulumi/pulumi/automation";
import { describe, expect, it } from "vitest";
import { flag } from "../../../src/cli/kit/args";
import { defineCommand, groupCommand, helpText } from "../../../src/cli/kit/command";
import {
  CliError,
  combinedExitCode,
  EXIT_CODES,
  exitCodeOf,
  UsageError,
} from "../../../src/cli/kit/exit-codes";
import { ConfigValidationError } from "../../../src/config";
import { runInProcess } from "../../helpers/in-process";

describe("the exit-code table", () => {
  it("maps each kind of failure to its documented code", () => {
    expect(exitCodeOf(new UsageError("bad flag"))).toBe(2);
    expect(exitCodeOf(new ConfigValidationError([]))).toBe(2);
    expect(exitCodeOf(new CliError("locked", "held"))).toBe(3);
    expect(exitCodeOf(new CliError("environment", "no CLI"))).toBe(4);
    expect(exitCodeOf(new CliError("interrupted", "SIGINT"))).toBe(130);
    expect(exitCodeOf(new Error("anything else"))).toBe(1);
    expect(exitCodeOf("a thrown string")).toBe(1);
  });

  it("tells a lock held by another run from any other engine failure", () => {
    // The Automation API builds these from the CLI's stderr; their classes are what we map.
    const locked: unknown = Object.setPrototypeOf(new Error("locked"), ConcurrentUpdateError.prototype);
    const failed: unknown = Object.setPrototypeOf(new Error("failed"), CommandError.prototype);
    expect(exitCodeOf(locked)).toBe(3);
    expect(exitCodeOf(failed)).toBe(1);
  });

  it("gives a run over several stacks the failures' common code, else 1", () => {
    expect(combinedExitCode([])).toBe(0);
    expect(combinedExitCode([0, 0])).toBe(0);
    expect(combinedExitCode([0, 3, 3])).toBe(3);
    expect(combinedExitCode([0, 3, 1])).toBe(1);
    expect(combinedExitCode([2, 4])).toBe(EXIT_CODES.failed);
  });
});

describe("a command built with the kit", () => {
  const seen: unknown[] = [];
  const command = defineCommand({
    name: "demo",
    args: ["NAME..."],
    summary: "Does a demo.",
    flags: { fail: flag.string("how to fail"), times: flag.int("N", { min: 1, max: 3, default: 1 }) },
    run({ flags, positional }, { io }) {
      seen.push(positional);
      if (flags.fail === "usage") throw new UsageError("stackwright demo: --fail usage was asked");
      if (flags.fail === "crash") throw new Error("something broke");
      if (flags.fail === "settings") throw new CliError("usage", "target 'x' needs a secrets passphrase");
      for (let i = 0; i < flags.times; i++) io.say("done");
      return Promise.resolve(0);
    },
  });

  it("passes every positional argument when the last one repeats", async () => {
    expect((await runInProcess(command, ["a", "b", "c"])).code).toBe(0);
    expect(seen.at(-1)).toEqual(["a", "b", "c"]);
  });

  it("runs its body with the typed request and prints through the context, not the process", async () => {
    const run = await runInProcess(command, ["--times", "3"]);
    expect(run).toMatchObject({ code: 0, stdout: "done\ndone\ndone\n", stderr: "" });
  });

  it("parses without running its body, for a test of its flags", () => {
    const before = seen.length;
    expect(command.parse(["x", "--times=2"]).flags).toEqual({ fail: undefined, times: 2 });
    expect(() => command.parse(["--times=4"])).toThrow(
      "stackwright demo: --times must be a whole number from 1 to 3, not '4'",
    );
    expect(seen.length).toBe(before);
  });

  it("prints its help from the declaration and exits 0", async () => {
    const run = await runInProcess(command, ["--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("usage: npm run stackwright -- demo [NAME ...] [flags]");
    expect(run.stdout).toContain("--fail <value>");
  });

  it("reports a usage error in one line with a pointer to --help, exit 2", async () => {
    const run = await runInProcess(command, ["--fial", "x"]);
    expect(run.code).toBe(2);
    expect(run.errorLines).toEqual([
      "stackwright demo: unknown flag '--fial'. Allowed flags: --fail, --times (npm run stackwright -- demo --help lists its flags)",
    ]);
  });

  it("points to --help only after a flag or argument error, not after a settings problem", async () => {
    const run = await runInProcess(command, ["--fail", "settings"]);
    expect(run.code).toBe(2);
    expect(run.errorLines).toEqual(["target 'x' needs a secrets passphrase"]);
  });

  it("reports an unexpected error by its message alone, never a stack trace, exit 1", async () => {
    const run = await runInProcess(command, ["--fail", "crash"]);
    expect(run.code).toBe(1);
    expect(run.errorLines).toEqual(["stackwright demo failed: something broke"]);
  });

  it("shows optional and repeated arguments in its usage line", () => {
    const text = helpText({ name: "x", args: ["FILE"], summary: "s", flags: {} });
    expect(text.split("\n")[0]).toBe("usage: npm run stackwright -- x [FILE]");
  });
});

describe("a command with subcommands", () => {
  const group = groupCommand(
    "snapshot",
    { download: command0() },
    "snapshot download API_STACK SNAPSHOT --to FILE",
  );
  function command0() {
    return defineCommand({
      name: "snapshot download",
      summary: "s",
      flags: {},
      run: () => Promise.resolve(0),
    });
  }

  it("says in one line, exit 2, that a subcommand is unknown or missing, naming the ones there are", async () => {
    const unknown = await runInProcess(group, ["upload"]);
    const missing = await runInProcess(group, []);
    expect([unknown.code, missing.code]).toEqual([2, 2]);
    expect(unknown.errorLines).toHaveLength(1);
    expect(unknown.errorLines[0]).toMatch(
      /^stackwright snapshot: unknown subcommand 'upload' \(known: download\); usage: /,
    );
    expect(missing.errorLines).toHaveLength(1);
    expect(missing.errorLines[0]).toMatch(
      /^stackwright snapshot: a subcommand is missing \(download\); usage: /,
    );
  });

  it("runs the subcommand it names", async () => {
    expect((await runInProcess(group, ["download"])).code).toBe(0);
  });
});
