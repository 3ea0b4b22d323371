import { describe, expect, it } from "vitest";
import { baseUrlProblem, resolveCredentials } from "../../../src/client";

describe("the API settings", () => {
  const config = (values: Record<string, string>) => (key: string) => values[key];

  it("take each variable over the stack config, and say where each came from", () => {
    const resolved = resolveCredentials(
      config({ "stackwright:apiUrl": "https://config.example", "stackwright:email": "config@example.com" }),
      { STACKWRIGHT_API_URL: "https://env.example", STACKWRIGHT_API_TOKEN: "t", STACKWRIGHT_EMAIL: "" },
    );
    expect(resolved.baseUrl).toMatchObject({ value: "https://env.example", from: "STACKWRIGHT_API_URL" });
    // An empty variable does not hide the config value.
    expect(resolved.email).toMatchObject({
      value: "config@example.com",
      from: "stack config stackwright:email",
    });
    expect(resolved.token).toMatchObject({ value: "t", from: "STACKWRIGHT_API_TOKEN" });
  });

  it("leave a setting out when neither source has it", () => {
    expect(resolveCredentials(undefined, {})).toEqual({});
  });

  it.each([
    ["https://api.example", undefined],
    ["http://127.0.0.1:8080/base", undefined],
    ["api.example", "is not an absolute URL (expected https://host or https://host/base-path)"],
    [
      "https://ops:secret@api.example",
      "must not contain credentials (user:password@); the e-mail and token are separate settings",
    ],
    ["https://api.example/?x=1", "must not have a query or fragment"],
    [
      "http://api.example",
      "uses http to api.example, which would send the API token in clear text; use https",
    ],
    ["ftp://api.example", "must be https (or http on loopback), not ftp:"],
  ])("judge the base URL %s", (url, problem) => {
    expect(baseUrlProblem(url)).toBe(problem);
  });

  it("never echo the password of a URL with credentials", () => {
    expect(baseUrlProblem("https://ops:secret@api.example")).not.toContain("secret");
  });
});
