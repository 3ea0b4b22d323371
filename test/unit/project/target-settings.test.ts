import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CliError, UsageError } from "../../../src/cli/kit/exit-codes";
import { targetApiSettings, targetNameOf } from "../../../src/project/target-settings";

const empty = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-target-settings-"));
afterAll(() => fs.rmSync(empty, { recursive: true, force: true }));

const all = {
  STACKWRIGHT_API_URL: "https://api.example.com",
  STACKWRIGHT_EMAIL: "ops@example.com",
  STACKWRIGHT_API_TOKEN: "t",
};

async function refusal(promise: Promise<unknown>): Promise<CliError> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CliError);
  return error as CliError;
}

describe("the target a command uses", () => {
  it("is dev unless --target names another, which must be a name Pulumi stacks can carry", () => {
    expect(targetNameOf(undefined)).toBe("dev");
    expect(targetNameOf("production")).toBe("production");
    expect(() => targetNameOf("prod.eu")).toThrow(UsageError);
    expect(() => targetNameOf("prod.eu")).toThrow("must be 1 to 40 letters, digits, '_' or '-' (no '.')");
  });
});

describe("a target's API settings", () => {
  it("come from the variables alone when they give all three: the file is not needed", async () => {
    const config = await targetApiSettings({ projectDir: empty, target: "production", env: all });
    expect(config("stackwright:apiUrl")).toBeUndefined();
  });

  it("with neither variables nor a settings file, say in one line what to set", async () => {
    const error = await refusal(targetApiSettings({ projectDir: empty, target: "production", env: {} }));
    expect(error).not.toBeInstanceOf(UsageError);
    expect(error.message).toBe(
      `no API settings for target 'production': set STACKWRIGHT_API_URL, STACKWRIGHT_EMAIL, STACKWRIGHT_API_TOKEN, ` +
        `or create ${path.join(empty, "Pulumi.production.yaml")} with stackwright:apiUrl, stackwright:email, ` +
        "stackwright:apiToken (npm run stackwright -- env --target production prints the environment for the pulumi config commands)",
    );
  });

  it("name only what the variables leave out", async () => {
    const error = await refusal(
      targetApiSettings({
        projectDir: empty,
        target: "staging",
        env: { STACKWRIGHT_API_URL: all.STACKWRIGHT_API_URL },
      }),
    );
    expect(error.message).toContain("set STACKWRIGHT_EMAIL, STACKWRIGHT_API_TOKEN, or create");
    expect(error.message).not.toContain("STACKWRIGHT_API_URL");
  });

  it("are refused before the file is read when the target has no passphrase it may use", async () => {
    fs.writeFileSync(
      path.join(empty, "Pulumi.qa.yaml"),
      "config:\n  stackwright:apiUrl: https://api.example.com\n",
    );
    const error = await refusal(targetApiSettings({ projectDir: empty, target: "qa", env: {} }));
    expect(error.message).toContain("target 'qa' needs a secrets passphrase");
  });
});
