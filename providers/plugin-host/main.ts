/**
 * The dynamic-provider plugin's process (`pulumi-resource-pulumi-nodejs` starts it: see
 * scripts/pulumi-resource-pulumi-nodejs): serves service.ts on a free port of 127.0.0.1 and prints
 * the port, which is how the engine finds a plugin. The engine passes its own address as the one
 * argument; like the SDK's plugin, this one needs nothing from it. Started with `--shared` by a
 * `stackwright` process instead, it serves the engine runs of that process (shared-host.ts).
 */
// First: zod (loaded by the providers this host serves) then skips its locales (src/zod-locales.ts).
import "../../src/zod-locales";
import * as grpc from "@grpc/grpc-js";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import { version } from "@pulumi/pulumi/version";
import { SHARED_FLAG } from "./protocol";
import { dynamicProviderService, MAX_ENGINE_MESSAGE_BYTES } from "./service";
import { serveShared } from "./shared-host";

// An error nobody handled makes the exit code non-zero, as in the SDK's plugin: the engine must
// not take a provider that failed for one that finished.
const uncaught = new Set<unknown>();
const onUncaught = (err: unknown) => {
  if (uncaught.has(err)) return;
  uncaught.add(err);
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
};
process.on("uncaughtException", onUncaught);
process.on("unhandledRejection", onUncaught);
process.on("exit", (code) => {
  if (code === 0 && uncaught.size > 0) process.exitCode = 1;
});

if (process.argv[2] === SHARED_FLAG) {
  serveShared(version);
} else {
  servePlugin();
}

/** One engine's plugin: the engine started this process and reads the port from its stdout. */
function servePlugin(): void {
  if (process.argv.length < 3) {
    console.error("fatal: Missing <engine> address");
    process.exit(1);
  }

  const server = new grpc.Server({ "grpc.max_receive_message_length": MAX_ENGINE_MESSAGE_BYTES });
  // The engine sets the project's name for the Node.js dynamic-provider plugin (its `Config`).
  server.addService(
    provrpc.ResourceProviderService,
    dynamicProviderService(process.env["PULUMI_NODEJS_PROJECT"] ?? "project", version),
  );
  server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, port) => {
    if (err !== null) {
      console.error(`fatal: cannot listen on 127.0.0.1: ${err.message}`);
      process.exit(1);
    }
    // A string, so that Node does not colour it.
    console.log(String(port));
  });
}
