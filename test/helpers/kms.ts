/**
 * The KMS key the scratch projects' targets are sealed with, as a production target's are
 * (`secretsprovider: awskms://…` in its settings file): moto's KMS (test/helpers/moto.ts), one
 * server and one key for the whole `vitest run`, started by the `engine` project's own global
 * setup (test/kms-setup.ts) and handed to its files with `inject` (test/helpers/run-kms.ts).
 *
 * Why not the demo's passphrase: Pulumi derives a passphrase's key with 1,000,000 rounds of
 * PBKDF2 in every process that opens the target's secrets (about 0.28 CPU-seconds each on the
 * 2-core machine), and an engine run with a KMS key asks the key server once instead. The
 * built-in passphrase keeps its own tests (`secrets: "passphrase"` of the fixtures' project).
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { parseDocument } from "yaml";
import { z } from "zod";
import { BUILT_IN_PASSPHRASE } from "../../src/project/passphrase";
import { emptyCheckpoint } from "../../src/state-backend";
import { MOTO_CREDENTIALS, motoRequest, startMoto } from "./moto";

const execFileAsync = promisify(execFile);
const repoRoot = path.resolve(__dirname, "..", "..");

/** The key under which test/kms-setup.ts provides the run's {@link TestKms}. */
export const KMS_KEY = "stackwrightKms";

/** A run's KMS key, and the demo's `dev` settings sealed with it. */
export const TestKms = z.object({
  /** The settings files' `secretsprovider:` (`awskms://KEY?region=…&endpoint=…`). */
  providerUrl: z.string(),
  /** The repository's Pulumi.dev.yaml, its secrets sealed with the key instead of the passphrase. */
  devSettings: z.string(),
  /** The data key the sealed file holds (`encryptedkey:`), for a settings file of another stack. */
  encryptedKey: z.string(),
  /** What Pulumi's AWS client needs to reach it. */
  env: z.record(z.string(), z.string()),
});
export type TestKms = z.infer<typeof TestKms>;

declare module "vitest" {
  export interface ProvidedContext {
    [KMS_KEY]: TestKms;
  }
}

const CreatedKey = z.object({ KeyMetadata: z.object({ KeyId: z.string() }) });

/** Starts moto, makes a key and seals the demo's settings with it. */
export async function startTestKms(): Promise<{ kms: TestKms; close: () => Promise<void> }> {
  const server = await startMoto();
  try {
    const created = await motoRequest("CreateKey", server.endpoint, {
      method: "POST",
      headers: {
        "content-type": "application/x-amz-json-1.1",
        "x-amz-target": "TrentService.CreateKey",
        // moto reads the region from the signature's scope and checks nothing else.
        authorization: `AWS4-HMAC-SHA256 Credential=${MOTO_CREDENTIALS["AWS_ACCESS_KEY_ID"]}/20260101/${MOTO_CREDENTIALS["AWS_REGION"]}/kms/aws4_request, SignedHeaders=host, Signature=0`,
      },
      body: JSON.stringify({ Description: "stackwright test targets" }),
    });
    const keyId = CreatedKey.parse(await created.json()).KeyMetadata.KeyId;
    const providerUrl = `awskms://${keyId}?region=${MOTO_CREDENTIALS["AWS_REGION"]}&endpoint=${server.endpoint}`;
    const devSettings = await sealDemoSettings(providerUrl);
    const encryptedKey = parseDocument(devSettings).get("encryptedkey");
    if (typeof encryptedKey !== "string") throw new Error("the sealed dev settings have no encryptedkey");
    return {
      kms: { providerUrl, devSettings, encryptedKey, env: { ...MOTO_CREDENTIALS } },
      close: () => server.close(),
    };
  } catch (err) {
    await server.close();
    throw err;
  }
}

/**
 * The repository's Pulumi.dev.yaml moved to `providerUrl` as an operator moves a target: `pulumi
 * stack change-secrets-provider`, opening the old secrets with the demo's passphrase.
 */
async function sealDemoSettings(providerUrl: string): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-kms-"));
  try {
    for (const file of ["Pulumi.yaml", "Pulumi.dev.yaml"]) {
      fs.copyFileSync(path.join(repoRoot, file), path.join(dir, file));
    }
    const stacks = path.join(dir, "state", ".pulumi", "stacks", "stackwright");
    fs.mkdirSync(stacks, { recursive: true });
    fs.writeFileSync(path.join(stacks, "dev.json"), emptyCheckpoint("stackwright", "dev"));
    await execFileAsync(
      path.join(repoRoot, ".tools", "bin", "pulumi"),
      ["stack", "change-secrets-provider", "--stack", "dev", "--non-interactive", providerUrl],
      {
        cwd: dir,
        timeout: 60_000,
        env: {
          PATH: process.env["PATH"] ?? "",
          HOME: dir,
          PULUMI_HOME: path.join(dir, "pulumi-home"),
          PULUMI_SKIP_UPDATE_CHECK: "true",
          PULUMI_BACKEND_URL: `file://${path.join(dir, "state")}`,
          PULUMI_CONFIG_PASSPHRASE: BUILT_IN_PASSPHRASE,
          ...MOTO_CREDENTIALS,
        },
      },
    );
    const sealed = fs.readFileSync(path.join(dir, "Pulumi.dev.yaml"), "utf8");
    // The file's own comments speak of the passphrase; the copy says what seals it now.
    const settings = sealed.replace(/^(#.*\n)+/, "");
    return `# The demo's dev target, its token sealed with this test run's KMS key (test/helpers/kms.ts).\n${settings}`;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
