import { request } from "undici";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { type EmulatorHooks, TEST_USERS, type TestEmulator, basicAuth, startTestEmulator } from "./emulator";

export interface Credentials {
  email: string;
  token: string;
}

export interface ApiResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** Parsed JSON body, or undefined when the body is empty. */
  body: unknown;
}

export interface CallOptions {
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  /** Who calls; null sends no Authorization header. Default: the Stack Manager of acme-web. */
  as?: Credentials | null;
}

/** Sends one request as `opts.as` (default: the Stack Manager of acme-web) and reads the whole answer. */
export type ApiCaller = (method: string, path: string, opts?: CallOptions) => Promise<ApiResponse>;

/** A bare HTTP caller for conformance tests (deliberately not the typed client). */
export function apiCaller(url: string): ApiCaller {
  return async (method, path, opts = {}) => {
    const as = opts.as === undefined ? TEST_USERS.stackManager : opts.as;
    const headers: Record<string, string> = { accept: "application/vnd.api+json", ...opts.headers };
    if (as !== null) headers["authorization"] = basicAuth(as.email, as.token);
    let body: string | undefined = opts.rawBody;
    if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== undefined && headers["content-type"] === undefined) {
      headers["content-type"] = "application/vnd.api+json";
    }
    const res = await request(`${url}${path}`, {
      method: method as "GET",
      headers,
      ...(body === undefined ? {} : { body }),
    });
    const text = await res.body.text();
    return {
      status: res.statusCode,
      headers: res.headers,
      text,
      body: text === "" ? undefined : (JSON.parse(text) as unknown),
    };
  };
}

/** An emulator for one test file, with a bare caller on it. */
export interface EmulatorWorld {
  readonly url: string;
  readonly hooks: EmulatorHooks;
  /** {@link apiCaller} on the file's emulator; a plain function, so it may be destructured. */
  readonly call: ApiCaller;
}

/**
 * Starts an emulator ({@link startTestEmulator}: test seed, `instant`) before the file's tests and
 * closes it after them; resets it before each test. Call it at the top level of a test file.
 */
export function useTestEmulator(): EmulatorWorld {
  let emulator: TestEmulator | undefined;
  let caller: ApiCaller | undefined;
  const started = () => {
    if (emulator === undefined) throw new Error("the test emulator is used before its beforeAll ran");
    return emulator;
  };
  beforeAll(async () => {
    emulator = await startTestEmulator();
    caller = apiCaller(emulator.url);
  });
  afterAll(async () => emulator?.close());
  beforeEach(async () => started().hooks.reset());
  return {
    get url() {
      return started().url;
    },
    get hooks() {
      return started().hooks;
    },
    call: (method, path, opts) => (caller ?? apiCaller(started().url))(method, path, opts),
  };
}

/** The title of the first error of an error document. */
export function errorTitle(res: ApiResponse): string {
  const doc = res.body as { errors?: { title?: string }[] } | undefined;
  return doc?.errors?.[0]?.title ?? `(no error document: ${res.text})`;
}

/** Waits (bounded) until `check` returns a value other than undefined. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  what: string,
  attempts = 400,
): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`gave up waiting for ${what} after ${attempts} attempts`);
}
