import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DeploymentDocument, TransferDocument } from "../../../src/api";
import {
  type EmulatorProcess,
  TEST_SEED_PATH,
  TWO_EMULATOR_STARTS_MS,
  spawnEmulator,
} from "../../helpers/emulator";
import { apiCaller, eventually } from "../../helpers/emulator-http";

const dir = mkdtempSync(join(tmpdir(), "stackwright-emulator-"));
const running: EmulatorProcess[] = [];
afterAll(() => {
  for (const p of running)
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

async function start(stateFile: string, speed: string, port = 0): Promise<EmulatorProcess> {
  const p = await spawnEmulator([
    "--port",
    String(port),
    "--seed",
    TEST_SEED_PATH,
    "--state-file",
    stateFile,
    "--speed",
    speed,
  ]);
  running.push(p);
  return p;
}

async function kill9(p: EmulatorProcess): Promise<void> {
  p.child.kill("SIGKILL");
  expect(await p.exited).toBe("SIGKILL");
}

const UAT = "/svc/project/acme-web/environment/uat";
const STACK = "/svc/project/acme-web";

/** Documents whose bodies carry the clock (meta.now, server_time) are left out of the comparison. */
const STABLE_GETS = [
  "/svc/projects",
  `${UAT}`,
  `${UAT}/deploys`,
  `${UAT}/deploys?state=Deleted`,
  "/svc/project/acme-web/environment/prod",
  `${STACK}/snapshots`,
  "/api/v1/Page/12",
];

describe("state file", { timeout: TWO_EMULATOR_STARTS_MS }, () => {
  it("answers exactly as before after kill -9 and a restart", async () => {
    const stateFile = join(dir, "quiet.db");
    const first = await start(stateFile, "instant");
    const call = apiCaller(first.url);
    const started = DeploymentDocument.parse(
      (
        await call("POST", `${UAT}/deploys`, {
          body: { ref_type: "tag", ref: "v1.4.0", bypass_and_start: true },
        })
      ).body,
    ).data;
    const pending = DeploymentDocument.parse(
      (await call("POST", `${UAT}/deploys`, { body: { ref_type: "redeploy" } })).body,
    ).data;
    await call("DELETE", `${UAT}/deploys/${pending.id}`);
    await call("POST", "/svc/project/acme-web/environment/prod/lock", { body: { lock_message: "freeze" } });
    await call("POST", "/api/v1/Page/12/publish");
    const transfer = TransferDocument.parse(
      (await call("POST", `${STACK}/snapshots`, { body: { environment: "uat", mode: "db" } })).body,
    ).data;
    await eventually(async () => {
      const d = DeploymentDocument.parse((await call("GET", `${UAT}/deploys/${started.id}`)).body).data;
      const t = TransferDocument.parse(
        (await call("GET", `${STACK}/snapshots/transfer/${transfer.id}`)).body,
      ).data;
      return d.attributes.state === "Completed" && t.attributes.status === "Finished" ? true : undefined;
    }, "deployment and transfer to finish");
    const before = await Promise.all(STABLE_GETS.map(async (p) => (await call("GET", p)).text));
    await kill9(first);

    const second = await start(stateFile, "instant", first.port);
    const again = apiCaller(second.url);
    const after = await Promise.all(STABLE_GETS.map(async (p) => (await again("GET", p)).text));
    expect(after).toEqual(before);
    await kill9(second);
  });

  it("loses no acknowledged write when killed with SIGKILL under load", async () => {
    const stateFile = join(dir, "load.db");
    const first = await start(stateFile, "instant");
    const call = apiCaller(first.url);
    const acked = new Map<string, unknown>();
    let stop = false;
    let n = 0;
    const worker = async (w: number) => {
      for (let i = 0; i < 2_000 && !stop; i++) {
        const title = `load ${w}-${i}`;
        try {
          const res = await call("POST", `${UAT}/deploys`, {
            body: { ref_type: "redeploy", bypass: true, title },
          });
          if (res.status === 201) {
            const d = (res.body as { data: { id: string; attributes: Record<string, unknown> } }).data;
            // Members only a create response carries.
            for (const key of ["changes", "decision", "options", "messages"]) delete d.attributes[key];
            acked.set(d.id, d);
            n++;
          }
          if (i % 5 === 0) await call("POST", `${STACK}/git/fetches`);
        } catch {
          return; // the connection died with the server
        }
      }
    };
    const workers = Array.from({ length: 6 }, (_, w) => worker(w));
    await eventually(async () => (n >= 150 ? true : undefined), "150 acknowledged writes", 4_000);
    first.child.kill("SIGKILL");
    stop = true;
    await Promise.all(workers);
    expect(await first.exited).toBe("SIGKILL");
    expect(acked.size).toBeGreaterThanOrEqual(150);

    const second = await start(stateFile, "instant", first.port);
    const again = apiCaller(second.url);
    for (const [id, doc] of acked) {
      const res = await again("GET", `${UAT}/deploys/${id}`);
      expect(res.status).toBe(200);
      expect((res.body as { data: unknown }).data).toEqual(doc);
    }
    const next = DeploymentDocument.parse(
      (await again("POST", `${UAT}/deploys`, { body: { ref_type: "redeploy", bypass: true } })).body,
    ).data;
    expect(Number(next.id)).toBeGreaterThan(Math.max(...[...acked.keys()].map(Number)));
    await kill9(second);
  });

  it("picks up a deployment that was running when the process died", async () => {
    const stateFile = join(dir, "resume.db");
    const first = await start(stateFile, "realistic");
    const d = DeploymentDocument.parse(
      (
        await apiCaller(first.url)("POST", `${UAT}/deploys`, {
          body: { ref_type: "tag", ref: "v1.4.0", bypass_and_start: true },
        })
      ).body,
    ).data;
    expect(d.attributes.state).toBe("Queued");
    await kill9(first);
    const second = await start(stateFile, "instant", first.port);
    const again = apiCaller(second.url);
    const done = await eventually(async () => {
      const now = DeploymentDocument.parse((await again("GET", `${UAT}/deploys/${d.id}`)).body).data;
      return now.attributes.state === "Completed" ? now : undefined;
    }, "the resumed deployment to complete");
    expect(done.attributes.is_current_build).toBe(true);
    await kill9(second);
  });
});
