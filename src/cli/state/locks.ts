/**
 * Pulumi's stack locks in a DIY backend, read and judged. Pulumi writes one JSON file per running
 * update at `.pulumi/locks/organization/<project>/<stack>/<uuid>.json` holding the pid, user, host
 * and start time of the `pulumi` process that took it (pkg/backend/diy/lock.go), and deletes it
 * when the update ends. A process killed with SIGKILL leaves its file behind, and every later run
 * fails on it. This module says who holds a lock and whether its owner is provably gone.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import { z } from "zod";
import { ATTRIBUTES_SUFFIX, isLockKey, lockDirectory, type StateStore } from "../../state-backend";

/** The lock file's content, as Pulumi writes it (Go's json of `lockContent`). */
export const LockContent = z.object({
  pid: z.number().int(),
  username: z.string(),
  hostname: z.string(),
  timestamp: z.string(),
});

/** A lock file found in the backend. */
export type StackLock =
  | {
      readonly key: string;
      readonly readable: true;
      readonly pid: number;
      readonly username: string;
      readonly hostname: string;
      /** When the owner took the lock; undefined when the file's time does not parse. */
      readonly since: Date | undefined;
    }
  | { readonly key: string; readonly readable: false };

export { lockDirectory };

export { isLockKey };

/**
 * Removes the attributes files (`<id>.json.attrs`, Pulumi's file backend) in the stack's lock
 * directory whose lock file is gone: an earlier release removed a stale lock's file without
 * them. The backend writes a lock's attributes a moment before the lock file itself; removing
 * them then costs that lock nothing (the backend reads a blob without attributes as plain
 * bytes). Returns how many it removed.
 */
export async function removeOrphanAttributes(
  store: StateStore,
  project: string,
  stack: string,
): Promise<number> {
  const keys = new Set((await store.list(lockDirectory(project, stack))).map((o) => o.key));
  let removed = 0;
  for (const key of keys) {
    if (!key.endsWith(ATTRIBUTES_SUFFIX) || keys.has(key.slice(0, -ATTRIBUTES_SUFFIX.length))) continue;
    await store.remove(key);
    removed++;
  }
  return removed;
}

/** Every lock file of the stack; a file that vanished while reading (its update ended) is skipped. */
export async function readLocks(store: StateStore, project: string, stack: string): Promise<StackLock[]> {
  const objects = await store.list(lockDirectory(project, stack));
  const locks: StackLock[] = [];
  for (const { key } of objects) {
    if (!isLockKey(key)) continue;
    const text = await store.read(key);
    if (text === undefined) continue;
    locks.push(parseLock(key, text));
  }
  return locks;
}

/** Parses one lock file; a file that is not Pulumi's lock content is kept as unreadable. */
export function parseLock(key: string, text: string): StackLock {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { key, readable: false };
  }
  const parsed = LockContent.safeParse(json);
  if (!parsed.success) return { key, readable: false };
  const since = new Date(parsed.data.timestamp);
  return {
    key,
    readable: true,
    pid: parsed.data.pid,
    username: parsed.data.username,
    hostname: parsed.data.hostname,
    since: Number.isNaN(since.getTime()) ? undefined : since,
  };
}

/** "stack X is being updated by HOST pid N since T": the one sentence users see about a lock. */
export function describeHolder(stack: string, lock: StackLock): string {
  if (!lock.readable) return `stack ${stack} is locked by ${lock.key}, a lock file that is not Pulumi's`;
  const since = lock.since === undefined ? "an unknown time" : lock.since.toISOString();
  return `stack ${stack} is being updated by ${lock.hostname} pid ${lock.pid} since ${since}`;
}

/** What this machine knows to judge a lock: its host name, which pids live, the time. */
export interface LockJudge {
  readonly hostname: string;
  isAlive(pid: number): boolean;
  readonly now: Date;
  /** A lock of another host older than this is taken as abandoned; undefined: never. */
  readonly staleAfterMs: number | undefined;
}

/** The verdict on one lock: removable with the reason, or kept with the reason. */
export type Verdict = { stale: true; reason: string } | { stale: false; reason: string };

