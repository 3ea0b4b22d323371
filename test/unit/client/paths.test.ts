import { describe, expect, it } from "vitest";
import { nameProblem } from "../../../src/api";
import { InvalidArgumentError } from "../../../src/client/errors";
import { numericId, queryString, segment } from "../../../src/client/paths";

describe("segment", () => {
  it("percent-encodes a plain name", () => {
    expect(segment("stack", "acme-web")).toBe("acme-web");
    expect(segment("stack", "acme_web.2")).toBe("acme_web.2");
    expect(segment("stack", "caf\u00e9")).toBe("caf%C3%A9");
  });

  it.each([
    "",
    "a/b",
    "..",
    "a..b",
    ".",
    "a b",
    "a\tb",
    "a\nb",
    "a\u0000b",
    "a\u007fb",
    "a\\b",
    "a%2Fb",
    "a?b",
    "a#b",
    " uat",
    "a\u0085b",
    "x".repeat(201),
  ])("refuses %j before any request", (name) => {
    expect(nameProblem(name)).toBeDefined();
    expect(() => segment("environment", name)).toThrow(InvalidArgumentError);
  });

  it("names the argument and shows the value quoted", () => {
    try {
      segment("environment", "u at");
      expect.unreachable();
    } catch (error) {
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
      expect((error as InvalidArgumentError).argument).toBe("environment");
      expect((error as Error).message).toBe(
        '[environment] "u at" must not contain whitespace (it would change the API path); no request was sent',
      );
    }
  });
});

describe("numericId", () => {
  it("accepts numbers and digit strings", () => {
    expect(numericId("id", 42)).toBe("42");
    expect(numericId("id", "7")).toBe("7");
  });
  it.each(["", "0", "-1", "1.5", "12a", "../1", "01", "1234567890123456"])("refuses %j", (value) => {
    expect(() => numericId("id", value)).toThrow(InvalidArgumentError);
  });
  it("refuses non-integer numbers", () => {
    expect(() => numericId("id", 1.5)).toThrow(InvalidArgumentError);
  });
});

describe("queryString", () => {
  it("encodes defined values in order and repeats array keys with []", () => {
    expect(queryString({ a: "x y", b: undefined, c: 3, filters: ["m/1", "m2"] })).toBe(
      "?a=x%20y&c=3&filters%5B%5D=m%2F1&filters%5B%5D=m2",
    );
  });
  it("is empty without values", () => {
    expect(queryString(undefined)).toBe("");
    expect(queryString({ a: undefined })).toBe("");
  });
});
