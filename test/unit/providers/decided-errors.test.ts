import { afterEach, describe, expect, it, vi } from "vitest";
import { plainError } from "../../../providers/plugin-host/service";
import { refusal } from "../../../providers/shared/errors";
import { ConflictError } from "../../../src/client/errors";

// What the provider host prints when a provider call (check, diff, read, delete) fails: a
// decision of ours reaches the engine as its message alone; anything else is a bug, shown with its
// trace behind one line that says so.
describe("the provider host's report of a failed call", () => {
  afterEach(() => vi.restoreAllMocks());

  it("prints nothing of a refusal we made on purpose: the engine shows its message alone", () => {
    const printed = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const err = refusal('acme-web/prod is locked ("Change freeze") and stays locked in this change');
    expect(plainError(err)).toBe(err);
    expect(printed).not.toHaveBeenCalled();
  });

  it("prints nothing of an API refusal either", () => {
    const printed = vi.spyOn(console, "error").mockImplementation(() => undefined);
    plainError(new ConflictError("the environment is locked"));
    expect(printed).not.toHaveBeenCalled();
  });

  it("prints a crash with its trace, behind the line that says it is a bug and where to report it", () => {
    const printed = vi.spyOn(console, "error").mockImplementation(() => undefined);
    plainError(new TypeError("Cannot read properties of undefined (reading 'sha')"));
    expect(printed).toHaveBeenCalledTimes(1);
    const text = String(printed.mock.calls[0]?.[0]);
    expect(text.split("\n")[0]).toBe(
      'stackwright: this is a bug in Stackwright, not in your settings; please report it with the lines below (see README.md, "Reporting a bug")',
    );
    expect(text).toMatch(/^\s+at /m);
  });
});
