import type { FastifyInstance } from "fastify";
import { archiveStream, DOWNLOADS, downloadKey, readRange } from "../archive";
import type { Deps } from "../context";
import { HttpError } from "../errors";

type DownloadParams = { Params: { id: string; key: string; file: string } };

/**
 * A complete snapshot's `download_link`: HEAD answers its size, GET its bytes (deterministic,
 * of the declared size), a single `Range` a 206 with `Content-Range`, so a download can resume.
 * The link is the permission (like a presigned URL): no credentials are needed or checked.
 */
export function registerDownloads(app: FastifyInstance, deps: Deps): void {
  const { store } = deps;
  app.route<DownloadParams>({
    method: ["GET", "HEAD"],
    url: `${DOWNLOADS}/:id/:key/:file`,
    handler: (request, reply) => {
      const { id: idText, key, file } = request.params;
      const snap = /^\d{1,15}$/.test(idText) ? store.snapshots.get(Number(idText)) : undefined;
      if (
        snap === undefined ||
        snap.status !== "complete" ||
        key !== downloadKey(store.seedHash, snap) ||
        file !== `snapshot-${snap.mode}.sspak`
      ) {
        throw new HttpError(404, `No snapshot archive at ${request.url.split("?")[0] ?? ""}`);
      }
      const etag = `"snapshot-${snap.id}-${snap.size}"`;
      const ifRange = request.headers["if-range"];
      const range =
        ifRange === undefined || ifRange === etag
          ? readRange(request.headers.range, snap.size)
          : { kind: "whole" as const };
      if (range.kind === "unsatisfiable") {
        throw new HttpError(
          416,
          `Range '${request.headers.range ?? ""}' is outside the ${snap.size} bytes of snapshot ${snap.id}`,
          {
            "content-range": `bytes */${snap.size}`,
          },
        );
      }
      const [start, end] = range.kind === "part" ? [range.start, range.end] : [0, snap.size - 1];
      reply
        .code(range.kind === "part" ? 206 : 200)
        .header("content-type", "application/octet-stream")
        .header("accept-ranges", "bytes")
        .header("etag", etag)
        .header("content-disposition", `attachment; filename="${file}"`)
        .header("content-length", String(end - start + 1));
      if (range.kind === "part") reply.header("content-range", `bytes ${start}-${end}/${snap.size}`);
      if (request.method === "HEAD" || end < start) return reply.send();
      return reply.send(archiveStream(snap.id, start, end));
    },
  });
}
