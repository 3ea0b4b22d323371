/**
 * The dynamic providers of the hosted program's engine runs, served by one process for all of
 * them (providers/plugin-host/shared-host.ts) instead of a plugin process that each engine starts.
 * A plugin process costs every per-file stack Node's start, gRPC and our provider modules again
 * (about 0.5 CPU-seconds, measured); the shared host pays them once per `stackwright` process.
 *
 * The host is what each plugin process would have been: `providers/plugin-host/main.js` of the
 * same build, with the program directory as its working directory and the engine run's
 * environment. It is started on the first run and again after it died; each run gets a port of
 * its own, which its engine attaches to (`PULUMI_DEBUG_PROVIDERS`), and closes it when it ends.
 * It never outlives this process: it exits when its IPC channel closes, which a kill of this
 * process closes too.
 */
import { fork, type ChildProcess } from "node:child_process";
import * as path from "node:path";
import {
  hostAnswer,
  SHARED_FLAG,
  type CreateGuardSpec,
  type HostAnswer,
  type HostRequest,
  type InFlightCreate,
} from "../../providers/plugin-host/protocol";

export { inFlightCreate, type InFlightCreate } from "../../providers/plugin-host/protocol";

/** A bound on the host's start and its answer to a request for a port. */
const OPEN_TIMEOUT_MS = 60_000;

/** The provider host's file in this build (dist/providers/...), beside this program's. */
const HOST_MAIN = path.join(__dirname, "..", "..", "providers", "plugin-host", "main.js");

/** One engine run's port on the shared host. */
export interface ProviderPort {
  readonly port: number;
  /** Stops serving the port: the run ended. */
  close(): void;
}

/**
 * A run's guard of its never-repeated creates (protocol.ts): what the host guards and answers
 * for suspects, and where this process records a create in flight and forgets it.
 */
export interface RunGuard {
  readonly spec: CreateGuardSpec;
  /** Records the create as in flight, durably; the host calls the provider once it resolves. */
  record(create: InFlightCreate): Promise<void>;
  /** The engine has the create's answer; resolves once it is forgotten (never rejects). */
  answered(create: InFlightCreate): Promise<void>;
}

/** Serves one more engine run, given its environment (the host takes the first run's). */
export type ProviderPortFactory = (
  env: Readonly<Record<string, string | undefined>>,
  guard?: RunGuard,
) => Promise<ProviderPort>;

/** The shared host of a project's runs: ports for runs, and a stop for a process that lives on. */
export type SharedProviderHost = ProviderPortFactory & {
  /**
   * Lets the host go now instead of when this process ends (a process that opens many projects,
   * such as a test worker): its IPC channel closes, it answers the calls in flight and exits. A
   * later run starts another.
   */
  readonly stop: () => void;
};

/** The value of `PULUMI_DEBUG_PROVIDERS` that attaches an engine's dynamic providers to `port`. */
export function attachDynamicProviders(existing: string | undefined, port: number): string {
  const others = (existing ?? "")
    .split(",")
    .filter((entry) => entry !== "" && !entry.startsWith("pulumi-nodejs:"));
  return [...others, `pulumi-nodejs:${String(port)}`].join(",");
}

/** The host exited or failed before it answered. */
class HostGoneError extends Error {
  override readonly name = "HostGoneError";
}

interface Waiting {
  /** The host the request went to. */
  host: ChildProcess;
  resolve(port: number): void;
  reject(error: Error): void;
}

/**
 * The shared host of one project's hosted program; nothing starts until the first run.
 * `hostMain` is the host's file (this build's unless a test names another).
 */
