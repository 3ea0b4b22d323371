/**
 * The shared provider host (providers/plugin-host/shared-host.ts, started by
 * src/program/shared-provider.ts): one process serving the dynamic providers of several engine
 * runs, each on its own port that its engine attaches to. Engines are played by this test over
 * real gRPC: each attaches with the address of its own `Engine` service, which collects the
 * `Log` calls, as the Pulumi engine does when PULUMI_DEBUG_PROVIDERS names the port.
 */
import * as grpc from "@grpc/grpc-js";
import * as engrpc from "@pulumi/pulumi/proto/engine_grpc_pb";
import type * as engproto from "@pulumi/pulumi/proto/engine_pb";
import * as plugproto from "@pulumi/pulumi/proto/plugin_pb";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import * as emptyproto from "google-protobuf/google/protobuf/empty_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inputsDigest } from "../../../providers/plugin-host/protocol";
import {
  attachDynamicProviders,
  sharedProviderHost,
  type InFlightCreate,
  type ProviderPortFactory,
  type RunGuard,
  type SharedProviderHost,
} from "../../../src/program";
import { repoRoot } from "../../helpers/scratch-project";
import { descendants, hasEnded, waitFor } from "../../helpers/stackwright-process";

const HOST_MAIN = path.join(repoRoot, "dist", "providers", "plugin-host", "main.js");

// A provider as the SDK serializes one; its create prints a line, half a line, waits, and ends it.
const PROVIDER = `
exports.handler = () => ({
  create: async (inputs) => {
    console.log("start " + inputs.tag);
    process.stdout.write("half " + inputs.tag);
    await new Promise((r) => setTimeout(r, 50));
    process.stdout.write(" done\\n");
    console.error("warn " + inputs.tag);
    return { id: "id-" + inputs.tag, outs: { pid: process.pid, cwd: process.cwd() } };
  },
});
`;

interface FakeEngine {
  readonly address: string;
  readonly lines: { message: string; stream: number }[];
  close(): void;
}

/** An `Engine` gRPC service that keeps what providers log to it. */
async function fakeEngine(): Promise<FakeEngine> {
  const lines: { message: string; stream: number }[] = [];
  const server = new grpc.Server();
  server.addService(engrpc.EngineService, {
    log: (
      call: grpc.ServerUnaryCall<engproto.LogRequest, emptyproto.Empty>,
      callback: grpc.sendUnaryData<emptyproto.Empty>,
    ) => {
      lines.push({ message: call.request.getMessage(), stream: call.request.getStreamid() });
      callback(null, new emptyproto.Empty());
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
      err === null ? resolve(p) : reject(err),
    ),
  );
  return { address: `127.0.0.1:${String(port)}`, lines, close: () => server.forceShutdown() };
}

type Client = InstanceType<typeof provrpc.ResourceProviderClient>;
const client = (port: number): Client =>
  new provrpc.ResourceProviderClient(`127.0.0.1:${String(port)}`, grpc.credentials.createInsecure());

function attach(c: Client, address: string): Promise<void> {
  return new Promise((resolve, reject) =>
    c.attach(new plugproto.PluginAttach().setAddress(address), (err) =>
      err === null ? resolve() : reject(err),
    ),
  );
}

function create(c: Client, tag: string): Promise<Record<string, unknown>> {
  const req = new provproto.CreateRequest()
    .setUrn(`urn:${tag}`)
    .setProperties(Struct.fromJavaScript({ tag, __provider: PROVIDER }));
  return new Promise((resolve, reject) =>
    c.create(req, (err, res) =>
      err === null ? resolve(res.getProperties()?.toJavaScript() ?? {}) : reject(err),
    ),
  );
}

/** A parent that starts a host, opens a port, says so and waits to be killed. */
function parentScript(programDir: string): string {
  const program = path.join(repoRoot, "dist", "src", "program", "index.js");
  return `
    const { sharedProviderHost } = require(${JSON.stringify(program)});
    const open = sharedProviderHost({ name: "test", programDir: ${JSON.stringify(programDir)} }, ${JSON.stringify(HOST_MAIN)});
    open(process.env).then((p) => { console.log("port " + p.port); setInterval(() => {}, 1000); });
  `;
}

/** Runs one create through a port of `open` for `engine`; resolves to the host's pid it reports. */
async function hostPidOfRun(open: ProviderPortFactory, engine: FakeEngine, tag: string): Promise<number> {
  const port = await open(process.env);
  const c = client(port.port);
  try {
    await attach(c, engine.address);
    const pid = (await create(c, tag))["pid"];
    if (typeof pid !== "number") throw new Error(`the provider's create answered no pid: ${String(pid)}`);
    return pid;
  } finally {
    c.close();
    port.close();
  }
}

interface HostFixture {
  dir: string;
  open: SharedProviderHost;
}

/** A program directory of its own and a shared host for it, for one block of tests. */
function useHost(): HostFixture {
  const fixture: HostFixture = {
    dir: "",
    open: Object.assign(() => Promise.reject(new Error("the host is started in beforeAll")), {
      stop: () => undefined,
    }),
  };
  beforeAll(() => {
    fixture.dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "shared-provider-")));
    fixture.open = sharedProviderHost({ name: "test", programDir: fixture.dir }, HOST_MAIN);
  });
  afterAll(() => {
    fixture.open.stop();
    fs.rmSync(fixture.dir, { recursive: true, force: true });
  });
  return fixture;
}

