/**
 * Emulator crash fuzzing: a real `stackwright emulator --state-file` child process under
 * concurrent load from several clients, SIGKILLed once a seeded number of writes were
 * acknowledged; then restarted on the same file. Properties: every acknowledged write is there,
 * the deployments, transfers and fetches that were running finish, the lock and the record field
 * the one ordered client changed end as its last acknowledged (or its in-flight) request left
 * them, and new ids never reuse old ones.
 *
 * The plan (clients, their requests, when to kill) comes from the seed; where the kill lands
 * among the in-flight requests depends on timing, which is the point.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { DeploymentDocument, GitFetchDocument, TransferDocument } from "../../src/api";
import { type EmulatorProcess, TEST_SEED_PATH, emulatorHooks, spawnEmulator } from "../helpers/emulator";
import { type ApiCaller, apiCaller, eventually } from "../helpers/emulator-http";
import { count, fuzz, runs } from "./harness";

const dir = mkdtempSync(join(tmpdir(), "stackwright-fuzz-crash-"));
const running: EmulatorProcess[] = [];
afterAll(() => {
  for (const p of running)
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

const STACK = "/svc/project/acme-web";
const ENVS = ["uat", "prod"] as const;
type Env = (typeof ENVS)[number];

/** Requests any client sends. */
const SHARED_OPS = ["approved", "start", "snapshot", "fetch"] as const;
/** Requests only client 0 sends, so their order (and so the expected end state) is known. */
const ORDERED_OPS = ["lock", "unlock", "publish", "unpublish"] as const;
type Op = { kind: (typeof SHARED_OPS)[number] | (typeof ORDERED_OPS)[number]; env: Env };

const op = (kinds: readonly Op["kind"][]) =>
  fc.record({ kind: fc.constantFrom(...kinds), env: fc.constantFrom(...ENVS) });

const crashCase = fc.record({
  ordered: fc.array(op([...SHARED_OPS, ...ORDERED_OPS]), { minLength: 5, maxLength: 40 }),
  others: fc.array(fc.array(op(SHARED_OPS), { minLength: 5, maxLength: 40 }), { minLength: 1, maxLength: 4 }),
  killAfterAcks: fc.integer({ min: 1, max: 40 }),
});
type CrashCase = typeof crashCase extends fc.Arbitrary<infer T> ? T : never;

/** What the clients were told happened. */
interface Acked {
  deployments: Map<string, { title: string; started: boolean }>;
  transfers: Set<string>;
  fetches: Set<string>;
  /** Lock of prod / IsPublished of Page 12 after each acknowledged request of client 0, in order. */
  lock: boolean[];
  published: boolean[];
  /** The ordered client's request that was in flight at the kill (its outcome is unknown). */
  inFlight?: Op;
}

async function start(stateFile: string, speed: string, port = 0): Promise<EmulatorProcess> {
  const args = [
    "--port",
    String(port),
    "--seed",
    TEST_SEED_PATH,
    "--state-file",
    stateFile,
    "--speed",
    speed,
  ];
  const p = await spawnEmulator(args, { fromDist: true });
  running.push(p);
  return p;
}

/** Sends one request of the plan; returns true when the server acknowledged a write. */
async function send(call: ApiCaller, o: Op, n: number, acked: Acked): Promise<boolean> {
  const env = `${STACK}/environment/${o.env}`;
  switch (o.kind) {
    case "approved":
    case "start": {
      const title = `fuzz ${n}`;
      const body =
        o.kind === "start"
          ? { ref_type: "tag", ref: "v1.4.0", bypass_and_start: true, title }
          : { ref_type: "redeploy", bypass: true, title };
      const res = await call("POST", `${env}/deploys`, { body });
      if (res.status !== 201) return false;
      const d = DeploymentDocument.parse(res.body).data;
      acked.deployments.set(d.id, { title, started: o.kind === "start" });
      return true;
    }
    case "snapshot": {
      const res = await call("POST", `${STACK}/snapshots`, { body: { environment: o.env, mode: "db" } });
      if (res.status !== 202) return false;
      acked.transfers.add(TransferDocument.parse(res.body).data.id);
      return true;
    }
    case "fetch": {
      const res = await call("POST", `${STACK}/git/fetches`);
      if (res.status !== 202) return false;
      acked.fetches.add(GitFetchDocument.parse(res.body).data.id);
      return true;
    }
    case "lock":
    case "unlock": {
      const res =
        o.kind === "lock"
          ? await call("POST", `${STACK}/environment/prod/lock`, { body: { lock_message: `fuzz ${n}` } })
          : await call("DELETE", `${STACK}/environment/prod/lock`);
      if (res.status >= 300) return false;
      acked.lock.push(o.kind === "lock");
      return true;
    }
    case "publish":
    case "unpublish": {
      const res = await call("POST", `/api/v1/Page/12/${o.kind}`);
      if (res.status !== 200) return false;
      acked.published.push(o.kind === "publish");
      return true;
    }
  }
}

