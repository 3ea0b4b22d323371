/**
 * The engine run of one stack: `pulumi preview|up|refresh|destroy --stack NAME`, with the
 * arguments and environment the Automation API's `Stack` passes, run as its `PulumiCommand` runs
 * them (so a failure is the same `CommandError`) but in a process group of its own
 * (engine-process.ts), minus what this tool never uses.
 * The SDK's `Stack` selects the stack when it is made (`pulumi stack select`), and after an
 * update, refresh or destroy reads the stack's outputs twice and its history: four `pulumi`
 * processes around each run, measured at 1.3 CPU-seconds per stack, a sixth of a per-file
 * no-change `up`. Here the change counts come from the engine's own summary event, and the
 * events from its event log, read as the engine appends to it (the display shows a run as it
 * goes) and to its end once the engine has exited.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Deployment, EngineEvent, LocalWorkspace } from "@pulumi/pulumi/automation";
import {
  attachDynamicProviders,
  type ProgramHost,
  type ProviderPort,
  type ProviderPortFactory,
  type RunGuard,
} from "../../program";
import { runEngineProcess } from "./engine-process";

export type EngineOperation = "preview" | "up" | "refresh" | "destroy";

export interface EngineRunOptions {
  /** The target's settings file, for a per-file stack (`--config-file`). */
  readonly configFile?: string;
  /** Refresh the state from the providers first (`--refresh`; not for `refresh` itself). */
  readonly refresh?: boolean;
  /** `destroy` only: show what it would delete, change nothing. */
  readonly previewOnly?: boolean;
  readonly parallel?: number;
  readonly onOutput?: (text: string) => void;
  readonly onError?: (text: string) => void;
  /**
   * Every event of the run, in order, as the engine writes it (its log is read while it runs,
   * and to its end once it has exited, also when it failed).
   */
  readonly onEvent?: (event: EngineEvent) => void;
  /** Aborting sends the engine SIGINT, once: it stops at a safe point and releases its lock. */
  readonly signal?: AbortSignal;
  /** The run's guard of its never-repeated creates (state/in-flight.ts), with the shared host. */
  readonly guard?: RunGuard;
}

/** What a run changed, by operation (`create`, `same`, ...), from the engine's summary event. */
export type ResourceChanges = Readonly<Record<string, number>>;

/** The arguments of one engine run before the ones every run gets. */
export function engineArgs(operation: EngineOperation, options: EngineRunOptions): string[] {
  const args: string[] = [operation];
  if (operation === "destroy" && options.previewOnly === true) args.push("--preview-only");
  else if (operation !== "preview") args.push("--yes", "--skip-preview");
  if (options.refresh === true && operation !== "refresh") args.push("--refresh");
  if (options.parallel !== undefined) args.push("--parallel", String(options.parallel));
  if (options.configFile !== undefined) args.push("--config-file", options.configFile);
  return args;
}

function isEngineEvent(value: unknown): value is EngineEvent {
  return (
    typeof value === "object" &&
    value !== null &&
    "sequence" in value &&
    typeof value.sequence === "number" &&
    "timestamp" in value &&
    typeof value.timestamp === "number"
  );
}

/** The events of an event log (JSON lines); a line cut short by a dying engine is left out. */
export function parseEventLog(text: string): EngineEvent[] {
  const events: EngineEvent[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    if (isEngineEvent(value)) events.push(value);
  }
  return events;
}

/** How often a running engine's event log is read for new events. */
const TAIL_INTERVAL_MS = 100;

/**
 * Follows an event log as the engine appends to it: every complete line is handed to `onEvent`
 * once, in order; `finish()` reads what is left after the engine has exited (a last line cut
 * short by a dying engine is left out, as {@link parseEventLog} leaves it out).
 */
export function followEventLog(
  file: string,
  onEvent: (event: EngineEvent) => void,
  intervalMs = TAIL_INTERVAL_MS,
): { finish(): void } {
  let offset = 0;
  let pending = "";
  const decoder = new TextDecoder();
  const buffer = Buffer.alloc(64 * 1024);
  const read = () => {
    let fd: number;
    try {
      fd = fs.openSync(file, "r");
    } catch {
      return; // not written yet
    }
    try {
      for (;;) {
        const n = fs.readSync(fd, buffer, 0, buffer.length, offset);
        if (n === 0) break;
        offset += n;
        pending += decoder.decode(buffer.subarray(0, n), { stream: true });
      }
    } finally {
      fs.closeSync(fd);
    }
    const end = pending.lastIndexOf("\n");
    if (end === -1) return;
    const complete = pending.slice(0, end);
    pending = pending.slice(end + 1);
    for (const event of parseEventLog(complete)) onEvent(event);
  };
  const timer = setInterval(read, intervalMs);
  timer.unref();
  return {
    finish() {
      clearInterval(timer);
      read();
      for (const event of parseEventLog(pending)) onEvent(event);
      pending = "";
    },
  };
}

