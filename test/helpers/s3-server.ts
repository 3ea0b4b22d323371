/**
 * A real S3-compatible server for the state-backend tests: moto (test/helpers/moto.ts) with one
 * bucket made for the test.
 */
import { MOTO_CREDENTIALS, motoRequest, startMoto } from "./moto";

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

/** Starts moto's S3 server and makes `bucket`. */
export async function startS3Server(
  bucket = "stackwright-state",
  /** Extra settings of the server, e.g. `S3_IGNORE_SUBDOMAIN_BUCKETNAME` for a host name it must not read a bucket from. */
  serverEnv: Record<string, string> = {},
): Promise<TestS3Server> {
  const server = await startMoto(serverEnv);
  const { endpoint } = server;
  try {
    await motoRequest(`the creation of bucket ${bucket}`, `${endpoint}/${bucket}`, { method: "PUT" });
  } catch (err) {
    await server.close();
    throw err;
  }
  return {
    endpoint,
    bucket,
    backendUrl: (prefix = "") =>
      `s3://${bucket}${prefix === "" ? "" : `/${prefix}`}?endpoint=${endpoint}&use_path_style=true&region=us-east-1`,
    env: { ...MOTO_CREDENTIALS },
    close: () => server.close(),
  };
}
