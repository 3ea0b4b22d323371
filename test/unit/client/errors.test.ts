import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import {
  ApiError,
  AuthenticationError,
  ConflictError,
  ConnectionError,
  ErrorCode,
  HttpStatusError,
  NotFoundError,
  OutcomeUnknownError,
  PermissionError,
  RateLimitError,
  ServerError,
  ValidationError,
  errorFromResponse,
  safeCause,
} from "../../../src/client/errors";

const info = { method: "GET", path: "/svc/projects", titles: ["Nope"], requestId: "r-1" };

describe("errorFromResponse", () => {
  it.each([
    [401, AuthenticationError, ErrorCode.Authentication],
    [403, PermissionError, ErrorCode.Permission],
    [404, NotFoundError, ErrorCode.NotFound],
    [409, ConflictError, ErrorCode.Conflict],
    [400, ValidationError, ErrorCode.Validation],
    [422, ValidationError, ErrorCode.Validation],
    [429, RateLimitError, ErrorCode.RateLimit],
    [500, ServerError, ErrorCode.Server],
    [503, ServerError, ErrorCode.Server],
    [418, HttpStatusError, ErrorCode.HttpStatus],
  ] as const)("maps %i to its class with a stable code", (status, Class, code) => {
    const error = errorFromResponse({ ...info, status });
    expect(error).toBeInstanceOf(Class);
    expect(error.code).toBe(code);
    expect(Class.isInstance(error)).toBe(true);
    expect(error.name).toBe(Class.name);
    expect(error.status).toBe(status);
    expect(error.message).toContain(`GET /svc/projects answered ${status}: Nope`);
    expect(error.requestId).toBe("r-1");
  });

  it("keeps every title of the error document", () => {
    const error = errorFromResponse({ ...info, status: 409, titles: ["Locked", "Change freeze"] });
    expect(error.titles).toEqual(["Locked", "Change freeze"]);
    expect(error.message).toContain("Locked; Change freeze");
  });

  it("says so when the response had no error title", () => {
    expect(errorFromResponse({ ...info, status: 502, titles: [] }).message).toContain("no error title");
  });
});

describe("ApiError", () => {
  it("is recognised by a brand even without instanceof (two module copies)", () => {
    const foreign = Object.assign(Object.create(null) as object, {
      [Symbol.for("stackwright.client.ApiError")]: true,
      code: ErrorCode.NotFound,
    });
    expect(ApiError.isInstance(foreign)).toBe(true);
    expect(NotFoundError.isInstance(foreign)).toBe(true);
    expect(ServerError.isInstance(foreign)).toBe(false);
    expect(ApiError.isInstance(new Error("x"))).toBe(false);
    expect(ApiError.isInstance(null)).toBe(false);
  });

  it("serializes only its structured fields", () => {
    const error = new ConnectionError("GET /x: broke", {
      method: "GET",
      path: "/x",
      requestSent: true,
      cause: new Error("socket"),
    });
    const json = JSON.parse(JSON.stringify(error)) as Record<string, unknown>;
    expect(json).toMatchObject({
      name: "ConnectionError",
      code: ErrorCode.Connection,
      method: "GET",
      path: "/x",
      requestSent: true,
    });
    expect(json.cause).toEqual({ name: "Error", message: "socket" });
    expect(inspect(error)).toContain("STACKWRIGHT_CONNECTION");
  });

  it("reduces a cause to name, code and message so foreign fields cannot leak", () => {
    const cause = Object.assign(new Error("refused"), {
      code: "ECONNREFUSED",
      headers: { authorization: "Basic secret" },
    });
    expect(safeCause(cause)).toEqual({ name: "Error", code: "ECONNREFUSED", message: "refused" });
    const error = new ConnectionError("x", { requestSent: false, cause });
    expect(JSON.stringify(error)).not.toContain("secret");
    expect(inspect(error, { depth: 10 })).not.toContain("secret");
  });

  it("names the failure that made an outcome unknown", () => {
    const reason = errorFromResponse({ ...info, method: "POST", status: 504 });
    const error = new OutcomeUnknownError("maybe", { reason });
    expect(error.reason).toBe(reason);
    expect(error.code).toBe(ErrorCode.OutcomeUnknown);
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({ reason: { status: 504 } });
  });
});
