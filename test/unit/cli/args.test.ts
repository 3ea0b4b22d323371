import { describe, expect, expectTypeOf, it } from "vitest";
import { flag, parseFlags, UsageError, wholeNumber } from "../../../src/cli/kit/args";

const spec = {
  stack: flag.string("the stack"),
  refresh: flag.switch("refresh first"),
};

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

  it("reads an absent switch as false and an absent value as undefined, and says which were given", () => {
    const parsed = parseFlags("up", ["--refresh"], spec);
    expect(parsed.flags).toEqual({ stack: undefined, refresh: true });
    expect([...parsed.given]).toEqual(["refresh"]);
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
    expect(() => parseFlags("up", ["--stack="], spec)).toThrow(
      new UsageError("stackwright up: --stack needs a value that is not empty"),
    );
  });

  it("takes everything after -- as positional, even what looks like a flag", () => {
    const parsed = parseFlags("up", ["--refresh", "--", "--stack", "-x"], spec, ["NAME..."]);
    expect(parsed.flags.refresh).toBe(true);
    expect(parsed.positional).toEqual(["--stack", "-x"]);
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
      new UsageError("stackwright up: --refresh takes no value other than true or false"),
    );
  });
});

describe("flag types", () => {
  const typed = {
    limit: flag.int("N", { min: 1, max: 100, default: 20 }),
    steps: flag.int("N", { min: 1, max: 5 }),
    wait: flag.duration("how long"),
    speed: flag.oneOf(["instant", "fast", "realistic"], "pace", "fast"),
    json: flag.output("FILE|-"),
    sink: flag.list("NAME"),
    from: flag.required(flag.string("ENV")),
  };
  const parse = (argv: string[]) => parseFlags("demo", ["--from", "uat", ...argv], typed);

  it("give each flag the type its declaration says, with its one default when absent", () => {
    const { flags } = parse([]);
    expectTypeOf(flags.limit).toEqualTypeOf<number>();
    expectTypeOf(flags.steps).toEqualTypeOf<number | undefined>();
    expectTypeOf(flags.speed).toEqualTypeOf<"instant" | "fast" | "realistic">();
    expectTypeOf(flags.from).toEqualTypeOf<string>();
    expect(flags).toEqual({
      limit: 20,
      steps: undefined,
      wait: undefined,
      speed: "fast",
      json: undefined,
      sink: [],
      from: "uat",
    });
  });

  it("read whole numbers within their bounds, durations in milliseconds, words, outputs and repeats", () => {
    const { flags } = parse([
      "--limit=100",
      "--steps",
      "5",
      "--wait",
      "1h30m",
      "--speed",
      "instant",
      "--json",
      "-",
      "--sink",
      "a",
      "--sink=b",
    ]);
    expect(flags).toMatchObject({
      limit: 100,
      steps: 5,
      wait: 5_400_000,
      speed: "instant",
      json: { to: "stdout" },
      sink: ["a", "b"],
    });
    expect(parse(["--json", "out/status.json"]).flags.json).toEqual({ to: "file", path: "out/status.json" });
  });

  it.each([
    [["--limit", "0"], "stackwright demo: --limit must be a whole number from 1 to 100, not '0'"],
    [["--limit", "101"], "stackwright demo: --limit must be a whole number from 1 to 100, not '101'"],
    [["--steps", "2.5"], "stackwright demo: --steps must be a whole number from 1 to 5, not '2.5'"],
    [["--steps=-1"], "stackwright demo: --steps must be a whole number from 1 to 5, not '-1'"],
    [["--speed", "slow"], "stackwright demo: --speed must be one of instant, fast, realistic, not 'slow'"],
    [["--json="], "stackwright demo: --json needs FILE, or - for stdout"],
  ])("refuse %j in one line that names the flag and its rule", (argv, line) => {
    expect(() => parse(argv)).toThrow(new UsageError(line));
    expect(line).not.toContain("\n");
  });

  it("refuse a duration that is not one, naming the flag", () => {
    expect(() => parse(["--wait", "10 minutes"])).toThrow(
      /^stackwright demo: --wait must be a duration such as 30m, 90s or 1h30m .*got '10 minutes'$/,
    );
  });

  it("refuse a required flag that is missing", () => {
    expect(() => parseFlags("demo", [], typed)).toThrow(
      new UsageError("stackwright demo: --from is required"),
    );
  });

  it("read a whole number by one rule: digits only, within the bounds", () => {
    expect(wholeNumber("007", 1, 10)).toBe(7);
    for (const text of ["", "1e3", "0x10", " 3", "3 ", "+3", "99999999999"]) {
      expect(wholeNumber(text, 0, Number.MAX_SAFE_INTEGER)).toBeUndefined();
    }
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
