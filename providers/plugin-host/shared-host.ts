/**
 * A shared provider host: one process serving the dynamic providers of many engine runs, each on
 * a port of its own that its engine attaches to (`PULUMI_DEBUG_PROVIDERS=pulumi-nodejs:<port>`),
 * instead of each engine starting a plugin process (and paying Node's start, gRPC, and our
 * provider modules again) for every per-file stack. The process that started it asks for a port
 * per run and closes it afterwards (protocol.ts); the host exits when that process goes, once
 * the calls in flight are answered.
 *
 * What a provider prints reaches its own run: an engine reads a plugin's stdout and stderr as
 * the update's `info` diagnostics, and an attached provider has no output the engine reads, so
 * every line written while a run's request is served is sent to that run's engine with the
 * engine's `Log` call instead (in order, before the request's answer). Output outside any
 * request goes to this process's stderr.
 */
import * as grpc from "@grpc/grpc-js";
import * as engrpc from "@pulumi/pulumi/proto/engine_grpc_pb";
import * as engproto from "@pulumi/pulumi/proto/engine_pb";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import { AsyncLocalStorage } from "node:async_hooks";
import { guardedCreate, parentGone, recordedByParent, tellParent } from "./create-guard";
import { hostRequest } from "./protocol";
import { dynamicProviderService, MAX_ENGINE_MESSAGE_BYTES } from "./service";

/** A bound on one log call to an engine: a gone engine must not hold a provider's answer. */
const LOG_DEADLINE_MS = 10_000;
/** The engine's stream ids of a plugin's stdout and stderr are per plugin; any fixed pair does. */
const STDOUT_STREAM = 1;
const STDERR_STREAM = 2;

/** One engine run's output: complete lines go to its engine, one `Log` call after another. */
class RunOutput {
  private engine: engrpc.EngineClient | undefined;
  private readonly partial = new Map<number, string>();
  private sent: Promise<void> = Promise.resolve();

  attach(address: string): void {
    this.engine?.close();
    this.engine = new engrpc.EngineClient(address, grpc.credentials.createInsecure());
  }

  write(stream: number, text: string): void {
    const lines = ((this.partial.get(stream) ?? "") + text).split("\n");
    this.partial.set(stream, lines.pop() ?? "");
    for (const line of lines) this.send(stream, `${line}\n`);
  }

  /** Sends what is left of a line and resolves when everything written so far was sent. */
  flushed(): Promise<void> {
    for (const [stream, rest] of this.partial) if (rest !== "") this.send(stream, rest);
    this.partial.clear();
    return this.sent;
  }

  close(): void {
    this.engine?.close();
    this.engine = undefined;
  }

  private send(stream: number, message: string): void {
    if (message.trim() === "") return;
    const engine = this.engine;
    if (engine === undefined) {
      // Not attached (yet): the line is not lost.
      process.stderr.write(message);
      return;
    }
    const request = new engproto.LogRequest()
      .setSeverity(engproto.LogSeverity.INFO)
      .setMessage(message)
      .setStreamid(stream);
    this.sent = this.sent.then(
      () =>
        new Promise<void>((resolve) => {
          engine.log(request, new grpc.Metadata(), { deadline: Date.now() + LOG_DEADLINE_MS }, (err) => {
            // The engine went away: the line goes where this process's own output goes.
            if (err !== null) process.stderr.write(message);
            resolve();
          });
        }),
    );
  }
}

const runs = new AsyncLocalStorage<RunOutput>();

/** Sends what `stream` is given while a run's request is served to that run. */
function route(stream: NodeJS.WriteStream, streamId: number): void {
  const original = stream.write.bind(stream);
  const write = (chunk: unknown, ...rest: unknown[]): boolean => {
    const run = runs.getStore();
    if (run === undefined) return Reflect.apply(original, stream, [chunk, ...rest]);
    run.write(
      streamId,
      typeof chunk === "string"
        ? chunk
        : chunk instanceof Uint8Array
          ? Buffer.from(chunk).toString()
          : String(chunk),
    );
    const done = rest.find((r): r is () => void => typeof r === "function");
    if (done !== undefined) queueMicrotask(done);
    return true;
  };
  Object.defineProperty(stream, "write", { value: write, writable: true, configurable: true });
}

/** Serves engine runs on request of the parent process until it goes. */
export function serveShared(version: string): void {
  if (process.send === undefined) {
    console.error(`fatal: a shared provider host needs an IPC channel to the process that started it`);
    process.exit(1);
  }
  route(process.stdout, STDOUT_STREAM);
  route(process.stderr, STDERR_STREAM);
  // Our stderr is the parent's; once the parent is gone it may be a closed pipe, and a failed
  // write must not end the calls still being answered.
  process.stderr.on("error", () => undefined);
  const servers = new Map<number, { server: grpc.Server; output: RunOutput }>();
  let inFlight = 0;
  // This process goes when its parent does (it runs in a process group of its own), but not in
  // the middle of a call: an engine that outlives its parent (killed alone) still waits for the
  // answer, and a create cut off here would lose its pending operation in the engine's state, so
  // that a restore would be run again by the next `up` (pending-creates.ts). Each server stops
  // taking calls and shuts down once its calls are answered; each call ends within its own wait.
  process.on("disconnect", () => {
    parentGone();
    if (inFlight > 0) {
      console.error(
        `stackwright provider host: the process that started it is gone; answering the ` +
          `${String(inFlight)} call(s) in flight (each ends within its own wait bound), then exiting`,
      );
    }
    let open = servers.size;
    if (open === 0) process.exit(0);
    for (const { server } of servers.values()) {
      server.tryShutdown(() => {
        if (--open === 0) process.exit(0);
      });
    }
  });

  process.on("message", (raw: unknown) => {
    const parsed = hostRequest.safeParse(raw);
    if (!parsed.success) {
      console.error(`shared provider host: ignored a message it does not know: ${parsed.error.message}`);
      return;
    }
    const request = parsed.data;
    if (request.kind === "recorded") {
      recordedByParent(request);
      return;
    }
    if (request.kind === "close") {
      const served = servers.get(request.id);
      servers.delete(request.id);
      served?.server.forceShutdown();
      served?.output.close();
      return;
    }
    const output = new RunOutput();
    const server = new grpc.Server({ "grpc.max_receive_message_length": MAX_ENGINE_MESSAGE_BYTES });
    server.addService(
      provrpc.ResourceProviderService,
      dynamicProviderService(request.project, version, {
        attached: (address) => output.attach(address),
        ...(request.guard === undefined ? {} : { create: guardedCreate(request.id, request.guard) }),
        around: (work) =>
          runs.run(output, async () => {
            inFlight++;
            try {
              return await work();
            } finally {
              await output.flushed();
              inFlight--;
            }
          }),
      }),
    );
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, port) => {
      if (err !== null) {
        tellParent({ kind: "failed", id: request.id, message: `cannot listen on 127.0.0.1: ${err.message}` });
        return;
      }
      servers.set(request.id, { server, output });
      tellParent({ kind: "opened", id: request.id, port });
    });
  });
}
