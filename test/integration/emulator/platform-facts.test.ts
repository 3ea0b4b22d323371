import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DeploymentDocument,
  DeploymentLogDocument,
  GitFetchDocument,
  SnapshotDocument,
  TransferDocument,
  DocumentedTransferLog,
} from "../../../src/api";
import { TEST_USERS, type TestEmulator, startTestEmulator } from "../../helpers/emulator";
import {
  type ApiCaller,
  type ApiResponse,
  apiCaller,
  errorTitle,
  eventually,
  useTestEmulator,
} from "../../helpers/emulator-http";

// The platform's behaviour beyond the spec (issue 14, facts 1 to 7), on a strict emulator (our
// tests' default) and, where the two differ, on a tolerant one (the platform's and the CLI's default).
const emu = useTestEmulator();
const { call } = emu;
let tolerant: TestEmulator;
let callTolerant: ApiCaller;
beforeAll(async () => {
  tolerant = await startTestEmulator({ strict: false });
  callTolerant = apiCaller(tolerant.url);
});
afterAll(async () => tolerant.close());

const STACK = "/svc/project/acme-web";
const UAT = `${STACK}/environment/uat`;

async function deploy(caller: ApiCaller, body: Record<string, unknown>): Promise<ApiResponse> {
  return caller("POST", `${UAT}/deploys`, { body });
}

async function logUntilFinished(caller: ApiCaller, id: string) {
  return eventually(async () => {
    const res = await caller("GET", `${UAT}/deploys/log/${id}`);
    expect(res.status).toBe(200);
    const doc = DeploymentLogDocument.parse(res.body);
    return ["Completed", "Failed"].includes(doc.data.attributes.state) ? doc : undefined;
  }, `deployment ${id} to finish`);
}

async function transferLogUntilFinished(caller: ApiCaller, id: string) {
  return eventually(async () => {
    const log = DocumentedTransferLog.parse(
      (await caller("GET", `${STACK}/snapshots/transfer/${id}/log`)).body,
    );
    return log.status === "Complete" || log.status === "Failed" ? log : undefined;
  }, `transfer ${id} to finish`);
}

describe("fact 1: the deployment log", () => {
  it("is the deployment document plus every log line, from queued to finished", async () => {
    const d = DeploymentDocument.parse(
      (await deploy(call, { ref_type: "branch", ref: "main", bypass_and_start: true })).body,
    );
    const doc = await logUntilFinished(call, d.data.id);
    expect(doc.data.id).toBe(d.data.id);
    expect(doc.data.attributes.state).toBe("Completed");
    expect(doc.message).toEqual([
      expect.stringMatching(/^Deployment \d+ created by ops@example.com: branch main/),
      "Queued on acme-web/uat",
      "Fetching branch main from https://git.example.com/acme/web.git",
      `Building ${d.data.attributes.sha}`,
      `Deploying ${d.data.attributes.short_sha} to acme-web/uat`,
      `Deployment finished: acme-web/uat runs ${d.data.attributes.short_sha}`,
    ]);
  });

  it("ends with the reason of a scripted failure", async () => {
    await emu.hooks.nextOutcome("acme-web", "uat", "fail", "database migration failed: duplicate column");
    const d = DeploymentDocument.parse(
      (await deploy(call, { ref_type: "redeploy", bypass_and_start: true })).body,
    );
    const doc = await logUntilFinished(call, d.data.id);
    expect(doc.data.attributes.state).toBe("Failed");
    expect(doc.message.at(-1)).toBe("Deployment failed: database migration failed: duplicate column");
  });

  it("answers 404 for a deployment of another environment and for a non-member, as the document does", async () => {
    const d = DeploymentDocument.parse((await deploy(call, { ref_type: "redeploy" })).body);
    expect((await call("GET", `${STACK}/environment/prod/deploys/log/${d.data.id}`)).status).toBe(404);
    const outsider = await call("GET", `${UAT}/deploys/log/${d.data.id}`, { as: TEST_USERS.outsider });
    expect(outsider.status).toBe(404);
    expect(errorTitle(outsider)).toBe("Stack 'acme-web' not found");
  });
});

