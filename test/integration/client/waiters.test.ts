/** Waiters against the emulator: success, failure, timeout and abort, with progress reports. */
import { describe, expect, it } from "vitest";
import { AbortedError, WaitFailedError, WaitTimeoutError, type WaitProgress } from "../../../src/client";
import type { Deployment } from "../../../src/api";
import { STACK, failure, useClientWorld } from "../../helpers/client";

const world = useClientWorld();

/** A deployment queued at once on uat (bypass_and_start), so it runs to its end unattended. */
async function startedOnUat(): Promise<Deployment> {
  return world.client.deployments.create(STACK, "uat", {
    ref_type: "branch",
    ref: "main",
    bypass_and_start: true,
  });
}

/** A deployment that waits for a person (created Submitted on prod). */
async function awaitingApproval(): Promise<string> {
  const d = await world.client.deployments.create(STACK, "prod", { ref_type: "promote_from_uat" });
  return d.id;
}

describe("waitForDeployment", () => {
  it("returns the deployment once it is Completed, reporting each state seen", async () => {
    const d = await startedOnUat();
    const seen: WaitProgress[] = [];
    const done = await world.client.waitForDeployment(STACK, "uat", d.id, {
      onProgress: (p) => seen.push(p),
    });
    expect(done.attributes.state).toBe("Completed");
    expect(seen.at(-1)?.state).toBe("Completed");
    expect(seen.map((p) => p.polls)).toEqual(seen.map((_, i) => i + 1));
    expect(seen[0]?.subject).toBe(`deployment ${d.id} on ${STACK}/uat`);
  });

  it("throws WaitFailedError with the state and link when the deployment fails", async () => {
    await world.hooks.nextOutcome(STACK, "uat", "fail");
    const d = await startedOnUat();
    const error = await failure(world.client.waitForDeployment(STACK, "uat", d.id));
    expect(WaitFailedError.isInstance(error)).toBe(true);
    expect((error as WaitFailedError).state).toBe("Failed");
    // The link of the single view (the platform's create response carries none).
    expect((error as WaitFailedError).link).toMatch(new RegExp(`/deploys/${d.id}$`));
  });

  it("throws WaitFailedError when a person rejects the deployment during the wait", async () => {
    const id = await awaitingApproval();
    const wait = failure(
      world.client.waitForDeployment(STACK, "prod", id, {
        onProgress: (p) => {
          if (p.polls === 2) void world.hooks.reject(STACK, "prod", id);
        },
      }),
    );
    const error = await wait;
    expect(WaitFailedError.isInstance(error)).toBe(true);
    expect((error as WaitFailedError).state).toBe("Rejected");
  });

  it("gives up at the bound with the bound in ms and the last state seen", async () => {
    const id = await awaitingApproval();
    const error = await failure(world.client.waitForDeployment(STACK, "prod", id, { timeoutMs: 150 }));
    expect(WaitTimeoutError.isInstance(error)).toBe(true);
    expect((error as WaitTimeoutError).timeoutMs).toBe(150);
    expect((error as WaitTimeoutError).lastState).toBe("Submitted");
    expect((error as Error).message).toContain("after 150 ms");
    expect((error as Error).message).toContain("last state seen: Submitted");
  });

  it("stops with AbortedError when the caller's signal fires", async () => {
    const id = await awaitingApproval();
    const controller = new AbortController();
    const error = await failure(
      world.client.waitForDeployment(STACK, "prod", id, {
        signal: controller.signal,
        onProgress: (p) => {
          if (p.polls === 3) controller.abort();
        },
      }),
    );
    expect(AbortedError.isInstance(error)).toBe(true);
    const polls = (await world.hooks.requests()).filter((r) => r.method === "GET");
    expect(polls).toHaveLength(3);
  });
});

describe("waitForTransfer and waitForSnapshot", () => {
  it("return once the snapshot transfer is Finished and the snapshot complete", async () => {
    const created = await world.client.snapshots.create(STACK, { environment: "uat", mode: "assets" });
    if (created.kind !== "transfer") throw new Error("expected a transfer");
    const transfer = await world.client.waitForTransfer(STACK, created.transfer.id);
    expect(transfer.attributes.status).toBe("Finished");
    const snapshotId = transfer.relationships?.snapshot?.data?.id;
    if (snapshotId === undefined) throw new Error("finished transfer without a snapshot");
    expect((await world.client.waitForSnapshot(STACK, snapshotId)).attributes.snapshot_status).toBe(
      "complete",
    );
  });
});

describe("waitForFetch", () => {
  it("returns once the fetch is Complete", async () => {
    const queued = await world.client.fetches.create(STACK);
    expect((await world.client.waitForFetch(STACK, queued.id)).attributes.status).toBe("Complete");
  });
});
