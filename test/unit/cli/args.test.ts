import { describe, expect, it } from "vitest";
import { parseFlags, UsageError } from "../../../src/cli/args";

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
    expect(parseFlags("validate", ["a", "--stack", "s", "b"], spec).positional).toEqual(["a", "b"]);
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

  it("rejects a value on a boolean flag other than true or false", () => {
    expect(() => parseFlags("up", ["--refresh=yes"], spec)).toThrow(
      /--refresh takes no value other than true or false/,
    );
  });
});
