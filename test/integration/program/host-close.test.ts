import * as grpc from "@grpc/grpc-js";
import * as langrpc from "@pulumi/pulumi/proto/language_grpc_pb";
import * as langproto from "@pulumi/pulumi/proto/language_pb";
import * as net from "node:net";
import { describe, expect } from "vitest";
import { startProgramHost } from "../../../src/program/host";
import { fixtures } from "../../helpers/fixtures";
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

describe("the program host of a stackwright process", () => {
  test("stops counting a run whose engine went quiet as in progress once it is closed, so a later error is not sent to it", async ({
    fileScratchDir,
  }) => {
    const monitor = await silentMonitor();
    const host = await startProgramHost({ rootDirectory: fileScratchDir, env: {} });
    const client = new langrpc.LanguageRuntimeClient(host.address, grpc.credentials.createInsecure());
    const listeners = () => process.listenerCount("unhandledRejection");
    const before = listeners();
    try {
      const request = new langproto.RunRequest()
        .setProject("stackwright")
        .setStack("dev.quiet")
        .setPwd(fileScratchDir)
        .setMonitorAddress(monitor.address)
        .setDryrun(true);
      client.run(request, () => undefined);
      // The run waits on its monitor: it holds this process's handler of unhandled errors.
      await waitFor(() => listeners() === before + 1, "the run to start", 20_000);
      host.close();
      expect(listeners()).toBe(before);
    } finally {
      client.close();
      monitor.close();
    }
  });
});