describe("fact 2: the transfer log", () => {
  it("starts with the queued line and ends Complete with the log text of a snapshot", async () => {
    const t = TransferDocument.parse(
      (await call("POST", `${STACK}/snapshots`, { body: { environment: "uat", mode: "db" } })).body,
    ).data;
    // The worker moves within milliseconds here; the unit tests step it one state at a time.
    const first = DocumentedTransferLog.parse(
      (await call("GET", `${STACK}/snapshots/transfer/${t.id}/log`)).body,
    );
    expect(["Queued", "Running", "Complete"]).toContain(first.status);
    expect(first.content.split("\n")[0]).toBe("Queued: snapshot of the database of acme-web/uat");
    const done = await transferLogUntilFinished(call, t.id);
    expect(done.status).toBe("Complete");
    expect(done.content.split("\n")).toEqual([
      "Queued: snapshot of the database of acme-web/uat",
      "Running: exporting the database",
      "Packing the snapshot archive",
      expect.stringMatching(/^Complete: snapshot \d+ \(\d+ bytes\)$/),
    ]);
  });

  it("says Failed with the reason of a scripted failure, for a restore too", async () => {
    await emu.hooks.nextTransferFailure("acme-web", "uat", "restore target out of disk space");
    const t = TransferDocument.parse(
      (await call("POST", `${STACK}/snapshots/11`, { body: { environment: "uat", mode: "db" } })).body,
    ).data;
    const done = await transferLogUntilFinished(call, t.id);
    expect(done.status).toBe("Failed");
    expect(done.content.split("\n").at(-1)).toBe("Failed: restore target out of disk space");
    const doc = TransferDocument.parse((await call("GET", `${STACK}/snapshots/transfer/${t.id}`)).body);
    expect(doc.data.attributes.status).toBe("Failed");
  });
});

describe("fact 3: git fetch status words", () => {
  it("are n/a right after queueing and Complete or Failed at the end, nothing but the platform's words between", async () => {
    const seen = new Set<string>();
    const f = GitFetchDocument.parse((await call("POST", `${STACK}/git/fetches`)).body).data;
    expect(f.attributes.status).toBe("n/a");
    await eventually(async () => {
      const now = GitFetchDocument.parse((await call("GET", `${STACK}/git/fetches/${f.id}`)).body).data;
      seen.add(now.attributes.status);
      return now.attributes.status === "Complete" ? now : undefined;
    }, "the fetch to complete");
    expect([...seen].every((s) => ["n/a", "Queued", "Running", "Complete"].includes(s))).toBe(true);
    await emu.hooks.nextFetchFailure("acme-web");
    const g = GitFetchDocument.parse((await call("POST", `${STACK}/git/fetches`)).body).data;
    await eventually(async () => {
      const now = GitFetchDocument.parse((await call("GET", `${STACK}/git/fetches/${g.id}`)).body).data;
      return now.attributes.status === "Failed" ? now : undefined;
    }, "the scripted fetch failure");
  });
});

describe("fact 4: request-body members the API does not define", () => {
  const junk = { options: { notify: true }, client: "platform-cli/2.3" };

  it("are refused, named, by a strict emulator (our tests), so junk our client sends is caught", async () => {
    const res = await deploy(call, { ref_type: "redeploy", ...junk });
    expect(res.status).toBe(400);
    expect(errorTitle(res)).toMatch(/^Unknown field 'options', 'client' in the request body/);
    const snap = await call("POST", `${STACK}/snapshots`, {
      body: { environment: "uat", mode: "db", ...junk },
    });
    expect(snap.status).toBe(400);
  });

  it("are ignored by a tolerant emulator, as the platform does, on every body", async () => {
    expect((await deploy(callTolerant, { ref_type: "redeploy", ...junk })).status).toBe(201);
    const snap = await callTolerant("POST", `${STACK}/snapshots`, {
      body: { environment: "uat", mode: "db", ...junk },
    });
    expect(snap.status).toBe(202);
    const lock = await callTolerant("POST", `${UAT}/lock`, { body: { lock_message: "freeze", ...junk } });
    expect(lock.status).toBe(202);
    expect((await callTolerant("DELETE", `${UAT}/lock`)).status).toBe(204);
    expect((await callTolerant("POST", `${STACK}/git/fetches`, { body: junk })).status).toBe(202);
  });

  it("still fail on a known member with a wrong value, strict or not", async () => {
    const res = await deploy(callTolerant, { ref_type: "redeploy", force_full: "yes", ...junk });
    expect(res.status).toBe(400);
    expect(errorTitle(res)).toMatch(/Invalid field 'force_full'/);
  });

  it("ignore_config_changes and force_full are deploy options, in strict mode too", async () => {
    const res = await deploy(call, {
      ref_type: "redeploy",
      ignore_config_changes: true,
      force_full: true,
      bypass_and_start: true,
    });
    expect(res.status).toBe(201);
    const d = DeploymentDocument.parse(res.body).data;
    expect(d.attributes.deployment_type).toBe("full");
    expect(
      (res.body as { data: { attributes: Record<string, unknown> } }).data.attributes["is_full_deployment"],
    ).toBe(true);
    const doc = await logUntilFinished(call, d.id);
    expect(doc.message[1]).toBe("Queued on acme-web/uat (full deployment) (configuration changes ignored)");
  });
});

