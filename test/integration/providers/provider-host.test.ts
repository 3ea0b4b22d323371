/**
 * Stackwright's dynamic-provider plugin against the SDK's own, side by side: both run as the
 * engine runs them (a process each, port on the first line of output), get the same requests
 * over gRPC, and must give the same answers, failures included.
 */
import * as grpc from "@grpc/grpc-js";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import * as emptyproto from "google-protobuf/google/protobuf/empty_pb";
import { Struct, type JavaScriptValue } from "google-protobuf/google/protobuf/struct_pb";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../../helpers/scratch-project";

const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
const SECRET = { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", value: "hello" };

// A dynamic provider as the SDK serializes one: a CommonJS module exporting `handler`.
const PROVIDER = `
let greeting = null;
exports.handler = () => ({
  configure: async (req) => { greeting = req.config.get("greeting") ?? null; },
  check: async (olds, news) =>
    news.bad ? { inputs: news, failures: [{ property: "bad", reason: "is bad" }] } : { inputs: { ...news, checked: true } },
  diff: async (id, olds, news) =>
    olds.size === news.size ? { changes: false } : { changes: true, replaces: ["size"], deleteBeforeReplace: true },
  create: async (inputs) => {
    if (inputs.fail === "init") throw Object.assign(new Error("half made"), { id: "h1", properties: { a: 1 }, reasons: ["slow"] });
    if (inputs.fail === "plain") throw new Error("refused");
    return { id: "r1", outs: { ...inputs, greeting } };
  },
  read: async (id, props) => ({ id, props: { ...props, read: true } }),
  update: async (id, olds, news) => {
    if (news.fail === "plain") throw new Error("update refused");
    return { outs: { ...news, updated: true } };
  },
  delete: async (id) => { if (id === "stuck") throw new Error("cannot delete"); },
});
`;

type Client = InstanceType<typeof provrpc.ResourceProviderClient>;
interface Plugin {
  readonly child: ChildProcess;
  readonly client: Client;
}

/** Starts a plugin the way the engine does and connects to the port it prints. */
async function startPlugin(script: string, cwd: string): Promise<Plugin> {
  const child = spawn(process.execPath, [script, "127.0.0.1:1"], {
    cwd,
    env: { ...process.env, PULUMI_NODEJS_PROJECT: "test" },
    stdio: ["ignore", "pipe", "ignore"],
  });
  const port = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split("\n")[0];
      if (out.includes("\n") && line !== undefined) resolve(line.trim());
    });
    child.once("exit", (code) =>
      reject(new Error(`${script} exited ${String(code)} before printing its port`)),
    );
  });
  return {
    child,
    client: new provrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure()),
  };
}

type Outcome = { ok: unknown } | { code: number; details: string; statusDetails: string | undefined };

/** One unary call, its answer as plain data (the error's code, text and structured details). */
function call<Req, Res extends { toObject(): unknown }>(
  method: (req: Req, callback: (err: grpc.ServiceError | null, res?: Res) => void) => unknown,
  req: Req,
): Promise<Outcome> {
  return new Promise((resolve) => {
    method(req, (err, res) => {
      if (err !== null) {
        const details = err.metadata.get("grpc-status-details-bin")[0];
        resolve({
          code: err.code,
          details: err.details,
          statusDetails: details === undefined ? undefined : Buffer.from(details).toString("base64"),
        });
      } else resolve({ ok: res?.toObject() });
    });
  });
}

const struct = (value: Record<string, JavaScriptValue>) => Struct.fromJavaScript(value);
const withProvider = (value: Record<string, JavaScriptValue>) => ({ ...value, __provider: PROVIDER });

