/**
 * The stores of Pulumi's DIY state backend: the directory of a `file://` backend and the bucket
 * of an `s3://` one, read and written by key. The backend URL is the one the engine uses
 * (`PULUMI_BACKEND_URL`): `file://DIR` or `s3://BUCKET[/PREFIX]?region=…&endpoint=…
 * &use_path_style=true&profile=…`. S3 credentials come from the AWS SDK's default chain
 * (environment, shared profile, web identity, instance role), as they do for the engine.
 */
import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import * as http from "node:http";
import * as https from "node:https";
import { createRequire } from "node:module";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { parseJson } from "./json";

/** One object under a prefix of the backend. */
export interface StoredObject {
  /** Key relative to the backend root, with `/` separators (e.g. `.pulumi/locks/…/ID.json`). */
  readonly key: string;
}

/** The reading half of a store: all that observe may do with the backend. */
export interface StateReader {
  /** The backend, for messages (no credentials: none are ever in the URL we accept). */
  readonly description: string;
  list(prefix: string): Promise<readonly StoredObject[]>;
  /** The object's text, or undefined when it does not exist (any more). */
  read(key: string): Promise<string | undefined>;
  /** The object's bytes, or undefined when it does not exist (any more). */
  readBytes(key: string): Promise<Uint8Array | undefined>;
}

/** The whole store, for the CLI: list, read, write and delete objects by key. */
export interface StateStore extends StateReader {
  list(prefix: string): Promise<StoredObject[]>;
  /** Writes the object whole (a reader sees the old or the new text, never a part). */
  write(key: string, text: string): Promise<void>;
  /**
   * Writes the object whole only when no object has the key, in one step that two writers cannot
   * both win: true when this call wrote it, false when one was there.
   */
  create(key: string, text: string): Promise<boolean>;
  /** Deletes the object; deleting one that is already gone is not an error. */
  remove(key: string): Promise<void>;
  /**
   * Removes the attributes files of `keys` that no reader can parse, and returns their keys. Only
   * the file backend has them (none, and no request, on S3): fileblob writes a blob's attributes
   * in place after creating the file empty, so a writer killed between the two leaves it empty,
   * and every later read of the blob, the engine's included, fails with `EOF`. Removing one is
   * always safe: the backend reads a blob without attributes as plain bytes, and a writer that
   * still holds the file open finishes its blob all the same.
   */
  removeTornAttributes(keys: readonly string[]): Promise<string[]>;
}

/** One stack's place in a backend: the store, its Pulumi project and the stack's name. */
export interface StackPlace {
  readonly store: StateStore;
  readonly project: string;
  readonly stack: string;
}

/** A backend URL we cannot read, with what to change. */
export class BackendUrlError extends Error {
  override readonly name = "BackendUrlError";
}

/** Opens the backend named by `url` (`file://…` or `s3://…`); `env` names the proxies (S3 only). */
export function openStateStore(url: string, env: NodeJS.ProcessEnv = process.env): StateStore {
  if (url.startsWith("file://")) return fileStore(fileURLToPath(url));
  if (url.startsWith("s3://")) return s3Store(url, env);
  throw new BackendUrlError(
    `PULUMI_BACKEND_URL '${redactUrl(url)}' is not a backend Stackwright can read locks from: ` +
      `use file://DIR or s3://BUCKET?region=…&endpoint=…&use_path_style=true`,
  );
}

/** The URL without user info (a URL can carry credentials; messages never do). */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z0-9]+:\/\/)[^/@]*@/i, "$1");
}

/** The suffix of the attributes file Pulumi's file backend writes beside each blob. */
export const ATTRIBUTES_SUFFIX = ".attrs";