describe("fact 5: a complete snapshot's download_link", () => {
  it("answers HEAD with the size and GET with that many bytes, the same each time, without credentials", async () => {
    const snap = SnapshotDocument.parse((await call("GET", `${STACK}/snapshots/11`)).body).data;
    const link = snap.links.download_link;
    expect(link.startsWith(`${emu.url}/`)).toBe(true);
    const head = await fetch(link, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(snap.attributes.size);
    expect(head.headers.get("accept-ranges")).toBe("bytes");
    const one = Buffer.from(await (await fetch(link)).arrayBuffer());
    const two = Buffer.from(await (await fetch(link)).arrayBuffer());
    expect(one.length).toBe(Number(snap.attributes.size));
    expect(one.equals(two)).toBe(true);
  });

  it("serves a Range as 206 with Content-Range, so a download resumes where it stopped", async () => {
    const link = SnapshotDocument.parse((await call("GET", `${STACK}/snapshots/10`)).body).data.links
      .download_link;
    const whole = Buffer.from(await (await fetch(link)).arrayBuffer());
    const cut = 300_001;
    const head = await fetch(link, { headers: { range: `bytes=0-${cut - 1}` } });
    const tail = await fetch(link, { headers: { range: `bytes=${cut}-` } });
    expect(head.status).toBe(206);
    expect(tail.status).toBe(206);
    expect(tail.headers.get("content-range")).toBe(`bytes ${cut}-${whole.length - 1}/${whole.length}`);
    const joined = Buffer.concat([
      Buffer.from(await head.arrayBuffer()),
      Buffer.from(await tail.arrayBuffer()),
    ]);
    const digest = (b: Buffer) => createHash("sha256").update(b).digest("hex");
    expect(digest(joined)).toBe(digest(whole));
    const past = await fetch(link, { headers: { range: `bytes=${whole.length}-` } });
    expect(past.status).toBe(416);
    expect(past.headers.get("content-range")).toBe(`bytes */${whole.length}`);
  });

  it("answers 404 on a changed or guessed link", async () => {
    const link = SnapshotDocument.parse((await call("GET", `${STACK}/snapshots/12`)).body).data.links
      .download_link;
    expect((await fetch(link.replace(/\/[0-9a-f]{24}\//, "/000000000000000000000000/"))).status).toBe(404);
    expect((await fetch(link.replace("/12/", "/10/"))).status).toBe(404);
  });
});

describe("fact 6: absolute links", () => {
  it("are built from Host, or from X-Forwarded-Host and X-Forwarded-Proto behind a proxy", async () => {
    const byHost = await call("GET", `${STACK}/snapshots/11`, { headers: { host: "emulator.test:8443" } });
    expect(SnapshotDocument.parse(byHost.body).data.links.download_link).toMatch(
      /^http:\/\/emulator\.test:8443\/assets\//,
    );
    const proxied = await call("GET", `${UAT}/deploys?state=Completed`, {
      headers: { "x-forwarded-host": "api.example.com, inner.local", "x-forwarded-proto": "https" },
    });
    const first = (proxied.body as { data: { links: { self: string } }[] }).data[0];
    expect(first?.links.self).toMatch(
      /^https:\/\/api\.example\.com\/svc\/project\/acme-web\/environment\/uat\/deploys\/\d+$/,
    );
    const junkHost = await call("GET", STACK, { headers: { "x-forwarded-host": "evil.example/path?x" } });
    expect((junkHost.body as { data: { links: { self: string } } }).data.links.self).toBe(
      `${emu.url}${STACK}`,
    );
  });

  it("start with the public URL when the emulator was given one", async () => {
    const behind = await startTestEmulator({ publicUrl: "https://emu.example.com/platform/" });
    try {
      const res = await apiCaller(behind.url)("GET", STACK, { headers: { host: "ignored.example" } });
      expect((res.body as { data: { links: { self: string } } }).data.links.self).toBe(
        `https://emu.example.com/platform${STACK}`,
      );
    } finally {
      await behind.close();
    }
    await expect(startTestEmulator({ publicUrl: "ftp://x" })).rejects.toThrow(/must start with http/);
  });
});

describe("fact 7: the fields a deployment carries beyond the spec", () => {
  it("are there, of the platform's types, and our client's schema still parses the document", async () => {
    const res = await deploy(call, { ref_type: "tag", ref: "v1.4.0" });
    const attributes = (res.body as { data: { attributes: Record<string, unknown> } }).data.attributes;
    expect(attributes).toMatchObject({
      ref_type: "tag",
      ref_name: "v1.4.0",
      tags: ["v1.4.0"],
      rejected_reason: null,
      package_id: null,
      package_name: null,
      package_version: null,
      is_full_deployment: false,
    });
    expect(attributes["deployment_estimate"]).toMatch(/^\d+$/);
    expect(typeof attributes["id"]).toBe("number");
    const d = DeploymentDocument.parse(res.body).data;
    expect(d.attributes.id).toBe(d.id);
    await emu.hooks.reject("acme-web", "uat", d.id, "not during the sale");
    const rejected = await call("GET", `${UAT}/deploys/${d.id}`);
    expect(
      (rejected.body as { data: { attributes: Record<string, unknown> } }).data.attributes,
    ).toMatchObject({
      state: "Rejected",
      rejected_reason: "not during the sale",
    });
  });
});
