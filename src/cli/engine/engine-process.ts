/**
 * The `pulumi` processes of engine runs: started as the SDK's `PulumiCommand.run` starts them but
 * in a process group of their own, so that a signal reaches an engine only when this CLI sends
 * it (interrupt.ts decides when: one SIGINT to stop gracefully, a second to terminate), and
 * known while they run, with what each waits for, for the line a stop prints.
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type { PulumiCommand } from "@pulumi/pulumi/automation";
import { z } from "zod";
import { clientDefaults } from "../../client";
import { durationText } from "../../config";

// `createCommandError` is what the SDK's own command runner turns a failed `pulumi` into (the
// pinned SDK has it; its typings leave it out as internal), so a failed engine run here is the
// same `CommandError` as through `PulumiCommand.run` (test/unit/cli/engine-process.test.ts fails if it
// goes away).
declare module "@pulumi/pulumi/automation/errors.js" {
  function createCommandError(result: CommandResult): Error;
}

/** The shape of the SDK's `CommandResult` (cmd.js), whose text is the error's message. */
class CommandResult {
  constructor(
    readonly stdout: string,
    readonly stderr: string,
    readonly code: number,
    readonly err?: Error,
  ) {}

  toString(): string {
    return `code: ${this.code}\n stdout: ${this.stdout}\n stderr: ${this.stderr}\n err?: ${this.err?.toString() ?? ""}\n`;
  }
}

/** An engine process while it runs: what signals reach, and where to read what it waits for. */
export interface RunningEngine {
  readonly stack: string;
  readonly eventLog: string;
  /** Deployments its display has named so far, by `stack/environment`. */
  readonly named: ReadonlyMap<string, string>;
  /** Sends `signal` to the engine (nothing once it has exited). */
  signal(signal: NodeJS.Signals): void;
}

const running = new Set<RunningEngine>();

/** The engines of this process that run now. */
export function runningEngines(): RunningEngine[] {
  return [...running];
}

/** Sends `signal` to `child` unless it has exited. */
function signalChild(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    child.kill(signal);
  } catch {
    // Exited meanwhile.
  }
}

export interface EngineProcessOptions {
  /** The stack the engine runs (for the line that says what a stop waits for). */
  readonly stack: string;
  /** The engine's `--event-log`, read when a stop needs to say what is in flight. */
  readonly eventLog: string;
  readonly onOutput?: (text: string) => void;
  readonly onError?: (text: string) => void;
  /** Aborting sends the engine SIGINT, once; aborted before it starts, it never starts. */
  readonly signal?: AbortSignal;
  /** The environment the engine's own extends: a command's (its context's `env`). */
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
}

/**
 * Runs `pulumi ARGS` as the SDK's `PulumiCommand.run` does (`--non-interactive`, the CLI's folder
 * first on PATH, `PULUMI_AUTOMATION_API`, a failure as its `CommandError`), in a process group
 * of its own, so that signals reach it only from here.
 */
export async function runEngineProcess(
  command: Pick<PulumiCommand, "command">,
  args: readonly string[],
  cwd: string,
  additionalEnv: Readonly<Record<string, string>>,
  options: EngineProcessOptions,
): Promise<{ readonly stdout: string; readonly stderr: string }> {
  options.signal?.throwIfAborted();
  // Loaded here: `status` and `drift` import this module and never load the engine's SDK.
  const { createCommandError } = await import("@pulumi/pulumi/automation/errors.js");
  options.signal?.throwIfAborted();
  const argv = args.includes("--non-interactive") ? [...args] : [...args, "--non-interactive"];
  const env: Record<string, string | undefined> = { ...options.baseEnv, ...additionalEnv };
  if (path.isAbsolute(command.command)) {
    env["PATH"] =
      `${path.dirname(command.command)}${path.delimiter}${additionalEnv["PATH"] ?? options.baseEnv["PATH"] ?? ""}`;
  }
  env["PULUMI_AUTOMATION_API"] = "true";
  return await new Promise((resolve, reject) => {
    const child = spawn(command.command, argv, {
      cwd,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const named = new Map<string, string>();
    const engine: RunningEngine = {
      stack: options.stack,
      eventLog: options.eventLog,
      named,
      signal: (signal) => signalChild(child, signal),
    };
    running.add(engine);
    let stdout = "";
    let stderr = "";
    // Once stopped, the engine's closing list of outputs shows every output as removed (the
    // program never declared them): that list is left out.
    const outputs = withoutOutputsAfterStop(options.onOutput, () => options.signal?.aborted === true);
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", (text: string) => {
      stdout += text;
      for (const [where, id] of deploymentsNamed(text)) named.set(where, id);
      outputs.write(text);
    });
    child.stderr.on("data", (text: string) => {
      stderr += text;
      options.onError?.(text);
    });
    const onAbort = () => engine.signal("SIGINT");
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const done = () => {
      running.delete(engine);
      options.signal?.removeEventListener("abort", onAbort);
      outputs.flush();
    };
    child.once("error", (err) => {
      done();
      reject(createCommandError(new CommandResult("", err.message, -2, err)));
    });
    child.once("close", (code, signal) => {
      done();
      if (code === 0) resolve({ stdout, stderr });
      else
        reject(createCommandError(new CommandResult(stdout, stderr, code ?? (signal === null ? -1 : 128))));
    });
  });
}