function fileStore(root: string): StateStore {
  const abs = (key: string) => path.join(root, ...key.split("/"));
  return {
    description: `file://${root}`,
    async list(prefix) {
      const dir = abs(prefix);
      let names: string[];
      try {
        names = await fs.promises.readdir(dir);
      } catch (err) {
        if (isCode(err, "ENOENT")) return [];
        throw err;
      }
      const base = prefix.endsWith("/") ? prefix : `${prefix}/`;
      return names.map((name) => ({ key: `${base}${name}` }));
    },
    async read(key) {
      const bytes = await this.readBytes(key);
      return bytes === undefined ? undefined : Buffer.from(bytes).toString("utf8");
    },
    async readBytes(key) {
      try {
        return await fs.promises.readFile(abs(key));
      } catch (err) {
        if (isCode(err, "ENOENT")) return undefined;
        throw err;
      }
    },
    async write(key, text) {
      // Renamed into place, so that a reader (or a killed writer) never leaves half a file.
      const file = abs(key);
      await fs.promises.mkdir(path.dirname(file), { recursive: true });
      const temporary = `${file}.${process.pid}.${randomUUID()}.tmp`;
      await fs.promises.writeFile(temporary, text);
      await fs.promises.rename(temporary, file);
    },
    async create(key, text) {
      // Linked into place: the link fails when the name exists, and a reader sees the whole text.
      const file = abs(key);
      await fs.promises.mkdir(path.dirname(file), { recursive: true });
      const temporary = `${file}.${process.pid}.${randomUUID()}.tmp`;
      await fs.promises.writeFile(temporary, text);
      try {
        await fs.promises.link(temporary, file);
        return true;
      } catch (err) {
        if (isCode(err, "EEXIST")) return false;
        throw err;
      } finally {
        await fs.promises.rm(temporary, { force: true });
      }
    },
    async removeTornAttributes(keys) {
      const removed: string[] = [];
      for (const key of keys) {
        const attributes = `${key}${ATTRIBUTES_SUFFIX}`;
        const text = await this.read(attributes);
        if (text === undefined || isJsonObject(text)) continue;
        await fs.promises.rm(abs(attributes), { force: true });
        removed.push(attributes);
      }
      return removed;
    },
    async remove(key) {
      // A blob of Pulumi's file backend (gocloud's fileblob) is its file and, beside it, the
      // `<file>.attrs` of its attributes; fileblob's own delete removes both, and so does this.
      await fs.promises.rm(abs(key), { force: true });
      if (!key.endsWith(ATTRIBUTES_SUFFIX))
        await fs.promises.rm(`${abs(key)}${ATTRIBUTES_SUFFIX}`, { force: true });
    },
  };
}

/** True when `text` is a JSON object, as fileblob's attributes are (`{"user.cache_control":…}`). */
function isJsonObject(text: string): boolean {
  const value = parseJson(text);
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isCode(err: unknown, code: string): boolean {
  return err instanceof Error && "code" in err && err.code === code;
}

/** The S3 client settings of an `s3://` backend URL, as Pulumi's (gocloud's) URL opener reads them. */
export function s3Settings(url: string): {
  bucket: string;
  prefix: string;
  region?: string;
  endpoint?: string;
  forcePathStyle: boolean;
  profile?: string;
} {
  const parsed = new URL(url);
  const bucket = parsed.hostname;
  if (bucket === "") {
    throw new BackendUrlError(`PULUMI_BACKEND_URL '${redactUrl(url)}' names no bucket: use s3://BUCKET?…`);
  }
  const q = parsed.searchParams;
  const prefix = parsed.pathname.replace(/^\/+/, "");
  const endpoint = q.get("endpoint") ?? undefined;
  const withScheme =
    endpoint === undefined || /^https?:\/\//.test(endpoint)
      ? endpoint
      : `${q.get("disable_https") === "true" || q.get("disableSSL") === "true" ? "http" : "https"}://${endpoint}`;
  const region = q.get("region") ?? undefined;
  const profile = q.get("profile") ?? undefined;
  return {
    bucket,
    prefix: prefix === "" || prefix.endsWith("/") ? prefix : `${prefix}/`,
    ...(region === undefined ? {} : { region }),
    ...(withScheme === undefined ? {} : { endpoint: withScheme }),
    forcePathStyle: q.get("use_path_style") === "true" || q.get("s3ForcePathStyle") === "true",
    ...(profile === undefined ? {} : { profile }),
  };
}

/**
 * The S3 client's HTTP handler options when `env` names a proxy: the SDK's Node handler with
 * Node's own agents in proxy mode (`proxyEnv`: `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY`, either
 * case), which tunnel https through `CONNECT` and send http in absolute form. The engine (Go)
 * reads the same variables for the same bucket. Certificates: Node's store plus
 * `NODE_EXTRA_CA_CERTS`, verification always on.
 */
export function s3RequestHandler(
  env: NodeJS.ProcessEnv,
): { requestHandler: { httpAgent: http.Agent; httpsAgent: https.Agent } } | undefined {
  const named = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"].some(
    (name) => (env[name] ?? "").trim() !== "",
  );
  if (!named) return undefined;
  return {
    requestHandler: {
      httpAgent: new http.Agent({ keepAlive: true, proxyEnv: env }),
      httpsAgent: new https.Agent({ keepAlive: true, proxyEnv: env }),
    },
  };
}