/** Runs the plan against `url` until every client is done or the server died. */
async function load(url: string, c: CrashCase, onAck: () => void): Promise<Acked> {
  const call = apiCaller(url);
  const acked: Acked = {
    deployments: new Map(),
    transfers: new Set(),
    fetches: new Set(),
    lock: [],
    published: [],
  };
  let n = 0;
  const client = async (ops: readonly Op[], ordered: boolean) => {
    for (const o of ops) {
      if (ordered) acked.inFlight = o;
      try {
        if (await send(call, o, n++, acked)) onAck();
      } catch {
        return; // the server died: this request's outcome is unknown
      }
      if (ordered) delete acked.inFlight;
    }
  };
  await Promise.all([client(c.ordered, true), ...c.others.map((ops) => client(ops, false))]);
  return acked;
}

/** The ends a value may have: the last acknowledged one, or the one of the request in flight. */
function allowedEnds(history: boolean[], initial: boolean, inFlight: boolean | undefined): boolean[] {
  const last = history.at(-1) ?? initial;
  return inFlight === undefined ? [last] : [last, inFlight];
}

async function checkAfterRestart(url: string, acked: Acked): Promise<void> {
  const call = apiCaller(url);
  for (const [id, want] of acked.deployments) {
    const d = await eventually(
      async () => {
        const res = await call("GET", `${STACK}/environment/${await envOf(call, id)}/deploys/${id}`);
        expect(res.status, `acknowledged deployment ${id} is missing after the restart`).toBe(200);
        const doc = DeploymentDocument.parse(res.body).data;
        return !want.started || doc.attributes.state === "Completed" ? doc : undefined;
      },
      `deployment ${id} to complete after the restart`,
      2_000,
    );
    expect(d.attributes.title).toBe(want.title);
    if (!want.started) expect(d.attributes.state).toBe("Approved");
  }
  for (const id of acked.transfers) {
    await eventually(
      async () => {
        const res = await call("GET", `${STACK}/snapshots/transfer/${id}`);
        expect(res.status, `acknowledged transfer ${id} is missing after the restart`).toBe(200);
        return TransferDocument.parse(res.body).data.attributes.status === "Finished" ? true : undefined;
      },
      `transfer ${id} to finish after the restart`,
      2_000,
    );
  }
  for (const id of acked.fetches) {
    await eventually(
      async () => {
        const res = await call("GET", `${STACK}/git/fetches/${id}`);
        expect(res.status, `acknowledged fetch ${id} is missing after the restart`).toBe(200);
        return GitFetchDocument.parse(res.body).data.attributes.status === "Complete" ? true : undefined;
      },
      `fetch ${id} to complete after the restart`,
      2_000,
    );
  }
  const inFlight = acked.inFlight;
  const lockEnds = allowedEnds(
    acked.lock,
    false,
    inFlight?.kind === "lock" ? true : inFlight?.kind === "unlock" ? false : undefined,
  );
  expect(lockEnds).toContain((await emulatorHooks(url).lock("acme-web", "prod")).locked);
  const publishEnds = allowedEnds(
    acked.published,
    false,
    inFlight?.kind === "publish" ? true : inFlight?.kind === "unpublish" ? false : undefined,
  );
  const page = (await call("GET", "/api/v1/Page/12")).body as { IsPublished: boolean };
  expect(publishEnds).toContain(page.IsPublished);
}

/** Deployment ids are unique across the emulator; the plan used two environments. */
const envById = new Map<string, Env>();
async function envOf(call: ApiCaller, id: string): Promise<Env> {
  const known = envById.get(id);
  if (known !== undefined) return known;
  for (const env of ENVS) {
    const res = await call("GET", `${STACK}/environment/${env}/deploys/${id}`);
    if (res.status === 200) {
      envById.set(id, env);
      return env;
    }
  }
  return "uat";
}

describe("the emulator killed with SIGKILL under concurrent load", () => {
  it(
    "keeps every acknowledged write and resumes running work after a restart",
    async () => {
      let caseNo = 0;
      await fuzz(
        "emulator crash",
        crashCase,
        async (c, counts) => {
          envById.clear();
          const stateFile = join(dir, `case-${caseNo++}.db`);
          const first = await start(stateFile, "fast");
          let acks = 0;
          const acked = await load(first.url, c, () => {
            if (++acks === c.killAfterAcks) first.child.kill("SIGKILL");
          });
          if (first.child.signalCode === null) first.child.kill("SIGKILL");
          expect(await first.exited).toBe("SIGKILL");
          count(counts, "acknowledged writes", acks);
          count(counts, "kills");
          const second = await start(stateFile, "instant", first.port);
          try {
            await checkAfterRestart(second.url, acked);
          } finally {
            second.child.kill("SIGKILL");
            await second.exited;
            rmSync(stateFile, { force: true });
          }
        },
        { bounded: 6, shrink: false, file: "test/fuzz/emulator-crash.test.ts" },
      );
    },
    runs(6) * 20_000,
  );
});
