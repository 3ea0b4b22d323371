import { describe, expect, it } from "vitest";
import { ConflictError, WaitFailedError, WaitTimeoutError } from "../../../src/client";
import { busyTransferOf, startWhenFree } from "../../../providers/behaviour/busy-environment";

const busy = (id: number) =>
  new ConflictError(
    `POST /svc/project/acme-web/snapshots/13 answered 409: Another transfer is in progress on 'acme-web/uat' (transfer ${id} is Running); one transfer per environment at a time`,
    { status: 409, method: "POST", path: "/svc/project/acme-web/snapshots/13" },
  );
const locked = new ConflictError(
  "POST /svc/project/acme-web/snapshots/13 answered 409: Environment 'acme-web/uat' is locked, cannot restore: freeze",
  { status: 409 },
);

/** A start that fails with the given errors in turn, then answers "started". */
function starts(...errors: Error[]) {
  let calls = 0;
  return {
    calls: () => calls,
    start: () => {
      const error = errors[calls++];
      return error === undefined ? Promise.resolve("started") : Promise.reject(error);
    },
  };
}

function client(onWait: (id: string, timeoutMs: number | undefined) => Promise<unknown>) {
  const waited: string[] = [];
  return {
    waited,
    client: {
      waitForTransfer: (_stack: string, id: string | number, options?: { timeoutMs?: number }) => {
        waited.push(String(id));
        return onWait(String(id), options?.timeoutMs);
      },
    },
  };
}

const ended = () => Promise.resolve("Finished");
const where = { stack: "acme-web", where: "acme-web/uat", boundMs: 60_000 };

describe("starting a transfer on a busy environment", () => {
  it("reads the transfer in flight from the platform's 409, and nothing from other conflicts", () => {
    expect(busyTransferOf(busy(501))).toBe("501");
    expect(busyTransferOf(locked)).toBeUndefined();
    expect(busyTransferOf(new Error("transfer 5 is in progress"))).toBeUndefined();
  });

  it("waits for the named transfer, then starts again", async () => {
    const s = starts(busy(501), busy(502));
    const c = client(ended);
    await expect(startWhenFree({ ...where, client: c.client }, s.start)).resolves.toBe("started");
    expect(c.waited).toEqual(["501", "502"]);
    expect(s.calls()).toBe(3);
  });

  it("starts again when the transfer it waited for failed, since that frees the environment too", async () => {
    const s = starts(busy(501));
    const c = client(() =>
      Promise.reject(
        new WaitFailedError("transfer 501 ended in state Failed", { state: "Failed", link: undefined }),
      ),
    );
    await expect(startWhenFree({ ...where, client: c.client }, s.start)).resolves.toBe("started");
  });

  it("fails at once on a conflict that is not another transfer, such as a lock", async () => {
    const s = starts(locked);
    const c = client(ended);
    await expect(startWhenFree({ ...where, client: c.client }, s.start)).rejects.toBe(locked);
    expect(c.waited).toEqual([]);
  });

  it("gives up at the resource's bound, saying which transfer held the environment and that nothing started", async () => {
    const s = starts(busy(501));
    const c = client((_id, timeoutMs) => {
      expect(timeoutMs).toBeLessThanOrEqual(60_000);
      return Promise.reject(
        new WaitTimeoutError("Gave up waiting", { timeoutMs: 60_000, lastState: "Running" }),
      );
    });
    await expect(startWhenFree({ ...where, client: c.client }, s.start)).rejects.toThrow(
      "acme-web/uat stayed busy: transfer 501 did not finish within 60 s (timeout_seconds), so nothing was started",
    );
  });

  it("does not wait at all once the bound has passed", async () => {
    let now = 0;
    const s = starts(busy(501), busy(502));
    const c = client(() => {
      now += 61_000;
      return ended();
    });
    await expect(startWhenFree({ ...where, client: c.client, now: () => now }, s.start)).rejects.toThrow(
      "transfer 502 did not finish within 60 s",
    );
    expect(c.waited).toEqual(["501"]);
  });
});
