/**
 * A real S3-compatible server for the state-backend tests: moto in server mode, installed by
 * `npm run s3-server` (scripts/ensure-s3-server.sh) into .tools/s3-server, started on 127.0.0.1
 * with a free port, with one bucket made for the test. Its state lives in memory and ends with it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { repoRoot } from "./scratch-project";

export interface TestS3Server {
  /** http://127.0.0.1:PORT */
  readonly endpoint: string;
  readonly bucket: string;
  /** The PULUMI_BACKEND_URL of the bucket (with an optional key prefix). */
  backendUrl(prefix?: string): string;
  /** The environment the engine needs for this store (credentials for the signature only). */
  readonly env: Record<string, string>;
  close(): Promise<void>;
}

const SERVER = path.join(repoRoot, ".tools", "s3-server", "bin", "moto_server");
const START_TIMEOUT_MS = 30_000;

/** Starts moto's S3 server and makes `bucket`. */
export async function startS3Server(
  bucket = "stackwright-state",
  /** Extra settings of the server, e.g. `S3_IGNORE_SUBDOMAIN_BUCKETNAME` for a host name it must not read a bucket from. */
  serverEnv: Record<string, string> = {},
): Promise<TestS3Server> {
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
  const res = await fetch(`${endpoint}/${bucket}`, { method: "PUT" });
  if (!res.ok)
    throw new Error(`creating bucket ${bucket} on ${endpoint} failed: ${res.status} ${await res.text()}`);
  return {
    endpoint,
    bucket,
    backendUrl: (prefix = "") =>
      `s3://${bucket}${prefix === "" ? "" : `/${prefix}`}?endpoint=${endpoint}&use_path_style=true&region=us-east-1`,
    env: {
      AWS_ACCESS_KEY_ID: "stackwright-test",
      AWS_SECRET_ACCESS_KEY: "stackwright-test-secret",
      AWS_REGION: "us-east-1",
    },
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