function s3Store(url: string, env: NodeJS.ProcessEnv): StateStore {
  const s = s3Settings(url);
  // Loaded here, not at the top: a run on a file backend does not pay for the AWS SDK.
  const {
    DeleteObjectCommand,
    GetObjectCommand,
    ListObjectsV2Command,
    NoSuchKey,
    PutObjectCommand,
    S3Client,
    S3ServiceException,
  } = createRequire(__filename)("@aws-sdk/client-s3") as typeof import("@aws-sdk/client-s3");
  const client = new S3Client({
    ...s3RequestHandler(env),
    ...(s.region === undefined ? {} : { region: s.region }),
    ...(s.endpoint === undefined ? {} : { endpoint: s.endpoint }),
    ...(s.profile === undefined ? {} : { profile: s.profile }),
    forcePathStyle: s.forcePathStyle,
    // S3-compatible stores often send no checksum: validate only where the API requires it, so
    // that the SDK has nothing to warn about.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    maxAttempts: 3,
  });
  const full = (key: string) => `${s.prefix}${key}`;
  // A PUT of a JSON document; with `ifNoneMatch: "*"` the store refuses it when the key exists.
  const put = (key: string, text: string, ifNoneMatch?: "*") =>
    new PutObjectCommand({
      Bucket: s.bucket,
      Key: full(key),
      Body: text,
      ContentType: "application/json",
      ...(ifNoneMatch === undefined ? {} : { IfNoneMatch: ifNoneMatch }),
    });
  return {
    description: redactUrl(url),
    async list(prefix) {
      const out: StoredObject[] = [];
      let token: string | undefined;
      // Lock directories hold a handful of keys; the page bound only guards against a runaway.
      for (let page = 0; page < 100; page++) {
        const res = await client.send(
          new ListObjectsV2Command({
            Bucket: s.bucket,
            Prefix: full(prefix.endsWith("/") ? prefix : `${prefix}/`),
            ...(token === undefined ? {} : { ContinuationToken: token }),
          }),
        );
        for (const o of res.Contents ?? []) {
          if (o.Key !== undefined) out.push({ key: o.Key.slice(s.prefix.length) });
        }
        token = res.IsTruncated === true ? res.NextContinuationToken : undefined;
        if (token === undefined) break;
      }
      return out;
    },
    async read(key) {
      const bytes = await this.readBytes(key);
      return bytes === undefined ? undefined : Buffer.from(bytes).toString("utf8");
    },
    async readBytes(key) {
      try {
        const res = await client.send(new GetObjectCommand({ Bucket: s.bucket, Key: full(key) }));
        return res.Body === undefined ? new Uint8Array() : await res.Body.transformToByteArray();
      } catch (err) {
        if (err instanceof NoSuchKey) return undefined;
        throw err;
      }
    },
    async write(key, text) {
      // A PUT replaces the object whole.
      await client.send(put(key, text));
    },
    async create(key, text) {
      // A conditional PUT (If-None-Match: *): the store refuses it when the key exists.
      try {
        await client.send(put(key, text, "*"));
        return true;
      } catch (err) {
        // 412: the key exists; 409: another conditional write to it is in progress.
        const status = err instanceof S3ServiceException ? err.$metadata.httpStatusCode : undefined;
        if (status === 412 || status === 409) return false;
        throw err;
      }
    },
    async remove(key) {
      await client.send(new DeleteObjectCommand({ Bucket: s.bucket, Key: full(key) }));
    },
    // An S3 object carries its attributes in itself: there is no file beside it to tear.
    removeTornAttributes: () => Promise.resolve([]),
  };
}