/**
 * The engine's display, passed on line by line; after `stopped()`, a block that starts with the
 * line `Outputs:` is dropped up to the next blank line.
 */
export function withoutOutputsAfterStop(
  onOutput: ((text: string) => void) | undefined,
  stopped: () => boolean,
): { write(text: string): void; flush(): void } {
  let partial = "";
  let dropping = false;
  const line = (text: string) => {
    if (!dropping && stopped() && text.trim() === "Outputs:") dropping = true;
    if (dropping) {
      if (text.trim() === "") dropping = false;
      return;
    }
    onOutput?.(`${text}\n`);
  };
  return {
    write(text) {
      if (onOutput === undefined) return;
      const lines = (partial + text).split("\n");
      partial = lines.pop() ?? "";
      for (const l of lines) line(l);
    },
    flush() {
      if (partial !== "") onOutput?.(dropping ? "" : partial);
      partial = "";
    },
  };
}

/** The parts of an engine event this module reads. */
const StepEvent = z.object({
  metadata: z.object({
    urn: z.string(),
    type: z.string().optional(),
    op: z.string().optional(),
    new: z.object({ inputs: z.record(z.string(), z.unknown()).optional() }).nullish(),
  }),
});
const LoggedEvent = z.object({
  resourcePreEvent: StepEvent.optional(),
  resOutputsEvent: StepEvent.optional(),
  resOpFailedEvent: StepEvent.optional(),
  diagnosticEvent: z.object({ message: z.string(), severity: z.string().optional() }).optional(),
});

/** Most of an event log read to say what a stop waits for (its tail, where the run is). */
const MAX_LOG_BYTES = 4 * 1024 * 1024;

function readTail(file: string): string {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, "r");
    const size = fs.fstatSync(fd).size;
    const length = Math.min(size, MAX_LOG_BYTES);
    const buffer = Buffer.alloc(length);
    fs.readSync(fd, buffer, 0, length, size - length);
    return buffer.toString("utf8");
  } catch {
    return "";
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * The deployments a text names, by `stack/environment`: the provider's progress lines say which
 * one it waits for (`deployment 103 on acme-web/uat`).
 */
function deploymentsNamed(text: string): [string, string][] {
  return [...text.matchAll(/\bdeployment (\d+) on ([\w.-]+\/[\w.-]+)/gi)].flatMap((m) =>
    m[1] === undefined || m[2] === undefined ? [] : [[m[2], m[1]] as [string, string]],
  );
}

/** The resource operations that wait on the platform, by the type token's last part. */
const WAITS = new Set(["Deployment", "Snapshot", "SnapshotRestore", "GitFetch"]);

/**
 * What one running engine waits for, in words: each resource operation in flight that waits on
 * the platform (`deployment 103 on acme-web/uat to finish (its bound: 30m)`), or its engine
 * saving the state when none does.
 */
export function whatItWaitsFor(
  engine: Pick<RunningEngine, "stack" | "eventLog"> & Partial<Pick<RunningEngine, "named">>,
): string[] {
  const inFlight = new Map<string, { type: string; inputs: Record<string, unknown> }>();
  // The engine's display may name a deployment before its event log has the line.
  const deploymentIds = new Map<string, string>(engine.named ?? []);
  for (const line of readTail(engine.eventLog).split("\n")) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    const event = LoggedEvent.safeParse(value);
    if (!event.success) continue;
    const {
      resourcePreEvent: pre,
      resOutputsEvent: out,
      resOpFailedEvent: failed,
      diagnosticEvent: diag,
    } = event.data;
    if (pre !== undefined) {
      const type = (pre.metadata.type ?? "").split(":").pop() ?? "";
      const op = pre.metadata.op ?? "";
      if (WAITS.has(type) && !["same", "read", "refresh", "delete", "discard"].includes(op)) {
        inFlight.set(pre.metadata.urn, { type, inputs: pre.metadata.new?.inputs ?? {} });
      }
    }
    for (const ended of [out, failed]) if (ended !== undefined) inFlight.delete(ended.metadata.urn);
    for (const [where, id] of deploymentsNamed(diag?.message ?? "")) deploymentIds.set(where, id);
  }
  const defaultBound = clientDefaults.poll.timeoutMs / 1000;
  const waits = [...inFlight.values()].map(({ type, inputs }) => {
    const where = [inputs["stack"], inputs["environment"]].filter((v) => typeof v === "string").join("/");
    const seconds = typeof inputs["timeout_seconds"] === "number" ? inputs["timeout_seconds"] : defaultBound;
    const what =
      type === "Deployment"
        ? // The id once the provider has said it (its line reaches the event log a little after).
          `${deploymentIds.has(where) ? `deployment ${deploymentIds.get(where) ?? ""}` : "the deployment"} on ${where}`
        : `the ${type} on ${where}`;
    return `waiting for ${what} to finish (its bound: ${durationText(seconds)})`;
  });
  return waits.length > 0 ? waits : [`waiting for the engine of ${engine.stack} to save its state`];
}
