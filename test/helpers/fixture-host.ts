/**
 * A fixture program (a scratch project's `program.js`) hosted in the test's own process, for
 * one engine run started with `--client ADDRESS`: the SDK's own inline-program language server
 * (what `LocalWorkspace` runs an inline program with), running the very file Pulumi.yaml's
 * `main` names. The engine, the state and the dynamic-provider plugin stay processes of their
 * own; only the Node process of the language host is saved (about 1.6 CPU-seconds a run, most of
 * it loading the SDK, our providers and the closure serializer's TypeScript again).
 *
 * The program loads `./dist/providers` of the scratch directory, as in its own process. The run
 * gets the engine's working directory (`RunRequest.pwd`, the directory of `main`, where the
 * engine also starts the provider plugin) and the environment a program process would have had,
 * through the providers' own per-run store, as the `stackwright` command's host gives them.
 */
import * as grpc from "@grpc/grpc-js";
import * as langrpc from "@pulumi/pulumi/proto/language_grpc_pb";
import type * as langproto from "@pulumi/pulumi/proto/language_pb";
import { LanguageServer } from "@pulumi/pulumi/automation/server";
import { createRequire } from "node:module";
import type { ProgramRunOptions } from "../../providers";
import type { ProgramHost } from "../../src/program";
import { ownConnections } from "../../src/program/host";
import * as settings from "@pulumi/pulumi/runtime/settings";
import type { ProgramHostFactory } from "../../src/cli/engine/run";

// The SDK's inline-program server (automation/server.js), which its `Stack` starts for an inline
// program; its typings leave it out as internal.
declare module "@pulumi/pulumi/automation/server" {
  export class LanguageServer<T> implements grpc.UntypedServiceImplementation {
    constructor(program: () => Promise<T>);
    [name: string]: grpc.UntypedHandleCall;
    run(
      call: grpc.ServerUnaryCall<langproto.RunRequest, langproto.RunResponse>,
      callback: grpc.sendUnaryData<langproto.RunResponse>,
    ): Promise<void>;
  }
}

interface ScratchProviders {
  withProgramRun<T>(options: ProgramRunOptions, fn: () => T): T;
}

/** Hosts `programFile` (a CommonJS Pulumi program) for engine runs. */
export function fixtureProgramHost(programFile: string): ProgramHostFactory {
  const load = createRequire(programFile);
  const file = load.resolve(programFile);
  // The scratch project's own copy of the providers: the one the program's `require` gets.
  const providers = load("./dist/providers") as ScratchProviders;
  // The program's SDK (the scratch copy's) and the server's (ours) each make clients of the engine.
  for (const sdk of [load("@pulumi/pulumi/runtime/settings"), settings] as {
    grpcClientOptions: Record<string, unknown>;
  }[])
    ownConnections(sdk.grpcClientOptions);
  const program = async (): Promise<unknown> => {
    // A fresh module per run, as a fresh process would load it.
    delete load.cache[file];
    return load(file) as unknown;
  };
  return async (env) => {
    const server = new grpc.Server({ "grpc.max_receive_message_length": 400 * 1024 * 1024 });
    const language = new LanguageServer(program);
    const run = language.run.bind(language);
    language.run = (call, callback) =>
      providers.withProgramRun({ env, workDir: call.request.getPwd() }, () => run(call, callback));
    server.addService(langrpc.LanguageRuntimeService, language);
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, bound) =>
        err === null ? resolve(bound) : reject(err),
      ),
    );
    const host: ProgramHost = { address: `127.0.0.1:${port}`, close: () => server.forceShutdown() };
    return host;
  };
}