export function sharedProviderHost(
  project: { name: string; programDir: string },
  hostMain: string = HOST_MAIN,
): SharedProviderHost {
  let child: ChildProcess | undefined;
  let next = 0;
  const waiting = new Map<number, Waiting>();
  const guards = new Map<number, RunGuard>();

  // The IPC channel keeps this process alive only while it waits for an answer.
  const holdOpen = (c: ChildProcess) => {
    if ([...waiting.values()].some((w) => w.host === c)) c.channel?.ref();
    else c.channel?.unref();
  };

  const start = (env: Readonly<Record<string, string | undefined>>): ChildProcess => {
    const started = fork(hostMain, [SHARED_FLAG], {
      cwd: project.programDir,
      env,
      // Everything a provider prints goes to its run's engine; stray output to our stderr.
      stdio: ["ignore", "ignore", "inherit", "ipc"],
      serialization: "json",
      // A group of its own, as the engine starts its plugins: a Ctrl-C or a CI runner's SIGTERM
      // to our group stops the runs gracefully through their engines, which still need it.
      detached: true,
    });
    started.on("message", (raw: unknown) => {
      const parsed = hostAnswer.safeParse(raw);
      if (!parsed.success) return;
      const message: HostAnswer = parsed.data;
      if (message.kind === "in-flight" || message.kind === "answered") {
        const guard = guards.get(message.id);
        if (message.kind === "answered") {
          void guard?.answered(message.create);
          return;
        }
        const reply = (error?: string) => {
          const request: HostRequest = {
            kind: "recorded",
            id: message.id,
            call: message.call,
            ...(error === undefined ? {} : { error }),
          };
          if (started.connected) started.send(request);
        };
        if (guard === undefined) reply("the run has no guard");
        else
          guard.record(message.create).then(
            () => reply(),
            (err: unknown) => reply(err instanceof Error ? err.message : String(err)),
          );
        return;
      }
      const entry = waiting.get(message.id);
      if (entry === undefined) return;
      waiting.delete(message.id);
      holdOpen(started);
      if (message.kind === "opened") entry.resolve(message.port);
      else entry.reject(new Error(`the shared provider host could not serve a run: ${message.message}`));
    });
    const gone = (why: string) => {
      if (child === started) child = undefined;
      // Only the requests sent to this host: a run may already be asking its successor.
      for (const [id, entry] of waiting) {
        if (entry.host !== started) continue;
        waiting.delete(id);
        entry.reject(new HostGoneError(`the shared provider host ${why} before it served the run`));
      }
    };
    started.on("exit", (code, signal) => gone(`exited (${signal ?? `code ${String(code)}`})`));
    started.on("error", (err) => gone(`failed: ${err.message}`));
    started.unref();
    return started;
  };

  /** Asks `host` for a port for run `id`; rejects with HostGoneError when the host died first. */
  const openOn = (host: ChildProcess, id: number, guard: RunGuard | undefined): Promise<number> =>
    new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiting.delete(id);
        holdOpen(host);
        reject(new Error(`the shared provider host did not serve a run within ${OPEN_TIMEOUT_MS / 1000} s`));
      }, OPEN_TIMEOUT_MS);
      const settle =
        <T>(f: (value: T) => void) =>
        (value: T) => {
          clearTimeout(timer);
          f(value);
        };
      waiting.set(id, { host, resolve: settle(resolve), reject: settle(reject) });
      holdOpen(host);
      const request: HostRequest = {
        kind: "open",
        id,
        project: project.name,
        ...(guard === undefined ? {} : { guard: guard.spec }),
      };
      host.send(request);
    });

  const open: ProviderPortFactory = async (env, guard) => {
    // A host that died since the last run (killed, out of memory) may not have been seen to exit
    // yet: the run that finds it gone starts a new one, once.
    for (let attempt = 1; ; attempt++) {
      const host = child ?? start(env);
      child = host;
      const id = ++next;
      if (guard !== undefined) guards.set(id, guard);
      try {
        const port = await openOn(host, id, guard);
        return {
          port,
          close: () => {
            guards.delete(id);
            const request: HostRequest = { kind: "close", id };
            if (host.connected) host.send(request);
          },
        };
      } catch (error) {
        guards.delete(id);
        if (!(error instanceof HostGoneError) || attempt >= 2) throw error;
        if (child === host) child = undefined;
      }
    }
  };
  const stop = () => {
    const host = child;
    child = undefined;
    if (host?.connected === true) host.disconnect();
  };
  return Object.assign(open, { stop });
}
