import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type Deployments, type StackwrightClient } from "../../../src/client";
import { StackFileSchema } from "../../../src/config";
import { createHash } from "node:crypto";
import { readDigest } from "../../../src/api";
import { observeFleet, observeFleetProving } from "../../../src/observe";
import {
  checkpointKey,
  confirmationKey,
  type Confirmation,
  type InputDigests,
  type StateReader,
} from "../../../src/state-backend";
import { startTestEmulator, type TestEmulator } from "../../helpers/emulator";

/** A backend with nothing in it: every stack is one no up has touched. */
const emptyBackend: StateReader = {
  description: "empty",
  list: () => Promise.resolve([]),
  read: () => Promise.resolve(undefined),
  readBytes: () => Promise.resolve(undefined),
};

const acmeWeb = StackFileSchema.parse({
  stack: "acme-web",
  environments: {
    uat: { deployment: { ref_type: "branch", ref: "main" } },
    prod: { deployment: { ref_type: "tag", ref: "v1.4.0" }, lock: { message: "Freeze" } },
  },
});
const intranet = StackFileSchema.parse({ stack: "acme-intranet", environments: { prod: {} } });

// The observe layer against the emulator over HTTP: partial results and one request per read.
describe("observing a fleet", () => {
  let emulator: TestEmulator;
  let client: StackwrightClient;

  beforeAll(async () => {
    emulator = await startTestEmulator();
    client = createClient({
      baseUrl: emulator.url,
      email: "ops@example.com",
      token: "demo-token",
      retry: { maxAttempts: 1 },
    });
  });

  afterAll(async () => {
    await client?.close();
    await emulator?.close();
  });

  const observe = (reader: StackwrightClient = client) =>
    observeFleet({
      target: "dev",
      project: "stackwright",
      store: emptyBackend,
      client: reader,
      stacks: [
        {
          apiStack: "acme-web",
          pulumiStack: "dev.acme-web",
          file: "stacks-config/acme-web.yaml",
          config: acmeWeb,
        },
        {
          apiStack: "acme-intranet",
          pulumiStack: "dev.acme-intranet",
          file: "stacks-config/acme-intranet.yaml",
          config: intranet,
        },
      ],
      apiConcurrency: 2,
      now: new Date("2026-11-25T10:00:00Z"),
    });

  it("still reports the other environments when one environment's read fails, saying why for that one", async () => {
    await emulator.hooks.reset();
    await emulator.hooks.fault({
      path: "/svc/project/acme-web/environment/uat",
      kind: "status",
      status: 500,
      count: 1,
    });
    const status = await observe();
    const web = status.stacks.find((s) => s.stack === "acme-web");
    const [uat, prod] = web?.environments ?? [];
    expect(uat).toMatchObject({ sync: "unknown", environment: "uat" });
    expect(uat?.reason).toContain("could not be read");
    expect(prod).toMatchObject({
      sync: "not yet deployed",
      lock: { message: "Freeze" },
      live: { sha: "3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f" },
    });
    expect(prod?.live?.deployment?.deployer?.email).toBe("release@example.com");
  });

  it("says an environment is unknown, with the reason, when a deployment comes without its state", async () => {
    await emulator.hooks.reset();
    // The platform answers acme-web/uat's list with a deployment whose state is null.
    const list: Deployments["list"] = async (...args) => {
      const answered = await client.deployments.list(...args);
      if (args[0] !== "acme-web" || args[1] !== "uat") return answered;
      return answered.map((d) => ({ ...d, attributes: { ...d.attributes, state: null } }));
    };
    const deployments = new Proxy(client.deployments, {
      get: (target, key): unknown => (key === "list" ? list : Reflect.get(target, key)),
    });
    const stateless = new Proxy(client, {
      get: (target, key): unknown => (key === "deployments" ? deployments : Reflect.get(target, key)),
    });
    const status = await observe(stateless);
    const [uat, prod] = status.stacks.find((s) => s.stack === "acme-web")?.environments ?? [];
    expect(uat).toMatchObject({ sync: "unknown", environment: "uat", live: null });
    expect(uat?.reason).toContain("without attributes.state (received null)");
    expect(uat?.reason).toContain("cannot tell whether acme-web/uat is in sync");
    expect(prod).toMatchObject({ sync: "not yet deployed", environment: "prod" });
  });

  it("says when each environment's windows next open, and how far it looked when they never stay open", async () => {
    await emulator.hooks.reset();
    const windowed = StackFileSchema.parse({
      stack: "acme-web",
      environments: {
        // Open on weekdays from 09:00 for 7 hours (2026-11-25 10:00 UTC is a Wednesday, inside).
        uat: {
          deployment: { ref_type: "branch", ref: "main" },
          windows: [{ allow: { schedule: "0 9 * * 1-5", duration: "7h", timezone: "UTC" } }],
        },
        // Closed now, open again at 21:00.
        prod: {
          deployment: { ref_type: "tag", ref: "v1.4.0" },
          windows: [{ deny: { schedule: "0 8 * * *", duration: "13h", timezone: "UTC" } }],
        },
      },
    });
    // Shut every minute for two: the search for an opening stops before it finds one.
    const always = StackFileSchema.parse({
      stack: "acme-web",
      environments: { prod: { deployment: { ref_type: "tag", ref: "v1.4.0" } } },
      windows: [{ deny: { schedule: "* * * * *", duration: "2m", timezone: "UTC" } }],
    });
    const windowOf = async (config: typeof windowed) => {
      const status = await observeFleet({
        target: "dev",
        project: "stackwright",
        store: emptyBackend,
        client,
        stacks: [
          { apiStack: "acme-web", pulumiStack: "dev.acme-web", file: "stacks-config/acme-web.yaml", config },
        ],
        apiConcurrency: 2,
        now: new Date("2026-11-25T10:00:00Z"),
      });
      return status.stacks[0]?.environments.map((e) => [e.environment, e.window] as const);
    };
    expect(await windowOf(windowed)).toEqual([
      ["uat", { open: true, reason: null, next_open: null, searched_until: null }],
      [
        "prod",
        {
          open: false,
          reason: expect.stringContaining("inside the window") as string,
          next_open: "2026-11-25T21:00:00.000Z",
          searched_until: null,
        },
      ],
    ]);
    const stopped = (await windowOf(always))?.[0]?.[1];
    expect(stopped).toMatchObject({ open: false, next_open: null });
    expect(Date.parse(String(stopped?.searched_until))).toBeGreaterThan(Date.parse("2026-11-25T10:00:00Z"));
  });

  it("says a stack the user cannot see is unknown, without reading any of its environments", async () => {
    await emulator.hooks.reset();
    await emulator.hooks.clearRequests();
    const status = await observe();
    const hidden = status.stacks.find((s) => s.stack === "acme-intranet");
    expect(hidden?.error).toContain("does not let this user see it");
    expect(hidden?.environments.map((e) => e.sync)).toEqual(["unknown"]);
    const paths = (await emulator.hooks.requests())
      .filter((r) => !r.path.startsWith("/_emulator"))
      .map((r) => `${r.method} ${r.path}`);
    expect(paths.filter((p) => p.includes("acme-intranet"))).toEqual([]);
    expect(paths.every((p) => p.startsWith("GET "))).toBe(true);
    expect(paths.length, "one GET per distinct read").toBe(new Set(paths).size);
    expect(status.counts).toMatchObject({ "not yet deployed": 2, unknown: 1 });
  });

  it("proves a stack with the observation's own answers, whoever proved it, and says which live read changed when one did", async () => {
    await emulator.hooks.reset();
    const inputs: InputDigests = {
      file: "a".repeat(64),
      settings: "b".repeat(64),
      credentials: "e".repeat(64),
      tool: "c".repeat(64),
      flags: "d".repeat(64),
    };
    const checkpoint = Buffer.from(JSON.stringify({ checkpoint: { latest: { resources: [] } } }));
    // The record of a no-change run that read both environments' documents, as they answer now.
    const reads = await Promise.all(
      ["uat", "prod"].map(async (environment) => ({
        name: "environment",
        args: { environment, stack: "acme-web" },
        digest: readDigest(await client.environments.get("acme-web", environment)),
      })),
    );
    const record: Confirmation = {
      version: 1,
      stack: "dev.acme-web",
      inputs,
      checkpoint: createHash("sha256").update(checkpoint).digest("hex"),
      reads,
      provedAt: "2026-11-25T09:00:00Z",
    };
    const objects = new Map<string, Uint8Array>([
      [checkpointKey("stackwright", "dev.acme-web"), checkpoint],
      [confirmationKey("stackwright", "dev.acme-web"), Buffer.from(JSON.stringify(record))],
    ]);
    const backend: StateReader = {
      description: "memory",
      list: () => Promise.resolve([]),
      read: (key) =>
        Promise.resolve(objects.has(key) ? Buffer.from(objects.get(key) ?? []).toString() : undefined),
      readBytes: (key) => Promise.resolve(objects.get(key)),
    };
    const prove = () =>
      observeFleetProving({
        target: "dev",
        project: "stackwright",
        store: backend,
        client,
        stacks: [
          {
            apiStack: "acme-web",
            pulumiStack: "dev.acme-web",
            file: "stacks-config/acme-web.yaml",
            config: acmeWeb,
          },
        ],
        apiConcurrency: 2,
        now: new Date("2026-11-25T10:00:00Z"),
        // Another user than the one that proved it: its reads answer the same, so it holds.
        proof: { client, inputs: () => ({ ...inputs, credentials: "f".repeat(64) }) },
      });
    await emulator.hooks.clearRequests();
    const proved = await prove();
    expect(proved.proofs.get("acme-web")).toEqual({ confirmed: true });
    const paths = (await emulator.hooks.requests())
      .filter((r) => !r.path.startsWith("/_emulator"))
      .map((r) => `${r.method} ${r.path}`);
    expect(paths.length, "the recorded reads take the observation's answers").toBe(new Set(paths).size);
    expect(paths.filter((p) => p.endsWith("/environment/uat"))).toHaveLength(1);
    expect(proved.reads).toBe(paths.length);

    await emulator.hooks.handDeploy("acme-web", "uat", "3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f");
    expect((await prove()).proofs.get("acme-web")).toEqual({
      confirmed: false,
      reason: "live read: environment of acme-web/uat changed",
      record: true,
    });
  });
});
