/**
 * `stackwright logs` and `stackwright snapshot download` as an operator runs them: the built
 * command (run in this process, as its bin/stackwright.js runs it: test/helpers/in-process.ts),
 * against an emulator on 127.0.0.1. Output is not a terminal here, so the download reports plain
 * progress lines.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import type { StackwrightClient } from "../../src/client";
import { TEST_USERS } from "../helpers/emulator";
import { fixtures, type InProcessEmulator } from "../helpers/fixtures";
import { repoRoot } from "../helpers/scratch-project";
import { runInProject } from "../helpers/in-process";

const STACK = "acme-web";
const { stackManager } = TEST_USERS;
const test = fixtures();
let emulator: InProcessEmulator;
let client: StackwrightClient;
let dir = "";

test.beforeAll(({ emulatorInProcess, client: stackManagers, fileScratchDir }) => {
  [emulator, client, dir] = [emulatorInProcess, stackManagers, fileScratchDir];
});
// Every test starts from the seed.
test.beforeEach(() => emulator.hooks.reset());

/** Runs the built `stackwright` with the API settings of the stack manager (or `token`). */
async function stackwright(args: string[], token: string = stackManager.token) {
  const env: Record<string, string> = {
    PATH: process.env["PATH"] ?? "",
    STACKWRIGHT_API_URL: emulator.url,
    STACKWRIGHT_EMAIL: stackManager.email,
    STACKWRIGHT_API_TOKEN: token,
  };
  const { status, out } = await runInProject(repoRoot, args, env);
  expect(out).not.toContain(token);
  return { status, out };
}

async function deployUat(): Promise<string> {
  const d = await client.deployments.create(STACK, "uat", {
    ref_type: "branch",
    ref: "main",
    bypass_and_start: true,
  });
  return d.id;
}

describe("stackwright logs", () => {
  test("prints the log of the environment's newest deployment", async () => {
    const id = await deployUat();
    await client.waitForDeployment(STACK, "uat", id);
    const { lines } = await client.deployments.log(STACK, "uat", id);
    const { status, out } = await stackwright(["logs", STACK, "uat"]);
    expect(status).toBe(0);
    expect(out).toContain(`deployment ${id} (Completed)`);
    for (const line of lines) expect(out).toContain(line);
  });

  test("follows a running deployment to its end and exits 1 when it failed", async () => {
    await emulator.hooks.nextOutcome(STACK, "uat", "fail");
    // Long enough that the command starts while the deployment still runs, even on a busy machine.
    await emulator.hooks.stallNext(STACK, "uat", 12_000);
    const id = await deployUat();
    const { status, out } = await stackwright(["logs", STACK, "uat", "--deployment", id, "--follow"]);
    const { lines } = await client.deployments.log(STACK, "uat", id);
    expect(out).toContain(`deployment ${id} (Deploying)`);
    expect(out).toContain(`deployment ${id} Failed`);
    // Every line once, in order, although the log was read several times.
    const printed = out.split("\n").filter((line) => lines.includes(line));
    expect(printed).toEqual(lines);
    expect(status).toBe(1);
  }, 60_000);

  test("refuses a deployment id that no platform id can be, before any request", async () => {
    const { status, out } = await stackwright(["logs", STACK, "uat", "--deployment", "007"]);
    expect(out.trim()).toBe(
      "stackwright logs: --deployment '007' must be a positive whole number (a platform id) (npm run stackwright -- logs --help lists its flags)",
    );
    expect(status).toBe(2);
  });

  test("says in one line that the token was refused, and which variable to change", async () => {
    const { status, out } = await stackwright(["logs", STACK, "uat"], "wrong-token-for-logs");
    expect(out.trim()).toBe(
      `stackwright logs: the API at ${emulator.url} refused the credentials of ops@example.com (401); check STACKWRIGHT_API_TOKEN and STACKWRIGHT_EMAIL`,
    );
    expect(status).toBe(2);
  });
});

describe("stackwright snapshot download", () => {
  test("downloads a complete snapshot with plain progress lines, and resumes a partial file", async () => {
    const created = await client.snapshots.create(STACK, { environment: "uat", mode: "db" });
    if (created.kind !== "transfer") throw new Error("expected a transfer");
    const transfer = await client.waitForTransfer(STACK, created.transfer.id);
    const id = transfer.relationships?.snapshot?.data?.id ?? "";
    const size = Number((await client.snapshots.get(STACK, id)).attributes.size);

    const file = join(dir, "snapshot.sspak");
    const { status, out } = await stackwright(["snapshot", "download", STACK, id, "--to", file]);
    expect(status).toBe(0);
    expect(out).toContain("downloaded 100%");
    expect(out).toContain(`written to ${file}`);
    expect(statSync(file).size).toBe(size);

    // Half a download left behind by an interrupted run: the command finishes it.
    const again = join(dir, "again.sspak");
    const whole = readFileSync(file);
    writeFileSync(`${again}.part`, whole.subarray(0, Math.floor(size / 2)));
    const resumed = await stackwright(["snapshot", "download", STACK, id, "--to", again]);
    expect(resumed.status).toBe(0);
    expect(resumed.out).toContain("resumed at");
    expect(readFileSync(again).equals(whole)).toBe(true);
  });
});
