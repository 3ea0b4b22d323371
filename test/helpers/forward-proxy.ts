/**
 * A real forward proxy on 127.0.0.1 for the proxy tests, as corporate networks run them: `CONNECT
 * host:port` tunnels (HTTPS, and what undici sends for any origin) and absolute-form requests
 * (`GET http://host:port/path`, what Go and Node's http agents send for plain http). Host names
 * resolve through `hosts` only (a name the machine's resolver does not know, such as
 * `api.stackwright.test`), so a request that bypassed the proxy fails, and every connection is
 * counted by target, so a test proves where the traffic went.
 */
import * as http from "node:http";
import * as net from "node:net";
import type { AddressInfo } from "node:net";

export interface ForwardProxy {
  /** `http://127.0.0.1:PORT` (without credentials). */
  readonly url: string;
  /** The proxy URL with the credentials it requires, when it requires some. */
  readonly urlWithCredentials: string;
  /** Connections made through the proxy, by `host:port` as the client named it. */
  connections(target?: string): number;
  /** Every `host:port` a connection was made to. */
  targets(): string[];
  /** The most `CONNECT` tunnels to `target` that were open at one time (since {@link resetMostOpen}). */
  mostOpen(target: string): number;
  /** Starts counting {@link mostOpen} from the tunnels open now. */
  resetMostOpen(): void;
  /** Requests refused for missing or wrong credentials (407). */
  readonly refused: () => number;
  /** Adds a name: `host` or `host:port` to `address` or `address:port` (see {@link ForwardProxyOptions}). */
  route(from: string, to: string): void;
  close(): Promise<void>;
}

export interface ForwardProxyOptions {
  /**
   * Names only the proxy resolves: `api.stackwright.test` → `127.0.0.1` (any port), or
   * `files.stackwright.test:80` → `127.0.0.1:8787` (that port only). 127.0.0.1 always works.
   */
  hosts?: Readonly<Record<string, string>>;
  /** Require `Proxy-Authorization: Basic user:password`. */
  credentials?: { user: string; password: string };
}

/** Starts the proxy on a free port of 127.0.0.1. */
export async function startForwardProxy(options: ForwardProxyOptions = {}): Promise<ForwardProxy> {
  const counts = new Map<string, number>();
  const open = new Map<string, number>();
  const most = new Map<string, number>();
  let refused = 0;
  const sockets = new Set<net.Socket>();
  const expected =
    options.credentials === undefined
      ? undefined
      : `Basic ${Buffer.from(`${options.credentials.user}:${options.credentials.password}`).toString("base64")}`;
  const routes = new Map(Object.entries(options.hosts ?? {}));
  const resolve = (host: string, port: number): { address: string; port: number } | undefined => {
    const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
    if (bare === "127.0.0.1" || bare === "localhost") return { address: "127.0.0.1", port };
    const to = routes.get(`${bare}:${port}`) ?? routes.get(bare);
    if (to === undefined) return undefined;
    const [address = "", toPort] = to.split(":");
    return { address, port: toPort === undefined ? port : Number(toPort) };
  };
  const authorized = (req: http.IncomingMessage) =>
    expected === undefined || req.headers["proxy-authorization"] === expected;
  const count = (target: string) => counts.set(target, (counts.get(target) ?? 0) + 1);

  const server = http.createServer((req, res) => {
    if (!authorized(req)) {
      refused++;
      res.writeHead(407, { "proxy-authenticate": 'Basic realm="test"' }).end();
      return;
    }
    let url: URL;
    try {
      url = new URL(req.url ?? "");
    } catch {
      res.writeHead(400).end("absolute-form request expected");
      return;
    }
    const port = Number(url.port === "" ? 80 : url.port);
    const to = resolve(url.hostname, port);
    if (url.protocol !== "http:" || to === undefined) {
      res.writeHead(502).end(`cannot resolve ${url.hostname}`);
      return;
    }
    count(`${url.hostname}:${port}`);
    const headers = { ...req.headers };
    delete headers["proxy-authorization"];
    delete headers["proxy-connection"];
    const upstream = http.request(
      { host: to.address, port: to.port, method: req.method, path: `${url.pathname}${url.search}`, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });

  server.on("connect", (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => client.destroy());
    if (!authorized(req)) {
      refused++;
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\n\r\n',
      );
      return;
    }
    const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(req.url ?? "");
    const to = match?.[1] === undefined ? undefined : resolve(match[1], Number(match[2]));
    if (match === null || to === undefined) {
      client.end("HTTP/1.1 502 Bad Gateway\r\n\r\n");
      return;
    }
    const target = `${match[1]}:${match[2]}`;
    count(target);
    const now = (open.get(target) ?? 0) + 1;
    open.set(target, now);
    most.set(target, Math.max(most.get(target) ?? 0, now));
    client.once("close", () => open.set(target, (open.get(target) ?? 1) - 1));
    const upstream = net.connect(to.port, to.address, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on("close", () => {
      sockets.delete(upstream);
      client.destroy();
    });
    upstream.on("error", () => client.end("HTTP/1.1 502 Bad Gateway\r\n\r\n"));
  });
  server.on("connection", (socket: net.Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  const credentials = options.credentials;
  return {
    url,
    urlWithCredentials:
      credentials === undefined
        ? url
        : `http://${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}`,
    connections: (target) =>
      target === undefined ? [...counts.values()].reduce((a, b) => a + b, 0) : (counts.get(target) ?? 0),
    targets: () => [...counts.keys()],
    mostOpen: (target) => most.get(target) ?? 0,
    resetMostOpen: () => {
      most.clear();
      for (const [target, n] of open) most.set(target, n);
    },
    refused: () => refused,
    route: (from, to) => routes.set(from.toLowerCase(), to),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
