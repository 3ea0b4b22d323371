/** The suite-wide token check of test/global-setup.ts, on records made up here. */
import { describe, expect, it } from "vitest";
import { findLeaks, seedUsers, type ClientRecord } from "../../global-setup";

const text = (t: string): ClientRecord => ({ kind: "text", file: "a.test.ts", test: "t", text: t });

describe("seedUsers", () => {
  it("reads the tokens of the demo seed and the test seed from their files", () => {
    const tokens = seedUsers().map((u) => u.token);
    expect(tokens).toContain("demo-token");
    expect(tokens).toContain("release-token");
  });
});

describe("findLeaks", () => {
  const users = [{ email: "ops@example.com", token: "demo-token" }];

  it("finds a seed token and names it by its owner, never by its value", () => {
    const leaks = findLeaks([text("GET /svc/meta with demo-token")], users);
    expect(leaks).toEqual([
      {
        file: "a.test.ts",
        test: "t",
        secret: "seed token of ops@example.com",
        excerpt: "GET /svc/meta with [seed token of ops@example.com]",
      },
    ]);
  });

  it("finds the Basic header built from a token", () => {
    const header = `Basic ${Buffer.from("ops@example.com:demo-token").toString("base64")}`;
    expect(findLeaks([text(`{"authorization":"${header}"}`)], users).map((l) => l.secret)).toEqual([
      "Basic header with the seed token of ops@example.com",
    ]);
  });

  it("looks for a token a test gave a client, but not inside the record that names it", () => {
    const records: ClientRecord[] = [
      { kind: "secret", email: "ops@example.com", token: "tok-made-up" },
      text("401 for tok-made-up"),
    ];
    expect(findLeaks(records, users).map((l) => l.secret)).toEqual(["test token of ops@example.com"]);
  });

  it("finds nothing in texts without a token", () => {
    expect(findLeaks([text("GET /svc/meta answered 401: Unauthorized")], users)).toEqual([]);
  });
});
