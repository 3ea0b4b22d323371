import { describe, expect, it } from "vitest";
import { driftExitCode } from "../../../../src/cli/commands/drift";
import { EXIT_CODES } from "../../../../src/cli/kit/exit-codes";
import { useColour } from "../../../../src/cli/commands/status";

describe("the status table's colour", () => {
  it("is used on a terminal only, and never when NO_COLOR is set to something", () => {
    expect(useColour({ isTTY: true }, {})).toBe(true);
    expect(useColour({ isTTY: false }, {})).toBe(false);
    expect(useColour({}, {})).toBe(false);
    expect(useColour({ isTTY: true }, { NO_COLOR: "1" })).toBe(false);
    expect(useColour({ isTTY: true }, { NO_COLOR: "" })).toBe(true);
  });
});

describe("the exit code of a drift report", () => {
  it("is 0 when clean, the drift code when anything drifted, and 1 when a check could not be made", () => {
    expect(driftExitCode("clean")).toBe(0);
    expect(driftExitCode("drift")).toBe(5);
    expect(driftExitCode("error")).toBe(1);
  });

  it("is a code no other outcome uses, so that CI can tell drift from failure", () => {
    const others = Object.entries(EXIT_CODES).filter(([kind]) => kind !== "drift");
    expect(others.map(([, code]) => code)).not.toContain(EXIT_CODES.drift);
  });
});
