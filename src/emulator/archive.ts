import { createHash } from "node:crypto";
import { Readable } from "node:stream";

const BLOCK = 65_536;

/** Path under which snapshot archives are served; no credentials needed there. */
export const DOWNLOADS = "/assets/snapshots";

/**
 * The bytes of a snapshot's archive: deterministic for a snapshot id, different in every 64 KiB
 * block (so a download resumed at the wrong offset does not compare equal), made on the fly.
 */
export function archiveBlock(snapshotId: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  let digest = createHash("sha256").update(`snapshot:${snapshotId}`).digest();
  for (let at = 0; at < BLOCK; at += digest.length) {
    digest.copy(block, at);
    digest = createHash("sha256").update(digest).digest();
  }
  return block;
}

/** Byte `offset` of the archive of a snapshot whose first block is `block`. */
export function archiveByte(block: Buffer, offset: number): number {
  return (block[offset % BLOCK] ?? 0) ^ (Math.floor(offset / BLOCK) & 0xff);
}

/** Bytes `start` to `end` (inclusive) of the archive, streamed in chunks of at most 64 KiB. */
export function archiveStream(snapshotId: number, start: number, end: number): Readable {
  const block = archiveBlock(snapshotId);
  function* chunks(): Generator<Buffer> {
    let at = start;
    while (at <= end) {
      const index = Math.floor(at / BLOCK);
      const upto = Math.min(end + 1, (index + 1) * BLOCK);
      const chunk = Buffer.from(block.subarray(at % BLOCK, (at % BLOCK) + (upto - at)));
      const mask = index & 0xff;
      if (mask !== 0) for (let i = 0; i < chunk.length; i++) chunk[i] = (chunk[i] ?? 0) ^ mask;
      yield chunk;
      at = upto;
    }
  }
  return Readable.from(chunks(), { objectMode: false });
}

/** What a `Range` header asks of a body of `size` bytes. */
export type RangeAnswer =
  | { kind: "whole" }
  | { kind: "part"; start: number; end: number }
  | { kind: "unsatisfiable" };

/**
 * One `bytes=` range (`a-b`, `a-`, `-n`) as RFC 9110 reads it. A header that is absent, not in
 * bytes, holds several ranges or does not parse is ignored (the whole body); a range that starts
 * at or past the end cannot be satisfied (416).
 */
export function readRange(header: string | undefined, size: number): RangeAnswer {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header?.trim() ?? "");
  if (match === null) return { kind: "whole" };
  const [, from = "", to = ""] = match;
  if (from === "" && to === "") return { kind: "whole" };
  if (from === "") {
    const suffix = Number(to);
    if (suffix === 0 || size === 0) return { kind: "unsatisfiable" };
    return { kind: "part", start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(from);
  if (to !== "" && Number(to) < start) return { kind: "whole" };
  if (start >= size) return { kind: "unsatisfiable" };
  return { kind: "part", start, end: to === "" ? size - 1 : Math.min(Number(to), size - 1) };
}

/**
 * The secret part of a snapshot's download link: like a presigned URL, the link itself is the
 * permission, so a client fetches it without credentials (and one sent along is ignored).
 */
export function downloadKey(seedHash: string, snapshot: { id: number; created: number }): string {
  return createHash("sha256")
    .update(`${seedHash}:${snapshot.id}:${snapshot.created}`)
    .digest("hex")
    .slice(0, 24);
}