describe("the shared provider host", () => {
  const host = useHost();

  it("serves runs at once from one process in the program directory, each run's output to its own engine, before its answer", async () => {
    const engines = [await fakeEngine(), await fakeEngine()];
    const ports = [await host.open(process.env), await host.open(process.env)];
    const clients = ports.map((p) => client(p.port));
    try {
      await Promise.all(clients.map((c, i) => attach(c, engines[i]?.address ?? "")));
      const [one, two] = clients;
      if (one === undefined || two === undefined) throw new Error("two clients");
      const answers = await Promise.all([
        create(one, "a").then((outs) => ({ outs, logged: [...(engines[0]?.lines ?? [])] })),
        create(two, "b").then((outs) => ({ outs, logged: [...(engines[1]?.lines ?? [])] })),
      ]);
      // One process, not the test's, working where a plugin process would.
      expect(answers[0]?.outs["pid"]).toBe(answers[1]?.outs["pid"]);
      expect(answers[0]?.outs["pid"]).not.toBe(process.pid);
      expect(answers[0]?.outs["cwd"]).toBe(host.dir);
      // Each engine got its run's lines, whole and in order, before the create answered.
      for (const [i, tag] of ["a", "b"].entries()) {
        expect(answers[i]?.logged).toEqual([
          { message: `start ${tag}\n`, stream: 1 },
          { message: `half ${tag} done\n`, stream: 1 },
          { message: `warn ${tag}\n`, stream: 2 },
        ]);
      }
    } finally {
      for (const c of clients) c.close();
      for (const p of ports) p.close();
      for (const e of engines) e.close();
    }
  });

  it("stops serving a run's port when the run closes it", async () => {
    const port = await host.open(process.env);
    const before = client(port.port);
    await attach(before, "127.0.0.1:1");
    before.close();
    port.close();
    const after = client(port.port);
    try {
      await waitFor(
        () =>
          attach(after, "127.0.0.1:1").then(
            () => false,
            (err: grpc.ServiceError) => err.code === grpc.status.UNAVAILABLE,
          ),
        "the closed port to refuse connections",
        10_000,
      );
    } finally {
      after.close();
    }
  });

  // The host goes away between two runs; the second run starts another, which serves it.
  it.for<[string, (pid: number) => Promise<void>]>([
    // Asked at once, before the exit can have been seen: the run finds the host gone.
    ["it died", (pid) => Promise.resolve(void process.kill(pid, "SIGKILL"))],
    [
      "it was stopped, and exited",
      (pid) => {
        host.open.stop();
        return waitFor(() => hasEnded(pid), "the stopped host to exit", 20_000);
      },
    ],
  ])("is started again for the next run after %s, and that run is served", async ([, end]) => {
    const engine = await fakeEngine();
    try {
      const pid = await hostPidOfRun(host.open, engine, "x");
      await end(pid);
      expect(await hostPidOfRun(host.open, engine, "y")).not.toBe(pid);
    } finally {
      engine.close();
    }
  });

  it("exits when the process that started it is killed", async () => {
    const script = parentScript(host.dir);
    const parent = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    const pid = parent.pid ?? 0;
    let out = "";
    parent.stdout.on("data", (c: Buffer) => (out += c.toString()));
    await waitFor(() => out.includes("port "), "the parent to open a port", 60_000);
    const hosts = descendants(pid);
    expect(hosts).toHaveLength(1);
    parent.kill("SIGKILL");
    await waitFor(() => hosts.every(hasEnded), "the host to exit after its parent was killed", 20_000);
  });
});

