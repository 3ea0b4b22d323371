/**
 * moto in server mode, installed by `npm run s3-server` (scripts/ensure-s3-server.sh) into
 * .tools/s3-server: one process that answers every AWS service it emulates (S3 for the state
 * tests, KMS for the test targets' secrets) on 127.0.0.1 with a free port. Its state lives in
 * memory and ends with it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

const SERVER = path.resolve(__dirname, "..", "..", ".tools", "s3-server", "bin", "moto_server");
const START_TIMEOUT_MS = 30_000;
/** The bound of one request a helper makes to moto itself (a bucket, a key). */
const REQUEST_TIMEOUT_MS = 10_000;

/**
 * One request of a helper to moto (`what` names it in the error), bounded; the answer is checked
 * here too: a refusal or no answer in time is an error that says which, and what moto said.
 */
export async function motoRequest(what: string, url: string, init: RequestInit): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  } catch (cause) {
    const timedOut = cause instanceof DOMException && cause.name === "TimeoutError";
    throw new Error(
      timedOut
        ? `moto at ${url} did not answer ${what} within ${REQUEST_TIMEOUT_MS} ms`
        : `moto at ${url} could not be asked ${what}: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
  if (!res.ok) throw new Error(`moto at ${url} refused ${what}: ${res.status} ${await res.text()}`);
  return res;
}

/** The variables an AWS client needs to sign its requests to moto (which checks no signature). */
export const MOTO_CREDENTIALS: Readonly<Record<string, string>> = {
  AWS_ACCESS_KEY_ID: "stackwright-test",
  AWS_SECRET_ACCESS_KEY: "stackwright-test-secret",
  AWS_REGION: "us-east-1",
};

export interface MotoServer {
  /** http://127.0.0.1:PORT */
  readonly endpoint: string;
  /** Stops it (SIGTERM, then SIGKILL after 5 s) and waits for its exit. */
  close(): Promise<void>;
}

/** Starts moto's server; `serverEnv` adds settings of its own (e.g. `S3_IGNORE_SUBDOMAIN_BUCKETNAME`). */
export async function startMoto(serverEnv: Readonly<Record<string, string>> = {}): Promise<MotoServer> {
  if (!fs.existsSync(SERVER)) {
    throw new Error(`${SERVER} is missing: run 'npm run s3-server' (npm test runs it first)`);
  }
  const child = spawn(SERVER, ["-H", "127.0.0.1", "-p", "0"], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, PYTHONUNBUFFERED: "1", ...serverEnv },
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let endpoint: string;
  try {
    endpoint = await listeningAddress(child);
  } catch (err) {
    child.kill("SIGKILL");
    throw err;
  }
  return {
    endpoint,
    async close() {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Waits (bounded) for werkzeug's "Running on http://127.0.0.1:PORT" line. */
function listeningAddress(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = "";
    let done = false;
    const timer = setTimeout(
      () =>
        reject(new Error(`moto_server did not say where it listens within ${START_TIMEOUT_MS} ms:\n${seen}`)),
      START_TIMEOUT_MS,
    );
    // The listeners stay to drain the pipes (moto logs every request) once the address is known.
    const onData = (chunk: Buffer) => {
      if (done) return;
      seen += chunk.toString();
      const match = /Running on (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
      if (match?.[1] !== undefined) {
        done = true;
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`moto_server exited (code ${String(code)}) before listening:\n${seen}`));
    });
  });
}
