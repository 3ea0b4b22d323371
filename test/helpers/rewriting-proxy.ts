/**
 * A reverse proxy on 127.0.0.1 in front of an emulator that can rewrite its JSON answers: the
 * platform as a stranger could make it answer (a title, deployer, branch, link or log line that
 * holds escape sequences, HTML or chat markup), which the emulator's own API cannot produce.
 * Requests pass unchanged; while `rewrite` is set, each JSON answer is parsed, rewritten and
 * sent with its new length.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";

export interface RewritingProxy {
  /** `http://127.0.0.1:PORT`: the API URL to give the commands. */
  readonly url: string;
  /** The rewrite of every JSON answer from now on (undefined: pass them through). */
  rewrite: ((body: unknown, path: string) => unknown) | undefined;
  close(): Promise<void>;
}

export async function startRewritingProxy(target: string): Promise<RewritingProxy> {
  const upstream = new URL(target);
  const proxy: RewritingProxy = {
    url: "",
    rewrite: undefined,
    close: async () => undefined,
  };
  const server = http.createServer((req, res) => {
    const headers = { ...req.headers, host: upstream.host };
    // Bodies are rewritten as text: none compressed.
    delete headers["accept-encoding"];
    const forward = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on("data", (c: Buffer) => chunks.push(c));
        answer.on("end", () => {
          let body = Buffer.concat(chunks);
          const rewrite = proxy.rewrite;
          const json = /json/.test(String(answer.headers["content-type"] ?? ""));
          if (rewrite !== undefined && json && body.length > 0) {
            body = Buffer.from(JSON.stringify(rewrite(JSON.parse(body.toString("utf8")), req.url ?? "")));
          }
          const out = { ...answer.headers, "content-length": String(body.length) };
          delete out["transfer-encoding"];
          res.writeHead(answer.statusCode ?? 502, out);
          res.end(body);
        });
      },
    );
    forward.on("error", () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  const { port } = server.address() as AddressInfo;
  return Object.assign(proxy, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  });
}
