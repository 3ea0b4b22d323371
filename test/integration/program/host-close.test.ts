import * as grpc from "@grpc/grpc-js";
import * as pulumi from "@pulumi/pulumi";
import * as langrpc from "@pulumi/pulumi/proto/language_grpc_pb";
import * as langproto from "@pulumi/pulumi/proto/language_pb";
import * as resrpc from "@pulumi/pulumi/proto/resource_grpc_pb";
import * as resproto from "@pulumi/pulumi/proto/resource_pb";
import { grpcClientOptions } from "@pulumi/pulumi/runtime/settings";
import { spawn } from "node:child_process";
import * as net from "node:net";
import * as path from "node:path";
import { describe, expect, vi } from "vitest";
import { startProgramHost } from "../../../src/program/host";
import { fixtures } from "../../helpers/fixtures";
import { repoRoot } from "../../helpers/scratch-project";
import { waitFor } from "../../helpers/stackwright-process";

const test = fixtures();

/** A "resource monitor" that takes connections and never answers: the engine of a run gone quiet. */
async function silentMonitor(): Promise<{ address: string; close(): void }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => void sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    close() {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

/** A resource monitor that answers SupportsFeature, on `port` (0: a free one). */
async function answeringMonitor(port: number): Promise<{ port: number; close(): void }> {
  const server = new grpc.Server();
  server.addService(resrpc.ResourceMonitorService, {
    supportsFeature: (_call: unknown, callback: grpc.sendUnaryData<resproto.SupportsFeatureResponse>) =>
      callback(null, new resproto.SupportsFeatureResponse().setHassupport(true)),
  });
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (err, p) =>
      err === null ? resolve(p) : reject(err),
    ),
  );
  return { port: bound, close: () => server.forceShutdown() };
}

/**
 * One call of a new client made as the SDK makes its engine's: "ok", or the error's code and
 * details. The clients stay open until `closeAll`, as a run's do until it ends.
 */
const clients: grpc.Client[] = [];
function sdkCall(port: number): Promise<string> {
  const client = new resrpc.ResourceMonitorClient(
    `127.0.0.1:${port}`,
    grpc.credentials.createInsecure(),
    grpcClientOptions,
  );
  clients.push(client);
  return new Promise((resolve) =>
    client.supportsFeature(new resproto.SupportsFeatureRequest().setId("x"), (err) =>
      resolve(err === null ? "ok" : `${err.code} ${err.details}`),
    ),
  );
}
function closeAll(): void {
  for (const client of clients.splice(0)) client.close();
}

describe("the program host of a stackwright process", () => {
  test("reaches a new engine that listens where an earlier one died", async ({ fileScratchDir }) => {
    const host = await startProgramHost({ rootDirectory: fileScratchDir, env: {} });
    host.close();
    const first = await answeringMonitor(0);
    expect(await sdkCall(first.port)).toBe("ok");
    first.close();
    // The dead engine's connection, retried and refused, waits before it tries again.
    for (let i = 0; i < 3; i++) expect(await sdkCall(first.port)).not.toBe("ok");
    const second = await answeringMonitor(first.port);
    try {
      // Shared with the clients before it, the new client failed at once:
      // `14 No connection established. Last error: null`.
      expect(await sdkCall(second.port)).toBe("ok");
    } finally {
      second.close();
      closeAll();
    }
  });

  test("sends no later error to a run cut off by its host's close, drops what that run raises, and lets go of the process once it ends", async ({
    fileScratchDir,
  }) => {
    const monitor = await silentMonitor();
    const host = await startProgramHost({ rootDirectory: fileScratchDir, env: {} });
    const client = new langrpc.LanguageRuntimeClient(host.address, grpc.credentials.createInsecure());
    const listeners = () => process.listeners("unhandledRejection");
    const before = listeners().length;
    const logged = vi.spyOn(pulumi.log, "error");
    try {
      const request = new langproto.RunRequest()
        .setProject("stackwright")
        .setStack("dev.quiet")
        .setPwd(fileScratchDir)
        .setMonitorAddress(monitor.address)
        .setDryrun(true);
      client.run(request, () => undefined);
      // The run waits on its monitor: it holds this process's handler of unhandled errors.
      await waitFor(() => listeners().length === before + 1, "the run to start", 20_000);
      const handler = listeners().at(-1);
      host.close();
      // An error that belongs to no run in progress is not the cut-off run's to report.
      handler?.(new Error("another run's error"), Promise.resolve());
      expect(logged).not.toHaveBeenCalled();
      // Its engine gone for good, the run ends with its calls refused, reported nowhere, and the
      // process's handlers go with it.
      monitor.close();
      await waitFor(() => listeners().length === before, "the cut-off run to end", 20_000);
      expect(logged).not.toHaveBeenCalled();
    } finally {
      logged.mockRestore();
      client.close();
      monitor.close();
    }
  });

  test("gives an error no run owns back to Node once only cut-off runs remain, which ends the process with it", async () => {
    const monitor = await silentMonitor();
    try {
      const child = spawn(
        process.execPath,
        [
          path.join(repoRoot, "test", "helpers", "run-ts.cjs"),
          path.join(repoRoot, "test", "fixtures", "program-host", "orphan-error.ts"),
          monitor.address,
        ],
        { stdio: ["ignore", "pipe", "pipe"] },
      );
      let out = "";
      child.stdout.on("data", (c: Buffer) => (out += c.toString()));
      child.stderr.on("data", (c: Buffer) => (out += c.toString()));
      const ended = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      // Bounded: a process that swallowed the error would go on waiting on its silent monitor.
      const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
      const code = await ended;
      clearTimeout(timer);
      expect(out).toContain("closed");
      expect(out).toContain("a bug of the process, after the close");
      expect(code, out).toBe(1);
    } finally {
      monitor.close();
    }
  }, 40_000);
});
