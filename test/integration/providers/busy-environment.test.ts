import { afterAll, beforeAll, expect, it } from "vitest";
import { createClient } from "../../../src/client";
import { startTestEmulator, TEST_USERS, type TestEmulator } from "../../helpers/emulator";
import * as snapshot from "../../../providers/behaviour/snapshot";
import * as restore from "../../../providers/behaviour/snapshot-restore";
import { configure } from "../../../providers/behaviour/settings";

// Found by the provider fault fuzz (seed 1954469076): two restores into one environment in one
// change; the platform refuses the second while the first runs (409, one transfer per
// environment at a time), and the run failed instead of waiting for the environment.
const PROVIDER = "exports.handler = () => ({})";
let emulator: TestEmulator;

beforeAll(async () => {
  // `fast`: a transfer takes a few hundred ms, long enough to be caught running.
  emulator = await startTestEmulator({ speed: "fast" });
  const user = TEST_USERS.stackManager;
  const values: Record<string, string> = {
    "stackwright:apiUrl": emulator.url,
    "stackwright:email": user.email,
    "stackwright:apiToken": user.token,
  };
  await configure({ config: { get: (key) => values[key] } });
});
afterAll(async () => emulator?.close());

it("starts a restore once the environment's transfer in flight has ended, instead of failing on it", async () => {
  const snap = await snapshot.check(
    {},
    {
      stack: "acme-web",
      environment: "uat",
      mode: "db",
      marker_seed: "t/Snapshot/busy",
      __provider: PROVIDER,
    },
  );
  const made = await snapshot.create(snap.inputs);
  const user = TEST_USERS.stackManager;
  const client = createClient({ baseUrl: emulator.url, email: user.email, token: user.token });
  try {
    const first = await client.snapshots.restore("acme-web", made.id, { environment: "uat", mode: "db" });
    expect(first.attributes.status).not.toBe("Finished");
    const checked = await restore.check(
      {},
      {
        stack: "acme-web",
        environment: "uat",
        snapshot_id: made.id,
        mode: "db",
        confirm: "uat",
        __provider: PROVIDER,
      },
    );
    const second = await restore.create(checked.inputs);
    expect(second.outs["status"]).toBe("Finished");
    const posts = (await emulator.hooks.requests()).filter(
      (r) => r.method === "POST" && r.path === `/svc/project/acme-web/snapshots/${made.id}`,
    );
    // The caller's restore, the refused one, and the one started after the wait.
    expect(posts).toHaveLength(3);
    const restores = (await emulator.hooks.transfers("acme-web")).filter((t) => t.direction === "restore");
    expect(restores).toHaveLength(2);
  } finally {
    await client.close();
  }
});
