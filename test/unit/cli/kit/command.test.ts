import { CommandError, ConcurrentUpdateError } from "@pulumi/pulumi/automation";
import { afterEach, describe, expect, it, vi } from "vitest";
import { defineCommand, helpText } from "../../../../src/cli/kit/command";
import {
  CliError,
  combinedExitCode,
  EXIT_CODES,
  exitCodeOf,
  UsageError,
} from "../../../../src/cli/kit/exit-codes";
import { ConfigValidationError } from "../../../../src/config";

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
  const errors: string[] = [];
  const logs: string[] = [];
  afterEach(() => {
    vi.restoreAllMocks();
    errors.length = 0;
    logs.length = 0;
  });
  const capture = () => {
    vi.spyOn(console, "error").mockImplementation((t: unknown) => void errors.push(String(t)));
    vi.spyOn(console, "log").mockImplementation((t: unknown) => void logs.push(String(t)));
  };
  const seen: unknown[] = [];
  const command = defineCommand({
    name: "demo",
    args: ["NAME..."],
    summary: "Does a demo.",
    flags: { fail: { type: "string", help: "how to fail" } },
    run({ flags, positional }) {
      seen.push(positional);
      if (flags.fail === "usage") throw new UsageError("stackwright demo: --fail usage was asked");
      if (flags.fail === "crash") throw new Error("something broke");
      if (flags.fail === "settings") throw new CliError("usage", "target 'x' needs a secrets passphrase");
      return Promise.resolve(0);
    },
  });

  it("passes every positional argument when the last one repeats", async () => {
    expect(await command(["a", "b", "c"])).toBe(0);
    expect(seen.at(-1)).toEqual(["a", "b", "c"]);
  });

  it("prints its help from the declaration and exits 0", async () => {
    capture();
    expect(await command(["--help"])).toBe(0);
    expect(logs.join("\n")).toContain("usage: npm run stackwright -- demo [NAME ...] [flags]");
    expect(logs.join("\n")).toContain("--fail <value>");
  });

  it("reports a usage error in one line with a pointer to --help, exit 2", async () => {
    capture();
    expect(await command(["--fial", "x"])).toBe(2);
    expect(errors).toEqual([
      "stackwright demo: unknown flag '--fial'. Allowed flags: --fail\n(npm run stackwright -- demo --help lists its flags)",
    ]);
  });

  it("points to --help only after a flag or argument error, not after a settings problem", async () => {
    capture();
    expect(await command(["--fail", "settings"])).toBe(2);
    expect(errors).toEqual(["target 'x' needs a secrets passphrase"]);
  });

  it("reports an unexpected error by its message alone, never a stack trace, exit 1", async () => {
    capture();
    expect(await command(["--fail", "crash"])).toBe(1);
    expect(errors).toEqual(["stackwright demo failed: something broke"]);
  });

  it("shows optional and repeated arguments in its usage line", () => {
    const text = helpText({
      name: "x",
      args: ["FILE"],
      summary: "s",
      flags: {},
      run: () => Promise.resolve(0),
    });
    expect(text.split("\n")[0]).toBe("usage: npm run stackwright -- x [FILE]");
  });
});
