/**
 * A runner that reaches the API and the state bucket only through a forward proxy, with the API
 * behind TLS signed by a private CA: `up`, `preview`, `status`, `logs` and `snapshot download` as
 * built commands, the engine (Go) and the CLI both writing state to S3 through the proxy. The names
 * `api.stackwright.test`, `files.stackwright.test` (the snapshot's download host) and
 * `s3.stackwright.test` resolve only through the proxy (test/helpers/forward-proxy.ts), which
 * counts connections per target, so a request that bypassed it fails and one that went through
 * it is seen.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect } from "vitest";
import { createClient } from "../../src/client";
import type { RunningEmulator } from "../../src/emulator";
import { openStateStore } from "../../src/state-backend/store";
import { demoCredentials } from "../helpers/emulator";
import { settingsBehindProxy, startBehindProxy, type BehindProxy } from "../helpers/behind-proxy";
import { fixtures } from "../helpers/fixtures";
import { startForwardProxy, type ForwardProxy } from "../helpers/forward-proxy";
import type { TestS3Server } from "../helpers/s3-server";
import type { ScratchProject } from "../helpers/scratch-project";
import { startStackwright } from "../helpers/stackwright-process";
import type { TlsFront } from "../helpers/test-tls";

// The S3 server reads no bucket from the host name: the name is the proxy's (s3.stackwright.test).
const test = fixtures({ s3ServerEnv: { S3_IGNORE_SUBDOMAIN_BUCKETNAME: "true" } }).extend(
  "behind",
  { scope: "file" },
  async ({ fixtureOptions: _none }, { onCleanup }): Promise<BehindProxy> => {
    const behind = await startBehindProxy({ "s3.stackwright.test": "127.0.0.1" });
    onCleanup(() => behind.close());
    return behind;
  },
);

describe("stackwright behind a forward proxy, with the API behind a private CA", () => {
  let front: TlsFront;
  let emulator: RunningEmulator;
  let s3: TestS3Server;
  let proxy: ForwardProxy;
  let project: ScratchProject;
  let env: Record<string, string>;
  let api = "";
  const s3Host = () => `s3.stackwright.test:${new URL(s3.endpoint).port}`;

  const run = async (args: string[], extra: Record<string, string | undefined> = {}) => {
    const merged: Record<string, string> = {};
    for (const [key, value] of Object.entries({ ...env, ...extra }))
      if (value !== undefined) merged[key] = value;
    const child = startStackwright(project.dir, args, merged);
    const status = await child.exited;
    const out = child.output();
    expect(out).not.toContain(merged["STACKWRIGHT_API_TOKEN"] ?? "never");
    return { status, out };
  };

  test.beforeAll(({ s3: server, behind, project: scratch }) => {
    [s3, project] = [server, scratch];
    ({ front, emulator, proxy } = behind);
    api = behind.apiUrl;
    settingsBehindProxy(project.dir, behind);
    const bucket = `s3://${s3.bucket}/proxied?endpoint=http://${s3Host()}&use_path_style=true&region=us-east-1`;
    env = {
      ...project.env,
      ...s3.env,
      ...demoCredentials(api),
      PULUMI_BACKEND_URL: bucket,
      ...behind.env,
    };
  }, 120_000);

  test("runs up through the proxy: API calls, the CLI's and the engine's state, and nothing on loopback", async () => {
    const { status, out } = await run(["up", "--project", project.dir]);
    expect(status, out).toBe(0);
    expect(out).toMatch(/^\d+ \w[^\n]* \(\d+ unchanged\)$/m);
    expect(proxy.connections(`api.stackwright.test:${front.port}`)).toBeGreaterThan(0);
    expect(proxy.connections(s3Host())).toBeGreaterThan(0);
    // The engine, the program and the provider host speak gRPC on loopback, never via the proxy.
    expect(proxy.targets().filter((t) => t.startsWith("127.0.0.1") || t.startsWith("localhost"))).toEqual([]);
    // This process reads the bucket directly, with the credentials the s3 fixture set.
    const store = openStateStore(
      `s3://${s3.bucket}/proxied?endpoint=${s3.endpoint}&use_path_style=true&region=us-east-1`,
      { ...process.env, ...s3.env },
    );
    expect(await store.read(".pulumi/stacks/stackwright/dev.acme-web.json")).toContain(
      "stackwright:Deployment",
    );
  }, 300_000);

  test("previews through the proxy with no change, within --api-concurrency per process", async () => {
    const before = proxy.connections(`api.stackwright.test:${front.port}`);
    proxy.resetMostOpen();
    const { status, out } = await run(["preview", "--project", project.dir, "--api-concurrency", "1"]);
    expect(status, out).toBe(0);
    expect(proxy.connections(`api.stackwright.test:${front.port}`)).toBeGreaterThan(before);
    // One connection (one request) at a time from the CLI's process and one from the provider
    // host; the preflight's closes before the stacks start.
    expect(proxy.mostOpen(`api.stackwright.test:${front.port}`)).toBeLessThanOrEqual(2);
  }, 300_000);

  test("observes the fleet with status through the proxy, one request at a time with --api-concurrency 1", async () => {
    const apiHost = `api.stackwright.test:${front.port}`;
    const before = proxy.connections(apiHost);
    proxy.resetMostOpen();
    const { status, out } = await run(["status", "--project", project.dir, "--api-concurrency", "1"]);
    expect(status, out).toBe(0);
    expect(out).toMatch(/^acme-web\s+uat\s+in sync/m);
    expect(proxy.connections(apiHost)).toBeGreaterThan(before);
    // One budget for the run: the preflight's and the observation's reads share one connection.
    expect(proxy.mostOpen(apiHost)).toBe(1);
  }, 120_000);

  test("prints a deployment's log through the proxy", async () => {
    const before = proxy.connections(`api.stackwright.test:${front.port}`);
    const { status, out } = await run(["logs", "acme-web", "uat"]);
    expect(status, out).toBe(0);
    expect(out).toMatch(/deployment \d+ \(Completed\)/);
    expect(proxy.connections(`api.stackwright.test:${front.port}`)).toBeGreaterThan(before);
  }, 120_000);

  test("downloads a snapshot from its link on another host through the proxy", async () => {
    const direct = createClient({ ...clientSettings(emulator.url) });
    let id = "";
    try {
      const created = await direct.snapshots.create("acme-web", { environment: "uat", mode: "db" });
      if (created.kind !== "transfer") throw new Error("expected a transfer");
      const transfer = await direct.waitForTransfer("acme-web", created.transfer.id);
      id = transfer.relationships?.snapshot?.data?.id ?? "";
    } finally {
      await direct.close();
    }
    const file = path.join(project.dir, "nightly.sspak");
    const { status, out } = await run(["snapshot", "download", "acme-web", id, "--to", file]);
    expect(status, out).toBe(0);
    expect(fs.statSync(file).size).toBeGreaterThan(0);
    expect(proxy.connections("files.stackwright.test:443")).toBeGreaterThan(0);
  }, 120_000);

  test("goes direct to a host NO_PROXY names, and a name only the proxy knows then fails", async () => {
    const before = proxy.connections();
    const bypass = await run(["logs", "acme-web", "uat"], {
      STACKWRIGHT_API_URL: `https://127.0.0.1:${front.port}`,
      NO_PROXY: "127.0.0.1",
    });
    expect(bypass.status, bypass.out).toBe(0);
    expect(proxy.connections()).toBe(before);

    const unreachable = await run(["logs", "acme-web", "uat"], { no_proxy: ".stackwright.test" });
    expect(unreachable.status).toBe(2);
    expect(unreachable.out.trim()).toMatch(
      new RegExp(
        `^stackwright logs: cannot reach the API at ${api.replace(/\./g, "\\.")} \\((ENOTFOUND|EAI_AGAIN)\\)`,
      ),
    );
    expect(proxy.connections()).toBe(before);
  }, 120_000);

  test("says in one line, exit 2, that the API's certificate is not trusted without NODE_EXTRA_CA_CERTS", async () => {
    const { status, out } = await run(["logs", "acme-web", "uat"], { NODE_EXTRA_CA_CERTS: undefined });
    expect(out.trim()).toBe(
      `stackwright logs: TLS to api.stackwright.test:${front.port} failed: its certificate is not signed by a CA this ` +
        `process trusts (UNABLE_TO_VERIFY_LEAF_SIGNATURE); if a private CA signs it, set NODE_EXTRA_CA_CERTS to that CA's PEM file`,
    );
    expect(status).toBe(2);
  }, 120_000);

  test("never prints the proxy's credentials, even when the proxy refuses them", async () => {
    const guarded = await startForwardProxy({
      hosts: { "api.stackwright.test": "127.0.0.1" },
      credentials: { user: "runner", password: "right-0815" },
    });
    try {
      const ok = await run(["logs", "acme-web", "uat"], { https_proxy: guarded.urlWithCredentials });
      expect(ok.status, ok.out).toBe(0);
      expect(ok.out).not.toContain("right-0815");
      const wrong = guarded.urlWithCredentials.replace("right-0815", "wrong-4711");
      const refused = await run(["logs", "acme-web", "uat"], { https_proxy: wrong });
      expect(refused.status).toBe(2);
      expect(refused.out).toContain("the proxy answered 407 to CONNECT");
      expect(refused.out).toContain(`through the proxy ${guarded.url} of HTTPS_PROXY`);
      expect(refused.out).not.toContain("wrong-4711");
      expect(guarded.refused()).toBeGreaterThan(0);
    } finally {
      await guarded.close();
    }
  }, 120_000);
});

function clientSettings(url: string) {
  const settings = demoCredentials(url);
  return {
    baseUrl: settings["STACKWRIGHT_API_URL"] ?? url,
    email: settings["STACKWRIGHT_EMAIL"] ?? "",
    token: settings["STACKWRIGHT_API_TOKEN"] ?? "",
  };
}
