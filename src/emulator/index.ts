import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { FastifyRequest } from "fastify";
import { Documents } from "./documents";
import { checkPublicUrl, linkBase } from "./links";
import { Engine } from "./engine";
import { Faults, RequestLog } from "./faults";
import { SPEEDS, Scheduler, type Speed } from "./scheduler";
import { type SeedInput, loadSeed } from "./seed";
import { buildServer } from "./server";
import { takeStateLock } from "./state-lock";
import { Store } from "./store";
import { Sites } from "./sites";
import { ANSWERS, type Answers } from "./deployment-fields";

export { SPEEDS, type Speed } from "./scheduler";
export { ANSWERS, type Answers } from "./deployment-fields";
export { checkPublicUrl } from "./links";
export { Seed, type SeedInput, loadSeed } from "./seed";
export { StateFileInUseError, stateFileHolder, stateLockPath, type StateLockHolder } from "./state-lock";

/** Options of `startEmulator`. */
export interface EmulatorOptions {
  /** The seed as an object, or the path of a YAML/JSON seed file. */
  seed: SeedInput | string;
  /** SQLite file that keeps the state across restarts (WAL); in memory when absent. */
  stateFile?: string;
  /** How fast deployments, transfers and fetches move; default `fast`. */
  speed?: Speed;
  /** TCP port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  /**
   * Refuse request-body members the API does not define (400 naming them). Default false: they
   * are ignored, as the platform does. Our own tests run strict so that junk we send is caught.
   */
  strict?: boolean;
  /** The URL clients reach the emulator at (behind a proxy): links in documents start with it. */
  publicUrl?: string;
  /**
   * `documented` (default): deployments in the spec's shapes (with the platform's extra members).
   * `platform`: as the real platform answers: reduced list items, the real create shape, a
   * numeric id in the single view (docs/emulator.md, "Answers like the platform").
   */
  answers?: Answers;
}

export interface RunningEmulator {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  /** Stops the server, every worker and timer, and closes the state file. */
  close(): Promise<void>;
}

const ALLOWED_OPTIONS = ["seed", "stateFile", "speed", "port", "strict", "publicUrl", "answers"];

/** Starts the reference server on 127.0.0.1 and resolves once it listens. */
export async function startEmulator(options: EmulatorOptions): Promise<RunningEmulator> {
  const unknown = Object.keys(options).filter((k) => !ALLOWED_OPTIONS.includes(k));
  if (unknown.length > 0) {
    throw new Error(
      `startEmulator: unknown option(s) ${unknown.join(", ")} (allowed: ${ALLOWED_OPTIONS.join(", ")})`,
    );
  }
  const speed = options.speed ?? "fast";
  if (!SPEEDS.includes(speed)) throw new Error(`startEmulator: speed must be one of ${SPEEDS.join(", ")}`);
  const answers = options.answers ?? "documented";
  if (!ANSWERS.includes(answers)) {
    throw new Error(`startEmulator: answers must be one of ${ANSWERS.join(", ")}`);
  }
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`startEmulator: port must be an integer from 0 to 65535, got ${String(port)}`);
  }
  let publicUrl: string | undefined;
  try {
    publicUrl = options.publicUrl === undefined ? undefined : checkPublicUrl(options.publicUrl);
  } catch (err) {
    throw new Error(`startEmulator: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  const seed = loadSeed(options.seed);
  // One server per state file (state-lock.ts): taken before the file is opened.
  const lock = options.stateFile === undefined ? undefined : takeStateLock(resolve(options.stateFile));
  let store: Store;
  try {
    store = new Store(seed, options.stateFile);
  } catch (err) {
    lock?.release();
    throw err;
  }
  const scheduler = new Scheduler(speed);
  const engine = new Engine(store, scheduler);
  const faults = new Faults();
  const log = new RequestLog();
  const sites = new Sites();
  // Links start as the client called the server; the listening address, known once listening,
  // only when the request says nothing usable.
  let base = "";
  const docs = (request: FastifyRequest) =>
    new Documents(store, linkBase(request.headers, base, publicUrl), answers);
  const app = buildServer({
    store,
    engine,
    docs,
    faults,
    log,
    scheduler,
    sites,
    strict: options.strict === true,
    reset: () => {
      faults.clear();
      log.clear();
      sites.clear();
      engine.deployments.clearStalls();
      engine.snapshots.clearStalls();
      engine.fetches.clearScripts();
      store.reset();
    },
  });
  try {
    await app.listen({ host: "127.0.0.1", port });
  } catch (err) {
    scheduler.close();
    store.close();
    lock?.release();
    throw err;
  }
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("emulator: not listening on TCP");
  base = `http://127.0.0.1:${address.port}`;
  lock?.listening(base);
  engine.resume();
  let closing: Promise<void> | null = null;
  return {
    url: base,
    close: () => {
      closing ??= (async () => {
        scheduler.close();
        await app.close();
        store.close();
        lock?.release();
      })();
      return closing;
    },
  };
}

/** The demo seed shipped in the repository (found from the sources and from dist/). */
export const DEFAULT_SEED_PATH: string =
  [
    resolve(__dirname, "seeds/default.yaml"),
    resolve(__dirname, "../../../src/emulator/seeds/default.yaml"),
  ].find((p) => existsSync(p)) ?? resolve(__dirname, "seeds/default.yaml");