/**
 * Starts the program for one engine run (a language runtime the engine connects to with
 * `--client` instead of starting one), given the environment a program process would have
 * had (this process's, with the workspace's variables over it).
 */
export type ProgramHostFactory = (env: Readonly<Record<string, string | undefined>>) => Promise<ProgramHost>;

/**
 * Where an engine run's program and its dynamic providers run instead of processes of their own.
 * Without `providers`, the engine starts the dynamic-provider plugin as plain `pulumi` does.
 */
export interface EngineHosts {
  readonly program: ProgramHostFactory;
  readonly providers?: ProviderPortFactory;
}

/**
 * A stack of the workspace, known to exist: runs of the engine, and its state. With hosts, the
 * engine runs the program in this process and attaches to the shared provider host (when there
 * is one); without, it starts the language host's Node process (Pulumi.yaml's `main`) and a
 * provider plugin, as plain `pulumi` does.
 */
export class EngineStack {
  /**
   * `given` is the environment the run's own extends: a command's `env`, or the process's for the
   * benches and tests that run an engine with no command around it (they say so where they call).
   */
  constructor(
    readonly workspace: LocalWorkspace,
    readonly name: string,
    private readonly hosts: EngineHosts | undefined,
    private readonly given: Readonly<Record<string, string | undefined>>,
  ) {}

  exportStack(): Promise<Deployment> {
    return this.workspace.exportStack(this.name);
  }

  importStack(state: Deployment): Promise<void> {
    return this.workspace.importStack(this.name, state);
  }

  /** Runs the engine once; resolves to the changes of its summary event (none when it has none). */
  async run(operation: EngineOperation, options: EngineRunOptions = {}): Promise<ResourceChanges> {
    const ws = this.workspace;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-events-"));
    const log = path.join(dir, "events.jsonl");
    const env: Record<string, string> = {
      PULUMI_DEBUG_COMMANDS: "true",
      ...(ws.pulumiHome === undefined ? {} : { PULUMI_HOME: ws.pulumiHome }),
      ...ws.envVars,
    };
    let changes: ResourceChanges = {};
    const follower = followEventLog(log, (event) => {
      if (event.summaryEvent !== undefined) changes = event.summaryEvent.resourceChanges;
      options.onEvent?.(event);
    });
    let program: ProgramHost | undefined;
    let providers: ProviderPort | undefined;
    try {
      program = await this.hosts?.program({ ...this.given, ...env });
      providers = await this.hosts?.providers?.({ ...this.given, ...env }, options.guard);
      if (providers !== undefined) {
        env["PULUMI_DEBUG_PROVIDERS"] = attachDynamicProviders(
          env["PULUMI_DEBUG_PROVIDERS"] ?? this.given["PULUMI_DEBUG_PROVIDERS"],
          providers.port,
        );
      }
      const args = [
        ...engineArgs(operation, options),
        ...(program === undefined
          ? ["--exec-kind", "auto.local"]
          : ["--exec-kind", "auto.inline", "--client", program.address]),
        "--event-log",
        log,
        "--stack",
        this.name,
        // Plain text: every control character left in the stream is then the platform's, which the CLI
        // shows visibly (src/cli/kit/output.ts).
        "--color",
        "never",
      ];
      // In a process group of its own: signals reach it only from this CLI (engine-process.ts).
      await runEngineProcess(ws.pulumiCommand, args, ws.workDir, env, {
        stack: this.name,
        eventLog: log,
        baseEnv: this.given,
        ...(options.onOutput === undefined ? {} : { onOutput: options.onOutput }),
        ...(options.onError === undefined ? {} : { onError: options.onError }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
    } finally {
      program?.close();
      providers?.close();
      follower.finish();
      fs.rmSync(dir, { recursive: true, force: true });
    }
    return changes;
  }
}
