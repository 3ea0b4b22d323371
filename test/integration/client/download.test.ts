import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  AbortedError,
  InvalidArgumentError,
  PARTIAL_SUFFIX,
  TimeoutError,
  UnexpectedResponseError,
} from "../../../src/client";
import type { DownloadProgress } from "../../../src/client";
import { failure, testClient } from "../../helpers/client";

/**
 * A real HTTP server that plays the platform's snapshot view and download link, and can break a
 * download the way networks do: it cuts the connection after a number of bytes, ends a body
 * early, or ignores Range. The client's resume is judged on the bytes that land on disk.
 */
const SIZE = 300_000;
const ARCHIVE = Buffer.from(Array.from({ length: SIZE }, (_, i) => (i * 31 + 7) % 251));
const TOKEN = "download-test-token";

interface Seen {
  method: string;
  path: string;
  range: string | undefined;
  authorized: boolean;
}

interface Behaviour {
  /** Per GET of the archive (in order): cut the socket after this many bytes. */
  cutAfter: number[];
  /** Answer 200 with the whole archive even when asked for a range. */
  ignoreRange: boolean;
  /** Declared size in the snapshot document. */
  size: number;
  /** Where the snapshot's download link points. */
  link: () => string;
  status: string;
  /** The partial file the client writes, for cuts that wait until the bytes are on disk. */
  partial?: string | undefined;
  /** Send the body a little at a time, never pausing as long as the idle bound, never ending. */
  trickle?: boolean;
}

let api: http.Server;
let files: http.Server;
let apiUrl = "";
let filesUrl = "";
let seen: Seen[] = [];
let behaviour: Behaviour;
let dir = "";

function reset(): void {
  seen = [];
  behaviour = {
    cutAfter: [],
    ignoreRange: false,
    size: SIZE,
    link: () => `${apiUrl}/assets/snapshots/5/snapshot-all.sspak`,
    status: "complete",
  };
}

function snapshotDocument() {
  return {
    data: {
      type: "snapshots",
      id: "5",
      attributes: {
        created: "2026-11-23 10:00:00",
        mode: "all",
        can_download: "true",
        can_delete: "true",
        size: String(behaviour.size),
        snapshot_status: behaviour.status,
        is_backup: false,
        is_manual_upload: false,
        notes: null,
      },
      relationships: {
        source: { data: [{ type: "environments", id: "uat" }] },
        owner: { data: [{ type: "environments", id: "uat" }] },
      },
      links: { download_link: behaviour.link() },
    },
  };
}

/** Resolves once the partial file being written holds `bytes` bytes (bounded: 10 s). */
async function onDisk(bytes: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const partial = behaviour.partial;
    if (partial !== undefined && existsSync(partial) && statSync(partial).size >= bytes) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`the client did not write ${bytes} bytes to ${behaviour.partial} within 10 s`);
}

/** Serves the archive, honouring `Range: bytes=N-` and the configured faults. */
function serveArchive(req: http.IncomingMessage, res: http.ServerResponse): void {
  if (req.method === "HEAD") {
    res.writeHead(200, { "content-length": String(SIZE), "accept-ranges": "bytes" });
    res.end();
    return;
  }
  const match = /^bytes=(\d+)-$/.exec(req.headers.range ?? "");
  const start = match === null || behaviour.ignoreRange ? 0 : Number(match[1]);
  const body = ARCHIVE.subarray(start);
  const headers: http.OutgoingHttpHeaders = { "content-length": String(body.length) };
  if (start > 0) headers["content-range"] = `bytes ${start}-${SIZE - 1}/${SIZE}`;
  res.writeHead(start > 0 ? 206 : 200, headers);
  if (behaviour.trickle === true) {
    let at = 0;
    const timer = setInterval(() => {
      if (at >= body.length) return;
      res.write(body.subarray(at, at + 1_000));
      at += 1_000;
    }, 20);
    res.on("close", () => clearInterval(timer));
    return;
  }
  const cut = behaviour.cutAfter.shift();
  if (cut === undefined) {
    res.end(body);
    return;
  }
  // Send part of the body, wait until the client has written it to disk (else the bytes may still
  // sit in its buffers and be dropped with the connection), then close the connection mid-stream.
  res.write(body.subarray(0, cut));
  void onDisk(start + cut).then(() => res.socket?.destroy());
}