/**
 * Decides whether the lock's owner is provably gone. Only two proofs count: the lock was taken on
 * this host and its pid no longer runs; or it was taken elsewhere and is older than the operator's
 * `--stale-lock-after`. Anything else (a live pid, an unreadable file, an unknown time) is kept.
 */
export function judgeLock(lock: StackLock, judge: LockJudge): Verdict {
  if (!lock.readable) return { stale: false, reason: "its content is not Pulumi's lock format" };
  if (lock.hostname === judge.hostname) {
    return judge.isAlive(lock.pid)
      ? { stale: false, reason: `pid ${lock.pid} is still running on this host` }
      : { stale: true, reason: `pid ${lock.pid} no longer runs on ${lock.hostname} (this host)` };
  }
  if (judge.staleAfterMs === undefined) {
    return {
      stale: false,
      reason: `it was taken on another host (${lock.hostname}), and --stale-lock-after is not set`,
    };
  }
  if (lock.since === undefined) return { stale: false, reason: "its time does not parse" };
  const age = judge.now.getTime() - lock.since.getTime();
  return age > judge.staleAfterMs
    ? {
        stale: true,
        reason: `it was taken on ${lock.hostname} ${formatAge(age)} ago, longer than --stale-lock-after (${formatAge(judge.staleAfterMs)})`,
      }
    : {
        stale: false,
        reason: `it was taken on ${lock.hostname} ${formatAge(age)} ago, within --stale-lock-after (${formatAge(judge.staleAfterMs)})`,
      };
}

/**
 * True when a process with this pid runs here (a pid we may not signal still runs). A zombie (a
 * killed engine that nobody has reaped yet, common under a container's init) runs nothing and
 * holds nothing: it counts as gone.
 */
export function pidIsAlive(pid: number): boolean {
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    return err instanceof Error && "code" in err && err.code === "EPERM";
  }
  return !isZombie(pid);
}

/** True when Linux's /proc says the process is a zombie; false where /proc cannot tell. */
function isZombie(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return false;
  }
}

/** The judge of this machine, now. */
export function localJudge(staleAfterMs: number | undefined): LockJudge {
  return { hostname: os.hostname(), isAlive: pidIsAlive, now: new Date(), staleAfterMs };
}

/** `90061000` → `1d1h1m1s`; under a second → `0s`. */
export function formatAge(ms: number): string {
  let s = Math.max(0, Math.floor(ms / 1000));
  const parts: string[] = [];
  for (const [unit, size] of [
    ["d", 86_400],
    ["h", 3_600],
    ["m", 60],
  ] as const) {
    if (s >= size) {
      parts.push(`${Math.floor(s / size)}${unit}`);
      s %= size;
    }
  }
  if (s > 0 || parts.length === 0) parts.push(`${s}s`);
  return parts.join("");
}

/** One lock removed, and why. */
export interface RemovedLock {
  readonly lock: StackLock;
  readonly reason: string;
}

/**
 * Removes the stack's locks whose owners are provably gone (see {@link judgeLock}) and returns
 * them with the reasons; locks held by a live owner stay. Each file is read again just before it
 * is deleted, so a lock replaced in between (same key, new owner) is judged afresh.
 */
export async function removeStaleLocks(
  store: StateStore,
  project: string,
  stack: string,
  judge: LockJudge,
): Promise<{ removed: RemovedLock[]; kept: { lock: StackLock; reason: string }[] }> {
  const removed: RemovedLock[] = [];
  const kept: { lock: StackLock; reason: string }[] = [];
  for (const lock of await readLocks(store, project, stack)) {
    const verdict = judgeLock(lock, judge);
    if (!verdict.stale) {
      kept.push({ lock, reason: verdict.reason });
      continue;
    }
    const again = await store.read(lock.key);
    if (again === undefined) continue;
    const fresh = parseLock(lock.key, again);
    const second = judgeLock(fresh, judge);
    if (!second.stale) {
      kept.push({ lock: fresh, reason: second.reason });
      continue;
    }
    await store.remove(lock.key);
    removed.push({ lock: fresh, reason: second.reason });
  }
  return { removed, kept };
}
