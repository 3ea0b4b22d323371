/**
 * The program hosted in the `stackwright` process: a Pulumi language runtime (the gRPC service
 * the engine calls `Run` on) that runs {@link stackProgram} in this process, for one engine
 * started with `--client ADDRESS`. The Automation API runs its inline programs the same way.
 * Against a language host starting a Node process per engine run, this saves loading Node, the
 * SDK and our modules again for every per-file stack: about 1.5 CPU-seconds each.
 *
 * Each run gets the SDK's own per-run state (its async-local store, as the SDK's inline-program
 * server does) and ours (providers/data: the run's environment and data-source memo), so several
 * stacks run at once in one process without seeing each other. Errors are reported as the SDK's
 * program runner reports them in a process of its own: a RunError by its message alone, others
 * with their stack, and the engine is told to stop with what was logged (`bail`). A run that
 * failed in any way never answers success, so the engine never takes a half-declared program
 * for the desired state.
 */
import * as grpc from "@grpc/grpc-js";
import * as pulumi from "@pulumi/pulumi";
import * as langrpc from "@pulumi/pulumi/proto/language_grpc_pb";
import * as langproto from "@pulumi/pulumi/proto/language_pb";
import * as plugproto from "@pulumi/pulumi/proto/plugin_pb";
import { grpcClientOptions } from "@pulumi/pulumi/runtime/settings";
import { withLocalStorage } from "@pulumi/pulumi/runtime/state";
import { AsyncLocalStorage } from "node:async_hooks";
import { inspect } from "node:util";
import { withProgramRun, writeReadsReport } from "../../providers";
import { BUG_LINE, ProviderError } from "../../providers/shared/errors";
import { stackProgram } from "./stack-program";

// `withLocalStorage` gives a run the SDK's own per-run state; the SDK's inline-program server
// (automation/server.js) calls it for every run. The pinned SDK has it; its typings leave it out
// as internal, so it is declared here (test/unit/program/host.test.ts fails if it goes away).
declare module "@pulumi/pulumi/runtime/state" {
  export function withLocalStorage<T>(callback: () => Promise<T>): Promise<T>;
}

// The options of every gRPC client the SDK makes of an engine (its monitor and its log service);
// internal to the SDK, so declared here (test/integration/program/host-close.test.ts fails if it
// goes away).
declare module "@pulumi/pulumi/runtime/settings" {
  export const grpcClientOptions: Record<string, unknown>;
}

/**
 * Gives each gRPC client made with `options` connections of its own. grpc-js shares a connection
 * per address across the clients of a process; one process hosts the programs of many engine
 * runs, each engine on a port of its own, and a port comes back: a new engine can listen where an
 * earlier one died, and a new client to it then took over the dead engine's connection, which
 * was waiting to retry, and failed at once (`14 UNAVAILABLE: No connection established. Last
 * error: null`), failing the run or, where the SDK takes that error for an engine going away,
 * cutting the program short.
 */
export function ownConnections(options: Record<string, unknown>): void {
  options["grpc.use_local_subchannel_pool"] = 1;
}