// A provider whose create says it started, then waits until the file its inputs name exists.
const WAITING_PROVIDER = `
const fs = require("node:fs");
exports.handler = () => ({
  create: async (inputs) => {
    console.log("started " + inputs.tag);
    while (!fs.existsSync(inputs.release)) await new Promise((r) => setTimeout(r, 20));
    return { id: "id-" + inputs.tag, outs: {} };
  },
});
`;

describe("the shared provider host whose parent is killed during a call", () => {
  it("answers the call in flight, then exits", async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "shared-provider-")));
    const release = path.join(dir, "release");
    const script = parentScript(dir);
    // The host's stderr is its parent's: this test reads both.
    const parent = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "pipe"] });
    const parentGone = new Promise((resolve) => parent.on("exit", resolve));
    let out = "";
    let err = "";
    parent.stdout.on("data", (c: Buffer) => (out += c.toString()));
    parent.stderr.on("data", (c: Buffer) => (err += c.toString()));
    const engine = await fakeEngine();
    let c: Client | undefined;
    try {
      await waitFor(() => /port \d+/.test(out), "the parent to open a port", 60_000);
      const hosts = descendants(parent.pid ?? 0);
      expect(hosts).toHaveLength(1);
      c = client(Number(/port (\d+)/.exec(out)?.[1]));
      await attach(c, engine.address);
      const req = new provproto.CreateRequest()
        .setUrn("urn:slow")
        .setProperties(Struct.fromJavaScript({ tag: "slow", release, __provider: WAITING_PROVIDER }));
      const one = c;
      const answered = new Promise<string>((resolve, reject) =>
        one.create(req, (e, res) => (e === null ? resolve(res.getId()) : reject(e))),
      );
      await waitFor(
        () => engine.lines.some((l) => l.message === "started slow\n"),
        "the create to start",
        20_000,
      );
      parent.kill("SIGKILL");
      await parentGone;
      await waitFor(
        () => err.includes("answering the 1 call(s) in flight"),
        "the host to see its parent gone",
        20_000,
      );
      fs.writeFileSync(release, "");
      await expect(answered).resolves.toBe("id-slow");
      await waitFor(() => hosts.every(hasEnded), "the host to exit once the call was answered", 20_000);
    } finally {
      c?.close();
      engine.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a run that guards its never-repeated creates", () => {
  const TYPE = "test:index:Restore";
  const URN = `urn:pulumi:s::p::test:index:Parent$${TYPE}::r1`;
  const host = useHost();

  /** A guard whose records the test settles by hand, and what it was told. */
  function guard(suspects: RunGuard["spec"]["suspects"] = []) {
    const recorded: InFlightCreate[] = [];
    const answered: InFlightCreate[] = [];
    let settle: { resolve(): void; reject(e: Error): void } | undefined;
    const g: RunGuard = {
      spec: { types: { [TYPE]: { status: "unknown" } }, unknownId: "unknown", suspects },
      record: (create) => {
        recorded.push(create);
        return new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
      },
      answered: (create) => {
        answered.push(create);
        return Promise.resolve();
      },
    };
    return { g, recorded, answered, settle: () => settle };
  }

  const inputs = { tag: "r1", __provider: PROVIDER };
  const createAt = (c: Client, urn: string) =>
    new Promise<{ id: string; outs: Record<string, unknown> }>((resolve, reject) =>
      c.create(
        new provproto.CreateRequest().setUrn(urn).setProperties(Struct.fromJavaScript(inputs)),
        (err, res) =>
          err === null
            ? resolve({ id: res.getId(), outs: res.getProperties()?.toJavaScript() ?? {} })
            : reject(err),
      ),
    );

  async function serve(g: RunGuard) {
    const engine = await fakeEngine();
    const port = await host.open(process.env, g);
    const c = client(port.port);
    await attach(c, engine.address);
    return {
      engine,
      c,
      close: () => {
        c.close();
        port.close();
        engine.close();
      },
    };
  }

  it("runs a guarded create only after it was recorded in flight, then says it was answered", async () => {
    const { g, recorded, answered, settle } = guard();
    const { engine, c, close } = await serve(g);
    try {
      const created = createAt(c, URN);
      await waitFor(() => recorded.length === 1, "the create to be recorded in flight", 20_000);
      const digest = inputsDigest(inputs);
      expect(recorded).toEqual([{ urn: URN, inputs: digest }]);
      // Not started while the record is being written.
      expect(engine.lines).toEqual([]);
      settle()?.resolve();
      await expect(created).resolves.toMatchObject({ id: "id-r1" });
      expect(engine.lines.map((l) => l.message)).toContain("start r1\n");
      expect(answered).toEqual([{ urn: URN, inputs: digest }]);
      // Another type is not guarded.
      await expect(createAt(c, "urn:pulumi:s::p::test:index:Other::o1")).resolves.toMatchObject({
        id: "id-r1",
      });
      expect(recorded).toHaveLength(1);
    } finally {
      close();
    }
  });

  it("does not start a guarded create it could not record", async () => {
    const { g, recorded, settle } = guard();
    const { engine, c, close } = await serve(g);
    try {
      const created = createAt(c, URN);
      await waitFor(() => recorded.length === 1, "the create to be recorded in flight", 20_000);
      settle()?.reject(new Error("the bucket refused the write"));
      await expect(created).rejects.toThrow(/not started, because .*the bucket refused the write/);
      expect(engine.lines).toEqual([]);
    } finally {
      close();
    }
  });

  it("answers a suspect's create with an unknown outcome without running it, and says why", async () => {
    const suspect = { urn: URN, inputs: inputsDigest({ ...inputs, timeout_seconds: 5 }) };
    const { g, recorded, answered } = guard([
      { create: suspect, note: "r1 was in flight when a run stopped" },
    ]);
    const { engine, c, close } = await serve(g);
    try {
      const created = await createAt(c, URN);
      expect(created.id).toBe("unknown");
      expect(created.outs).toMatchObject({ tag: "r1", status: "unknown" });
      expect(engine.lines.map((l) => l.message)).toEqual(["r1 was in flight when a run stopped\n"]);
      expect(recorded).toEqual([]);
      expect(answered).toEqual([suspect]);
    } finally {
      close();
    }
  });
});

describe("attaching the engine's dynamic providers", () => {
  it("adds the port and keeps the other providers a user attached", () => {
    expect(attachDynamicProviders(undefined, 4000)).toBe("pulumi-nodejs:4000");
    expect(attachDynamicProviders("aws:123,pulumi-nodejs:1", 4000)).toBe("aws:123,pulumi-nodejs:4000");
  });
});