describe("Stackwright's dynamic-provider plugin", () => {
  let dir: string;
  let ours: Plugin;
  let sdks: Plugin;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "provider-host-"));
    [ours, sdks] = await Promise.all([
      startPlugin(path.join(repoRoot, "dist", "providers", "plugin-host", "main.js"), dir),
      startPlugin(
        path.join(repoRoot, "node_modules", "@pulumi", "pulumi", "cmd", "dynamic-provider", "index.js"),
        dir,
      ),
    ]);
  }, 60_000);

  afterAll(() => {
    for (const p of [ours, sdks]) {
      p?.client.close();
      p?.child.kill();
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The same request to both plugins; their answers. */
  const both = async <Req, Res extends { toObject(): unknown }>(
    pick: (c: Client) => (req: Req, callback: (err: grpc.ServiceError | null, res?: Res) => void) => unknown,
    req: Req,
  ): Promise<[Outcome, Outcome]> => [
    await call(pick(ours.client).bind(ours.client), req),
    await call(pick(sdks.client).bind(sdks.client), req),
  ];

  it("answers every operation of a dynamic provider, and each failure, exactly as the SDK's plugin does", async () => {
    const configure = new provproto.ConfigureRequest().setArgs(
      struct({ "test:greeting": SECRET, "test:other": "x" }),
    );
    const check = (olds: Record<string, JavaScriptValue>, news: Record<string, JavaScriptValue>) =>
      new provproto.CheckRequest().setUrn("urn:x").setOlds(struct(olds)).setNews(struct(news));
    const diff = (olds: Record<string, JavaScriptValue>, news: Record<string, JavaScriptValue>) =>
      new provproto.DiffRequest().setId("r1").setOlds(struct(olds)).setNews(struct(news));
    const create = (props: Record<string, JavaScriptValue>) =>
      new provproto.CreateRequest().setUrn("urn:x").setProperties(struct(props));
    const update = (news: Record<string, JavaScriptValue>) =>
      new provproto.UpdateRequest()
        .setId("r1")
        .setOlds(struct(withProvider({ size: 1 })))
        .setNews(struct(news));
    const del = (id: string) =>
      new provproto.DeleteRequest().setId(id).setProperties(struct(withProvider({})));

    // In order: configuration first, as the engine sends it.
    const answers: [string, [Outcome, Outcome]][] = [];
    const steps: [string, () => Promise<[Outcome, Outcome]>][] = [
      ["configure", () => both((c) => c.configure, configure)],
      ["check", () => both((c) => c.check, check({}, withProvider({ size: 1 })))],
      ["check failing", () => both((c) => c.check, check({}, withProvider({ bad: true })))],
      [
        "check with the provider unknown in preview",
        () => both((c) => c.check, check(withProvider({ size: 1 }), { size: 2, __provider: UNKNOWN })),
      ],
      [
        "diff, no change",
        () => both((c) => c.diff, diff(withProvider({ size: 1 }), withProvider({ size: 1 }))),
      ],
      [
        "diff, replace",
        () => both((c) => c.diff, diff(withProvider({ size: 1 }), withProvider({ size: 2 }))),
      ],
      [
        "create (reads the configured secret)",
        () => both((c) => c.create, create(withProvider({ size: 1 }))),
      ],
      [
        "create failing after the resource exists",
        () => both((c) => c.create, create(withProvider({ fail: "init" }))),
      ],
      ["create refused", () => both((c) => c.create, create(withProvider({ fail: "plain" })))],
      [
        "read",
        () =>
          both(
            (c) => c.read,
            new provproto.ReadRequest().setId("r1").setProperties(struct(withProvider({ size: 1 }))),
          ),
      ],
      ["update", () => both((c) => c.update, update(withProvider({ size: 3 })))],
      ["update refused", () => both((c) => c.update, update(withProvider({ fail: "plain" })))],
      ["delete", () => both((c) => c.delete, del("r1"))],
      ["delete refused", () => both((c) => c.delete, del("stuck"))],
      ["cancel", () => both((c) => c.cancel, new emptyproto.Empty())],
      ["plugin info", () => both((c) => c.getPluginInfo, new emptyproto.Empty())],
    ];
    for (const [name, step] of steps) answers.push([name, await step()]);

    for (const [name, [mine, theirs]] of answers) expect(mine, name).toEqual(theirs);
    // The cases above reach what they are meant to: a configured secret, an init failure.
    const created = answers.find(([name]) => name.startsWith("create (reads"))?.[1][0];
    expect(JSON.stringify(created)).toContain('"hello"');
    const halfMade = answers.find(([name]) => name.startsWith("create failing"))?.[1][0];
    expect(halfMade).toMatchObject({ details: "half made" });
    expect(halfMade && "statusDetails" in halfMade ? halfMade.statusDetails : undefined).toBeDefined();
  }, 60_000);

  describe("its launcher, which the engine starts with little more than node on PATH", () => {
    const launcher = path.join(repoRoot, "scripts", "pulumi-resource-pulumi-nodejs");
    const env = { PATH: path.dirname(process.execPath) };

    it("serves ours from the program directory of a Stackwright project", async () => {
      const child = spawn(launcher, ["127.0.0.1:1"], {
        cwd: path.join(repoRoot, "dist", "src", "program"),
        env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      try {
        const first = await new Promise<string>((resolve, reject) => {
          child.stdout.once("data", (chunk: Buffer) => resolve(chunk.toString()));
          child.once("exit", (code) => reject(new Error(`the launcher exited ${String(code)}`)));
        });
        expect(first.trim()).toMatch(/^\d+$/);
        const cmdline = fs.readFileSync(`/proc/${String(child.pid)}/cmdline`, "utf8");
        expect(cmdline).toContain("plugin-host/main.js");
      } finally {
        child.kill();
      }
    });

    it("says in one line that it found nothing to serve, instead of searching forever", () => {
      const result = spawnSync(launcher, ["127.0.0.1:1"], {
        cwd: dir,
        env,
        encoding: "utf8",
        timeout: 30_000,
      });
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(
        `neither Stackwright's provider host nor @pulumi/pulumi was found from ${dir}`,
      );
    });
  });
});