export interface ProgramHostOptions {
  /** The project root (where Pulumi.yaml and stacks-config/ are). */
  readonly rootDirectory: string;
  /** The environment the program reads, as a program process of the engine would have it. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** A language runtime listening on 127.0.0.1, for one engine run (`--client ADDRESS`). */
export interface ProgramHost {
  readonly address: string;
  /** Stops listening; a run still in progress is cut off. */
  close(): void;
}

/** What the SDK's program runner logs for an error that ends a program. */
function describe(err: unknown): string {
  // Raised on purpose (a user's mistake, a refusal): the message alone, as the engine shows a RunError.
  if (pulumi.RunError.isInstance(err) || ProviderError.isInstance(err)) return err.message;
  const text = err instanceof Error && err.stack !== undefined ? inspect(err) : String(err);
  return `${BUG_LINE}\nRunning program failed with an unhandled exception:\n${text}`;
}

/** How a run takes an error that ends it. */
type Failer = (err: unknown) => void;

// The runs in progress in this process, and the one whose async context is current: an error
// nobody handles belongs to the run it was raised in (Node calls the handlers in the async
// context of the rejected promise or of the throwing callback), or, when that cannot be told, to
// every run in progress (failing a run that was fine is safe; passing one that was not is not).
// A run whose host was closed (its engine gone) is cut off: it may still be waiting on that
// engine, and what it raises then is only the echo of the engine going away, so it is dropped;
// nor is another run's error sent to it. The handlers stay while any run is in either set. An
// error no run owns, raised while only cut-off runs remain, is nobody's to drop: it goes to the
// process's other listeners, or, with none, back to Node, which ends the process with it as it
// would have without ours.
const running = new Set<Failer>();
const cutOff = new Set<Failer>();
const current = new AsyncLocalStorage<Failer>();
function unhandled(err: unknown): void {
  const owner = current.getStore();
  if (owner !== undefined && running.has(owner)) owner(err);
  else if (owner !== undefined && cutOff.has(owner)) return;
  else if (running.size > 0) for (const fail of running) fail(err);
  else if (!heardElsewhere()) giveBackToNode(err);
}

/** Whether a listener besides ours takes the process's unhandled errors (a test runner's, say). */
function heardElsewhere(): boolean {
  const others = (listeners: readonly unknown[]) => listeners.some((listener) => listener !== unhandled);
  return others(process.listeners("uncaughtException")) || others(process.listeners("unhandledRejection"));
}

/** Raises `err` again with our handlers gone, so that Node reports it and ends the process. */
function giveBackToNode(err: unknown): void {
  process.off("uncaughtException", unhandled);
  process.off("unhandledRejection", unhandled);
  setImmediate(() => {
    throw err;
  });
}

function track(fail: Failer, add: boolean): void {
  if (add) {
    if (running.size + cutOff.size === 0) {
      process.on("uncaughtException", unhandled);
      process.on("unhandledRejection", unhandled);
    }
    running.add(fail);
  } else if (running.delete(fail) || cutOff.delete(fail)) {
    if (running.size + cutOff.size === 0) {
      process.off("uncaughtException", unhandled);
      process.off("unhandledRejection", unhandled);
    }
  }
}

/** Marks `fail`'s run as cut off: its host was closed while it was in progress. */
function cutOffRun(fail: Failer): void {
  if (running.delete(fail)) cutOff.add(fail);
}

/**
 * One `Run` of the engine: the program for the requested stack, in a store of its own. `ofHost`
 * holds the runs of its host while they are in progress, for the host's close.
 */
function runProgram(
  req: langproto.RunRequest,
  options: ProgramHostOptions,
  ofHost: Set<Failer>,
): Promise<langproto.RunResponse> {
  return withLocalStorage(async () => {
    const resp = new langproto.RunResponse();
    const failures = new Set<unknown>();
    const logged: Promise<void>[] = [];
    const fail: Failer = (err) => {
      if (failures.has(err)) return;
      failures.add(err);
      if (pulumi.ResourceError.isInstance(err) && err.hideStack === true) {
        logged.push(pulumi.log.error(err.message, err.resource));
      } else {
        logged.push(pulumi.log.error(describe(err)));
      }
    };
    // An error nobody handles, during this run, fails it (as it would end a program process).
    track(fail, true);
    ofHost.add(fail);
    try {
      await current.run(fail, async () => {
        const engineAddress = req.getArgsList()[0] ?? "";
        pulumi.runtime.resetOptions(
          req.getProject(),
          req.getStack(),
          req.getParallel(),
          engineAddress,
          req.getMonitorAddress(),
          req.getDryrun(),
          req.getOrganization(),
        );
        pulumi.runtime.setAllConfig(
          Object.fromEntries(req.getConfigMap().entries()),
          req.getConfigsecretkeysList(),
        );
        await withProgramRun({ env: options.env, workDir: req.getPwd() }, async () => {
          try {
            await pulumi.runtime.runInPulumiStack(() => stackProgram(options.rootDirectory));
          } catch (err) {
            // An error of the engine's own (the engine already knows and says it) is not reported again.
            if (!(err instanceof Error && pulumi.isGrpcError(err))) fail(err);
          }
          await Promise.all(logged);
          await pulumi.runtime.disconnect(failures.size === 0);
          if (failures.size === 0) writeReadsReport(req.getStack());
        });
      });
    } catch (err) {
      fail(err);
      await Promise.allSettled(logged);
    } finally {
      ofHost.delete(fail);
      track(fail, false);
    }
    if (failures.size > 0 || pulumi.log.hasErrors()) resp.setBail(true);
    return resp;
  });
}

/** Starts a language runtime serving the program on a free port of 127.0.0.1. */
export async function startProgramHost(options: ProgramHostOptions): Promise<ProgramHost> {
  ownConnections(grpcClientOptions);
  // The program's SDK dials its engine on loopback from this very process, and gRPC for Node reads
  // its proxy settings from the process's environment, not the run's: the run's loopback bypass
  // (no_grpc_proxy of the engine's environment) must be this process's too.
  const bypass = options.env["no_grpc_proxy"];
  if (bypass !== undefined) process.env["no_grpc_proxy"] = bypass;
  // The SDK's own limit for a message from the engine (runtime/settings.ts).
  const server = new grpc.Server({ "grpc.max_receive_message_length": 400 * 1024 * 1024 });
  const runs = new Set<Failer>();
  const service: grpc.UntypedServiceImplementation = {
    getRequiredPlugins: (
      _call: grpc.ServerUnaryCall<langproto.GetRequiredPluginsRequest, langproto.GetRequiredPluginsResponse>,
      callback: grpc.sendUnaryData<langproto.GetRequiredPluginsResponse>,
    ) => callback(null, new langproto.GetRequiredPluginsResponse().setPluginsList([])),
    getPluginInfo: (
      _call: grpc.ServerUnaryCall<unknown, plugproto.PluginInfo>,
      callback: grpc.sendUnaryData<plugproto.PluginInfo>,
    ) => callback(null, new plugproto.PluginInfo().setVersion("1.0.0")),
    run: (
      call: grpc.ServerUnaryCall<langproto.RunRequest, langproto.RunResponse>,
      callback: grpc.sendUnaryData<langproto.RunResponse>,
    ) => {
      runProgram(call.request, options, runs).then(
        (resp) => callback(null, resp),
        (err: unknown) => callback({ code: grpc.status.INTERNAL, details: String(err) }, null),
      );
    },
  };
  server.addService(langrpc.LanguageRuntimeService, service);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, bound) =>
      err === null ? resolve(bound) : reject(err),
    ),
  );
  return {
    address: `127.0.0.1:${port}`,
    close() {
      // A run still in progress has lost its engine: no later error of another run is its.
      for (const fail of runs) cutOffRun(fail);
      runs.clear();
      server.forceShutdown();
    },
  };
}
