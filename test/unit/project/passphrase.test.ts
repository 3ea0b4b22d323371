import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  BUILT_IN_PASSPHRASE,
  encryptedWithBuiltInPassphrase,
  saltOpensWith,
  secretsEnv,
} from "../../../src/project/passphrase";
import { CliError } from "../../../src/cli/kit/exit-codes";
import { repoRoot } from "../../helpers/scratch-project";

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-passphrase-"));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** The demo target's file: its salt was made by Pulumi with the built-in passphrase. */
const demoFile = path.join(repoRoot, "Pulumi.dev.yaml");
const demoSalt = /encryptionsalt: (\S+)/.exec(fs.readFileSync(demoFile, "utf8"))?.[1] ?? "";

function settingsFile(name: string, text: string): string {
  const file = path.join(scratch, name);
  fs.writeFileSync(file, text);
  return file;
}

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    return (error as CliError).message;
  }
  throw new Error("expected a refusal");
}

describe("the built-in passphrase", () => {
  it("opens the salt Pulumi made with it, and no other passphrase does", () => {
    expect(saltOpensWith(demoSalt, BUILT_IN_PASSPHRASE)).toBe(true);
    expect(saltOpensWith(demoSalt, "another passphrase")).toBe(false);
    expect(saltOpensWith("v1:not-a-salt", BUILT_IN_PASSPHRASE)).toBe(false);
  });

  it("is named as the key of a production file that was encrypted with it", () => {
    const copied = settingsFile(
      "Pulumi.production.yaml",
      fs.readFileSync(demoFile, "utf8").replace("http://127.0.0.1:8787", "https://api.example.com"),
    );
    expect(encryptedWithBuiltInPassphrase(copied)).toBe(true);
    const message = refusal(() => secretsEnv({ target: "production", configFile: copied, env: {} }));
    expect(message).toContain("target 'production' needs a secrets passphrase");
    expect(message).toContain("anyone who reads Pulumi.production.yaml can decrypt them");
  });

  it("serves the demo's dev target on loopback when no passphrase is set", () => {
    expect(secretsEnv({ target: "dev", configFile: demoFile, env: {} })).toEqual({
      PULUMI_CONFIG_PASSPHRASE: BUILT_IN_PASSPHRASE,
    });
  });

  it("does not serve a dev target whose API is off this machine", () => {
    const remote = settingsFile(
      "Pulumi.dev.yaml",
      "config:\n  stackwright:apiUrl: https://api.example.com\n",
    );
    expect(refusal(() => secretsEnv({ target: "dev", configFile: remote, env: {} }))).toContain(
      "target 'dev' needs a secrets passphrase",
    );
  });

  it("judges the dev target by the API its runs reach: the variable's, over the file's", () => {
    const bare = settingsFile("Pulumi.dev.yaml", "config: {}\n");
    const onLoopback = { STACKWRIGHT_API_URL: "http://127.0.0.1:4010" };
    expect(secretsEnv({ target: "dev", configFile: bare, env: onLoopback })).toEqual({
      PULUMI_CONFIG_PASSPHRASE: BUILT_IN_PASSPHRASE,
    });
    const offMachine = { STACKWRIGHT_API_URL: "https://api.example.com" };
    expect(refusal(() => secretsEnv({ target: "dev", configFile: bare, env: offMachine }))).toContain(
      "target 'dev' needs a secrets passphrase",
    );
    expect(refusal(() => secretsEnv({ target: "dev", configFile: undefined, env: offMachine }))).toContain(
      "target 'dev' needs a secrets passphrase",
    );
    expect(refusal(() => secretsEnv({ target: "dev", configFile: demoFile, env: offMachine }))).toContain(
      "target 'dev' needs a secrets passphrase",
    );
  });

  it("refuses a target with no passphrase before anything is read from its secrets", () => {
    const fresh = settingsFile(
      "Pulumi.staging.yaml",
      "config:\n  stackwright:apiUrl: https://api.example.com\n",
    );
    const message = refusal(() => secretsEnv({ target: "staging", configFile: fresh, env: {} }));
    expect(message).toContain("set PULUMI_CONFIG_PASSPHRASE");
    expect(message).not.toContain("anyone who reads");
    expect(refusal(() => secretsEnv({ target: "staging", configFile: undefined, env: {} }))).toContain(
      "Pulumi.staging.yaml",
    );
  });

  it("is refused when the user sets it for another target", () => {
    const fresh = settingsFile("Pulumi.prod.yaml", "config: {}\n");
    expect(
      refusal(() =>
        secretsEnv({
          target: "prod",
          configFile: fresh,
          env: { PULUMI_CONFIG_PASSPHRASE: BUILT_IN_PASSPHRASE },
        }),
      ),
    ).toContain("public demo passphrase");
  });

  it("leaves a passphrase of the user's own, or another secrets provider, as it is", () => {
    const fresh = settingsFile("Pulumi.qa.yaml", "config: {}\n");
    expect(
      secretsEnv({ target: "qa", configFile: fresh, env: { PULUMI_CONFIG_PASSPHRASE: "s3cret" } }),
    ).toEqual({});
    expect(
      secretsEnv({
        target: "qa",
        configFile: fresh,
        env: { PULUMI_CONFIG_PASSPHRASE_FILE: "/run/secrets/p" },
      }),
    ).toEqual({});
    const kms = settingsFile("Pulumi.kms.yaml", "secretsprovider: awskms://alias/ops\nconfig: {}\n");
    expect(secretsEnv({ target: "kms", configFile: kms, env: {} })).toEqual({});
  });

  it("says which file is not a settings file", () => {
    const broken = settingsFile("Pulumi.broken.yaml", "- a list\n");
    expect(refusal(() => secretsEnv({ target: "broken", configFile: broken, env: {} }))).toContain(
      "is not a Pulumi stack settings file",
    );
  });
});
