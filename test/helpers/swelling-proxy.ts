/**
 * A proxy on 127.0.0.1 in front of the emulator that makes its lists as large as a hostile or
 * broken platform could: every list answer (a JSON body whose `data` is an array) gets about
 * `pageBytes` of small items more (the costliest shape to parse and keep: one object per 40 bytes)
 * and a `links.next` to one more page, up to `pages` pages; a path may be made to trickle (headers
 * at once, then one byte per `trickleEveryMs`, never ending). Everything else passes through.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { request } from "undici";

export interface SwellingProxyOptions {
  /** Bytes of padding added to each list page. */
  readonly pageBytes: number;
  /** Pages each list has in all (the first is the emulator's own answer, padded). */
  readonly pages: number;
  /** Paths (without query) answered by a body that trickles forever. */
  readonly trickle?: readonly string[];
  readonly trickleEveryMs?: number;
}

export interface SwellingProxy {
  readonly url: string;
  /** List pages served so far, by path (without query). */
  pagesServed(path: string): number;
  /** Requests to a trickling path so far. */
  trickles(): number;
  close(): Promise<void>;
}

export async function startSwellingProxy(
  upstream: string,
  options: SwellingProxyOptions,
): Promise<SwellingProxy> {
  const served = new Map<string, number>();
  let trickles = 0;
  const timers = new Set<NodeJS.Timeout>();
  const padding = (type: string): string => {
    const items: string[] = [];
    let size = 0;
    for (let i = 0; size < options.pageBytes; i++) {
      const item = JSON.stringify({ type, id: `pad-${i}`, attributes: {} });
      items.push(item);
      size += item.length + 1;
    }
    return items.join(",");
  };
  const paddings = new Map<string, string>();
  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://proxy.invalid");
      if (options.trickle?.includes(url.pathname) === true) {
        trickles++;
        res.writeHead(200, { "content-type": "application/vnd.api+json" });
        const timer = setInterval(() => res.write(" "), options.trickleEveryMs ?? 1_000);
        timers.add(timer);
        res.on("close", () => {
          clearInterval(timer);
          timers.delete(timer);
        });
        return;
      }
      const page = Number(url.searchParams.get("swell-page") ?? "1");
      url.searchParams.delete("swell-page");
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const answer = await request(`${upstream}${url.pathname}${url.search}`, {
        method: req.method as "GET",
        headers: Object.fromEntries(
          Object.entries(req.headers).filter(([name]) => name !== "host" && name !== "connection"),
        ) as Record<string, string>,
        ...(chunks.length === 0 ? {} : { body: Buffer.concat(chunks) }),
      });
      const text = await answer.body.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      const isList =
        req.method === "GET" &&
        typeof body === "object" &&
        body !== null &&
        "data" in body &&
        Array.isArray(body.data);
      if (!isList || answer.statusCode !== 200) {
        res.writeHead(answer.statusCode, { "content-type": "application/vnd.api+json" });
        res.end(text);
        return;
      }
      served.set(url.pathname, (served.get(url.pathname) ?? 0) + 1);
      const next = new URL(url.toString());
      next.searchParams.set("swell-page", String(page + 1));
      const data = (body as { data: { type?: unknown }[] }).data;
      const type = typeof data[0]?.type === "string" ? data[0].type : "padding";
      let pad = paddings.get(type);
      if (pad === undefined) paddings.set(type, (pad = padding(type)));
      const own = JSON.stringify(data).slice(1, -1);
      const link = page < options.pages ? JSON.stringify(`${next.pathname}${next.search}`) : "null";
      res.writeHead(200, { "content-type": "application/vnd.api+json" });
      res.end(`{"data":[${own}${own === "" ? "" : ","}${pad}],"links":{"next":${link}}}`);
    })().catch((error: unknown) => {
      res.writeHead(502).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    pagesServed: (path) => served.get(path) ?? 0,
    trickles: () => trickles,
    async close() {
      for (const timer of timers) clearInterval(timer);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
