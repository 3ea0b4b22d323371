import { describe, expect, it } from "vitest";
import { parseFlags, UsageError } from "../../../../src/cli/kit/args";

const spec = {
  stack: { type: "string", help: "the stack" },
  refresh: { type: "boolean", help: "refresh first" },
} as const;

describe("command-line flags", () => {
  it("reads values given with a space or an equals sign, and boolean switches", () => {
    expect(parseFlags("up", ["--stack", "prod", "--refresh"], spec).flags).toEqual({
      stack: "prod",
      refresh: true,
    });
    expect(parseFlags("up", ["--stack=prod", "--refresh=false"], spec).flags).toEqual({
      stack: "prod",
      refresh: false,
    });
  });

  it("keeps positional arguments in order", () => {
    expect(parseFlags("summary", ["a", "--stack", "s", "b"], spec, ["FILE", "MORE"]).positional).toEqual([
      "a",
      "b",
    ]);
  });

  it("rejects an unknown flag and lists the allowed ones", () => {
    expect(() => parseFlags("up", ["--stak", "x"], spec)).toThrow(
      new UsageError("stackwright up: unknown flag '--stak'. Allowed flags: --stack, --refresh"),
    );
  });

  it("rejects a string flag without a value", () => {
    expect(() => parseFlags("up", ["--stack"], spec)).toThrow(/--stack needs a value \(the stack\)/);
    expect(() => parseFlags("up", ["--stack", "--refresh"], spec)).toThrow(/--stack needs a value/);
  });

  it("takes everything after -- as positional, even what looks like a flag", () => {
    expect(parseFlags("up", ["--refresh", "--", "--stack", "-x"], spec, ["NAME..."])).toEqual({
      flags: { refresh: true },
      positional: ["--stack", "-x"],
    });
  });

  it("rejects a short flag, naming it as typed", () => {
    expect(() => parseFlags("up", ["-s", "prod"], spec)).toThrow(
      new UsageError("stackwright up: unknown flag '-s'. Allowed flags: --stack, --refresh"),
    );
  });

  it("does not take a flag inherited from Object's prototype as known", () => {
    expect(() => parseFlags("up", ["--constructor"], spec)).toThrow(/unknown flag '--constructor'/);
  });

  it("rejects a value on a boolean flag other than true or false", () => {
    expect(() => parseFlags("up", ["--refresh=yes"], spec)).toThrow(
      /--refresh takes no value other than true or false/,
    );
  });
});

describe("positional arguments", () => {
  it("are refused by a command that takes none, naming them", () => {
    expect(() => parseFlags("up", ["prod"], spec)).toThrow(
      new UsageError("stackwright up takes no arguments: prod"),
    );
  });

  it("are refused past the ones a command names", () => {
    expect(parseFlags("validate", ["dir"], spec, ["DIR"]).positional).toEqual(["dir"]);
    expect(() => parseFlags("validate", ["a", "b"], spec, ["DIR"])).toThrow(
      new UsageError("stackwright validate takes at most DIR, not: a b"),
    );
  });
});