function record(req: http.IncomingMessage): void {
  seen.push({
    method: req.method ?? "",
    path: req.url ?? "",
    range: req.headers.range,
    authorized: req.headers.authorization !== undefined,
  });
}

beforeAll(async () => {
  reset();
  dir = mkdtempSync(join(tmpdir(), "sw-download-"));
  api = http.createServer((req, res) => {
    record(req);
    if (req.url === "/svc/project/acme-web/snapshots/5") {
      res.writeHead(200, { "content-type": "application/vnd.api+json" });
      res.end(JSON.stringify(snapshotDocument()));
      return;
    }
    if (req.url?.startsWith("/assets/") === true) return serveArchive(req, res);
    res.writeHead(404).end();
  });
  files = http.createServer((req, res) => {
    record(req);
    serveArchive(req, res);
  });
  for (const server of [api, files])
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  // "localhost" makes a different origin on the same machine.
  filesUrl = `http://localhost:${(files.address() as AddressInfo).port}`;
});

afterEach(() => reset());

afterAll(async () => {
  for (const server of [api, files]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  rmSync(dir, { recursive: true, force: true });
});

function client(options: { bodyDeadlineMs?: number } = {}) {
  return testClient({
    baseUrl: apiUrl,
    email: "ops@example.com",
    token: TOKEN,
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
    ...options,
  });
}

const digest = (data: Buffer) => createHash("sha256").update(data).digest("hex");
let fileCount = 0;
const target = () => join(dir, `snapshot-${++fileCount}.sspak`);
const archiveGets = () => seen.filter((s) => s.method === "GET" && s.path.endsWith(".sspak"));

describe("a snapshot download", () => {
  it("streams the archive to the file and reports progress up to the declared size", async () => {
    const c = client();
    const to = target();
    const progress: DownloadProgress[] = [];
    const result = await c.snapshots.download("acme-web", 5, { to, onProgress: (p) => progress.push(p) });
    expect(result).toEqual({ file: to, bytes: SIZE, resumedFromBytes: 0, requests: 1 });
    expect(digest(readFileSync(to))).toBe(digest(ARCHIVE));
    expect(existsSync(`${to}${PARTIAL_SUFFIX}`)).toBe(false);
    expect(progress.at(-1)).toEqual({ receivedBytes: SIZE, totalBytes: SIZE, resumedFromBytes: 0 });
    expect(progress.map((p) => p.receivedBytes)).toEqual(
      [...progress.map((p) => p.receivedBytes)].sort((a, b) => a - b),
    );
    await c.close();
  });

  it("is cut at its overall deadline when the body trickles within the idle bound, not repeated, its bytes kept", async () => {
    behaviour.trickle = true;
    const c = client({ bodyDeadlineMs: 400 });
    const to = target();
    behaviour.partial = `${to}${PARTIAL_SUFFIX}`;
    const error = await failure(c.snapshots.download("acme-web", 5, { to }));
    await c.close();
    expect(TimeoutError.isInstance(error)).toBe(true);
    expect((error as TimeoutError).timeoutMs).toBe(400);
    expect((error as Error).message).toMatch(
      /^GET \S+snapshot-all\.sspak: the download took longer than 400 ms in all \(bodyDeadlineMs per maxResponseBytes of the 300000 bytes asked for\), at \d+ of 300000 bytes; not repeated/,
    );
    expect(archiveGets()).toHaveLength(1);
    expect(existsSync(to)).toBe(false);
    expect(statSync(`${to}${PARTIAL_SUFFIX}`).size).toBeLessThan(SIZE);
  });

  it("resumes with Range after the connection breaks mid-body, twice, and ends with the exact bytes", async () => {
    behaviour.cutAfter = [70_000, 50_000];
    const c = client();
    const to = target();
    behaviour.partial = `${to}${PARTIAL_SUFFIX}`;
    const result = await c.snapshots.download("acme-web", 5, { to });
    expect(digest(readFileSync(to))).toBe(digest(ARCHIVE));
    expect(result.requests).toBe(3);
    const ranges = archiveGets().map((s) => s.range);
    expect(ranges[0]).toBeUndefined();
    // Each resume asks for exactly the bytes not yet on disk.
    expect(ranges[1]).toMatch(/^bytes=\d+-$/);
    expect(Number(/\d+/.exec(ranges[1] ?? "")?.[0])).toBeGreaterThan(0);
    expect(Number(/\d+/.exec(ranges[2] ?? "")?.[0])).toBeGreaterThan(
      Number(/\d+/.exec(ranges[1] ?? "")?.[0]),
    );
    await c.close();
  });

  it("resumes a download a caller aborted, in a later call, from the partial file", async () => {
    const c = client();
    const to = target();
    const controller = new AbortController();
    const error = await failure(
      c.snapshots.download("acme-web", 5, {
        to,
        signal: controller.signal,
        onProgress: (p) => {
          if (p.receivedBytes >= 100_000) controller.abort();
        },
      }),
    );
    expect(AbortedError.isInstance(error)).toBe(true);
    const kept = statSync(`${to}${PARTIAL_SUFFIX}`).size;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(SIZE);
    expect(existsSync(to)).toBe(false);

    const result = await c.snapshots.download("acme-web", 5, { to });
    expect(result.resumedFromBytes).toBe(kept);
    expect(archiveGets().at(-1)?.range).toBe(`bytes=${kept}-`);
    expect(digest(readFileSync(to))).toBe(digest(ARCHIVE));
    await c.close();
  });

  it("starts over when the server ignores Range, so no byte is written twice", async () => {
    const to = target();
    writeFileSync(`${to}${PARTIAL_SUFFIX}`, ARCHIVE.subarray(0, 1000));
    behaviour.ignoreRange = true;
    const c = client();
    await c.snapshots.download("acme-web", 5, { to });
    expect(digest(readFileSync(to))).toBe(digest(ARCHIVE));
    await c.close();
  });

  it("refuses a link whose Content-Length disagrees with the snapshot's size, before writing", async () => {
    behaviour.size = SIZE + 1;
    const c = client();
    const to = target();
    const error = await failure(c.snapshots.download("acme-web", 5, { to }));
    expect(UnexpectedResponseError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      `HEAD /assets/snapshots/5/snapshot-all.sspak: Content-Length is ${SIZE} but snapshot 5 has size ${SIZE + 1}`,
    );
    expect(existsSync(`${to}${PARTIAL_SUFFIX}`)).toBe(false);
    await c.close();
  });

  it("refuses a snapshot that is not complete yet, without requesting the link", async () => {
    behaviour.status = "pending";
    const c = client();
    const error = await failure(c.snapshots.download("acme-web", 5, { to: target() }));
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      "[snapshotId] snapshot 5 is pending; only a complete snapshot can be downloaded",
    );
    expect(seen.filter((s) => s.path.endsWith(".sspak"))).toEqual([]);
    await c.close();
  });

  it("sends the credentials to the API's origin only, never to a link on another host", async () => {
    const c = client();
    await c.snapshots.download("acme-web", 5, { to: target() });
    expect(seen.filter((s) => s.path.endsWith(".sspak")).every((s) => s.authorized)).toBe(true);

    reset();
    behaviour.link = () => `${filesUrl}/bucket/5.sspak?signature=secret-signature`;
    const to = target();
    await c.snapshots.download("acme-web", 5, { to });
    const foreign = seen.filter((s) => s.path.startsWith("/bucket/"));
    expect(foreign.map((s) => s.method)).toEqual(["HEAD", "GET"]);
    expect(foreign.some((s) => s.authorized)).toBe(false);
    expect(digest(readFileSync(to))).toBe(digest(ARCHIVE));
    await c.close();
  });
});
