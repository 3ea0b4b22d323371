/**
 * Which API stacks a run covers (pure; git and files are read in changes.ts): names given on the
 * command line, the files changed since a git ref, and a shard of them. Shards are fixed per API
 * stack name (a hash), so every runner computes the same partition and an API stack always lands
 * in the same shard, whatever else is selected: CI concurrency groups per shard then serialise
 * the runs of each API stack.
 */
import { UsageError } from "./errors";

/** One API stack to run: its file, or none when its file was deleted (only destroy runs it). */
export interface Selected {
  readonly apiStack: string;
  /** The file that declares it now; undefined when that file was deleted. */
  readonly file?: string;
}

export interface Shard {
  /** 1-based, as in `--shard 1/4`. */
  readonly index: number;
  readonly count: number;
}

/** FNV-1a (32 bit) of the UTF-8 bytes: the same on every machine and Node version. */
export function stableHash(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, "utf8")) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** The 1-based shard of `apiStack` among `count`. */
export function shardOf(apiStack: string, count: number): number {
  return (stableHash(apiStack) % count) + 1;
}

/** The members of `shard`, in their given order. */
export function inShard<T extends { apiStack: string }>(items: readonly T[], shard: Shard): T[] {
  return items.filter((item) => shardOf(item.apiStack, shard.count) === shard.index);
}

/** The API stacks named on the command line, each of which must exist; order of the names. */
export function selectByNames(all: readonly Selected[], names: readonly string[]): Selected[] {
  const byName = new Map(all.map((s) => [s.apiStack, s]));
  const unknown = names.filter((n) => !byName.has(n));
  if (unknown.length > 0) {
    throw new UsageError(
      `no file in stacks-config/ declares API stack ${unknown.map((n) => `'${n}'`).join(", ")}; ` +
        `the API stacks are: ${[...byName.keys()].join(", ") || "none"}`,
    );
  }
  return [...new Set(names)].map((n) => byName.get(n)).filter((s): s is Selected => s !== undefined);
}

/** What changed since a ref, as the selection needs it (built by changes.ts). */
export interface ChangeSet {
  /** A file every stack shares changed (the target's settings, the program): select all. */
  readonly shared: readonly string[];
  /** API stacks whose file was added or changed (by the name declared now). */
  readonly changed: readonly string[];
  /** API stacks that no file declares any more (their file deleted, or renamed inside). */
  readonly deleted: readonly string[];
}

/**
 * The selection of a change set: every stack when a shared file changed, else the changed ones;
 * deleted ones come back apart, never mixed in (they are destroyed only on request).
 */
export function selectChanged(
  all: readonly Selected[],
  changes: ChangeSet,
): { selected: Selected[]; deleted: Selected[] } {
  const declared = new Set(all.map((s) => s.apiStack));
  const changed = new Set(changes.changed);
  const selected = changes.shared.length > 0 ? [...all] : all.filter((s) => changed.has(s.apiStack));
  const deleted = [...new Set(changes.deleted)]
    .filter((name) => !declared.has(name))
    .map((apiStack) => ({ apiStack }));
  return { selected, deleted };
}
