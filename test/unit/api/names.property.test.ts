import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { NAME_MAX_LENGTH, SAFE_NAME_PATTERN, nameProblem } from "../../../src/api";
import { InvalidArgumentError } from "../../../src/client/errors";
import { segment } from "../../../src/client/paths";
import { validateStackFile } from "../../../src/config";

/** True when `validate` accepts a stack file whose stack and environment are both `name`. */
function validateAccepts(name: string): boolean {
  const text = stringify({ stack: name, environments: { [name]: { lock: { message: "m" } } } });
  return validateStackFile("property.yaml", text).errors.length === 0;
}

/** True when the client would put `name` into a request path. */
function clientAccepts(name: string): boolean {
  try {
    segment("stack", name);
    segment("environment", name);
    return true;
  } catch (error) {
    if (error instanceof InvalidArgumentError) return false;
    throw error;
  }
}

/**
 * Strings biased towards the characters the rule is about (separators, dots, whitespace, C0 and
 * C1 controls, unpaired surrogates, `__proto__`, non-ASCII) and towards the length limit, plus arbitrary Unicode.
 */
const interesting = fc.constantFrom(
  "/",
  "\\",
  "?",
  "#",
  "%",
  ".",
  " ",
  "\t",
  "\n",
  "\u0000",
  "\u001f",
  "\u007f",
  "\u0080",
  "\u0085",
  "\ud800",
  "\udc00",
  "__proto__",
  "\u009f",
  "\u00a0",
  "\u2028",
  "\u3000",
  "é",
  "😀",
  "a",
  "Z",
  "0",
  "-",
  "_",
);
const names = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 12 }),
  fc.string({ unit: "binary", maxLength: 12 }),
  fc.array(interesting, { maxLength: 8 }).map((parts) => parts.join("")),
  fc
    .tuple(
      fc.integer({ min: NAME_MAX_LENGTH - 2, max: NAME_MAX_LENGTH + 2 }),
      fc.constantFrom("a", "é", "😀"),
    )
    .map(([length, unit]) => unit.repeat(length)),
);

describe("the one name rule", () => {
  it("accepts in the client exactly the names validate accepts", () => {
    fc.assert(
      fc.property(names, (name) => {
        expect(clientAccepts(name)).toBe(validateAccepts(name));
      }),
      { numRuns: 2000 },
    );
  });

  it("agrees with its JSON Schema pattern, so editors flag what validate refuses", () => {
    const pattern = new RegExp(SAFE_NAME_PATTERN, "u");
    fc.assert(
      fc.property(names, (name) => {
        expect(pattern.test(name)).toBe(nameProblem(name) === undefined);
      }),
      { numRuns: 2000 },
    );
  });

  it("refuses a name of 201 characters in validate as in the client", () => {
    const name = "a".repeat(NAME_MAX_LENGTH + 1);
    expect(validateAccepts(name)).toBe(false);
    expect(clientAccepts(name)).toBe(false);
    expect(nameProblem(name)).toBe("must not be longer than 200 characters (it has 201)");
  });
});
