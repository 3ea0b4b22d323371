/** Deployment and transfer logs, and the snapshot download, against the emulator. */
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AbortedError, PARTIAL_SUFFIX, WaitFailedError } from "../../../src/client";
import { STACK, failure, useClientWorld } from "../../helpers/client";

const world = useClientWorld();
const dir = mkdtempSync(join(tmpdir(), "sw-emu-download-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sha256 = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

async function deployUat() {
  return world.client.deployments.create(STACK, "uat", {
    ref_type: "branch",
    ref: "main",
    bypass_and_start: true,
  });
}

/** A complete snapshot of uat's database. */
async function completeSnapshot(): Promise<string> {
  const created = await world.client.snapshots.create(STACK, { environment: "uat", mode: "db" });
  if (created.kind !== "transfer") throw new Error("expected a transfer");
  const transfer = await world.client.waitForTransfer(STACK, created.transfer.id);
  const id = transfer.relationships?.snapshot?.data?.id;
  if (id === undefined) throw new Error("the finished transfer names no snapshot");
  return id;
}

describe("deployments.log", () => {
  it("returns the deployment and every line of its log once it has finished", async () => {
    const d = await deployUat();
    await world.client.waitForDeployment(STACK, "uat", d.id);
    const log = await world.client.deployments.log(STACK, "uat", d.id);
    expect(log.deployment.id).toBe(d.id);
    expect(log.deployment.attributes.state).toBe("Completed");
    expect(log.lines.length).toBeGreaterThan(1);
  });

  it("carries the failure's reason in the last lines of a failed deployment", async () => {
    await world.hooks.nextOutcome(STACK, "uat", "fail");
    const d = await deployUat();
    expect(
      WaitFailedError.isInstance(await failure(world.client.waitForDeployment(STACK, "uat", d.id))),
    ).toBe(true);
    const log = await world.client.deployments.log(STACK, "uat", d.id);
    expect(log.deployment.attributes.state).toBe("Failed");
    expect(log.lines.join("\n").toLowerCase()).toContain("fail");
  });
});

describe("transfers.log", () => {
  it("says Complete with the log text once a snapshot's transfer has finished", async () => {
    const created = await world.client.snapshots.create(STACK, { environment: "uat", mode: "db" });
    if (created.kind !== "transfer") throw new Error("expected a transfer");
    await world.client.waitForTransfer(STACK, created.transfer.id);
    const log = await world.client.transfers.log(STACK, created.transfer.id);
    expect(log.status).toBe("Complete");
    expect(log.content).not.toBe("");
  });
});

describe("snapshots.download", () => {
  it("writes the declared size, and resumes a download that was interrupted halfway", async () => {
    const id = await completeSnapshot();
    const snapshot = await world.client.snapshots.get(STACK, id);
    const size = Number(snapshot.attributes.size);

    const whole = join(dir, "whole.sspak");
    await world.client.snapshots.download(STACK, id, { to: whole });
    expect(statSync(whole).size).toBe(size);

    const resumed = join(dir, "resumed.sspak");
    const controller = new AbortController();
    const error = await failure(
      world.client.snapshots.download(STACK, id, {
        to: resumed,
        signal: controller.signal,
        onProgress: (p) => {
          if (p.receivedBytes >= p.totalBytes / 2) controller.abort();
        },
      }),
    );
    expect(AbortedError.isInstance(error)).toBe(true);
    const kept = statSync(`${resumed}${PARTIAL_SUFFIX}`).size;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(size);

    const result = await world.client.snapshots.download(STACK, id, { to: resumed });
    expect(result).toMatchObject({ bytes: size, resumedFromBytes: kept, requests: 1 });
    expect(existsSync(`${resumed}${PARTIAL_SUFFIX}`)).toBe(false);
    expect(sha256(resumed)).toBe(sha256(whole));
  });
});
