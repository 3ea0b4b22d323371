import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  EMULATOR_START_BOUND_MS,
  type EmulatorProcess,
  TEST_SEED_PATH,
  TEST_USERS,
  basicAuth,
  spawnEmulator,
} from "../../helpers/emulator";

// A client written for the real platform, not ours: plain fetch, its own idea of the documents
// (read loosely, as such a client does), extra body members the API does not define, polling
// the log endpoints until finished, and a snapshot download resumed halfway. It runs against
// `stackwright emulator` started as a user starts it: the default, tolerant mode.

let emulator: EmulatorProcess;
beforeAll(async () => {
  emulator = await spawnEmulator(["--seed", TEST_SEED_PATH, "--speed", "instant"], {
    strict: false,
  });
}, EMULATOR_START_BOUND_MS + 10_000);
afterAll(async () => {
  emulator.child.kill("SIGTERM");
  await emulator.exited;
});

const auth = basicAuth(TEST_USERS.stackManager.email, TEST_USERS.stackManager.token);
const base = () => `${emulator.url}/svc/project/acme-web`;

/** A member of parsed JSON by a dotted path (`data.attributes.state`, `message.0`), or undefined. */
function dig(value: unknown, path: string): unknown {
  let at = value;
  for (const key of path.split(".")) {
    if (at === null || typeof at !== "object") return undefined;
    at = Object.getOwnPropertyDescriptor(at, key)?.value;
  }
  return at;
}

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${base()}${path}`, {
    method,
    headers: {
      authorization: auth,
      accept: "application/vnd.api+json",
      ...(body === undefined ? {} : { "content-type": "application/vnd.api+json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  const json: unknown = text === "" ? undefined : JSON.parse(text);
  return { status: res.status, json };
}

/** Polls (bounded) until `done` says the answer is final. */
async function poll<T>(get: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const value = await get();
    if (done(value)) return value;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`gave up polling ${what} after 500 attempts`);
}

describe("a client written for the real platform, against `stackwright emulator`", () => {
  it("deploys a branch with extra members and follows the deployment log to the end", async () => {
    const created = await api("POST", "/environment/uat/deploys", {
      ref_type: "branch",
      ref: "main",
      bypass_and_start: true,
      options: { notify_slack: false },
      source: "platform-cli",
    });
    expect(created.status).toBe(201);
    const id = String(dig(created.json, "data.id"));
    const log = await poll(
      () => api("GET", `/environment/uat/deploys/log/${id}`),
      (r) => ["Completed", "Failed"].includes(String(dig(r.json, "data.attributes.state"))),
      "the deployment log",
    );
    expect(dig(log.json, "data.attributes.state")).toBe("Completed");
    const lines = dig(log.json, "message");
    expect(Array.isArray(lines) ? lines.at(-1) : lines).toMatch(/^Deployment finished/);
  });

  it("promotes from UAT with an options object in the body", async () => {
    const created = await api("POST", "/environment/prod/deploys", {
      ref_type: "promote_from_uat",
      bypass_and_start: true,
      options: { ignore_config_changes: true },
    });
    expect(created.status).toBe(201);
  });

  it("creates a snapshot, follows its transfer log, and downloads it with a resume", async () => {
    const created = await api("POST", "/snapshots", { environment: "uat", mode: "db", options: {} });
    expect(created.status).toBe(202);
    const transferId = String(dig(created.json, "data.id"));
    const log = await poll(
      () => api("GET", `/snapshots/transfer/${transferId}/log`),
      (r) => ["Complete", "Failed"].includes(String(dig(r.json, "status"))),
      "the transfer log",
    );
    expect(dig(log.json, "status")).toBe("Complete");
    const transfer = await api("GET", `/snapshots/transfer/${transferId}`);
    const snapshotId = String(dig(transfer.json, "data.relationships.snapshot.data.id"));
    const snapshot = await api("GET", `/snapshots/${snapshotId}`);
    const link = String(dig(snapshot.json, "data.links.download_link"));

    const head = await fetch(link, { method: "HEAD" });
    const size = Number(head.headers.get("content-length"));
    expect(size).toBe(Number(dig(snapshot.json, "data.attributes.size")));

    // The first part, then the connection "drops"; the rest with a Range from where it stopped.
    const reader = (await fetch(link)).body?.getReader();
    const parts: Buffer[] = [];
    let got = 0;
    while (reader !== undefined && got < size / 3) {
      const { value, done } = await reader.read();
      if (done) break;
      parts.push(Buffer.from(value));
      got += value.length;
    }
    await reader?.cancel();
    const rest = await fetch(link, { headers: { range: `bytes=${got}-` } });
    expect(rest.status).toBe(206);
    parts.push(Buffer.from(await rest.arrayBuffer()));
    const resumed = Buffer.concat(parts);
    expect(resumed.length).toBe(size);
    const whole = Buffer.from(await (await fetch(link)).arrayBuffer());
    const digest = (b: Buffer) => createHash("sha256").update(b).digest("hex");
    expect(digest(resumed)).toBe(digest(whole));
  });
});
