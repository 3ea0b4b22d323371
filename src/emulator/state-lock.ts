/**
 * One emulator per state file. Two servers over one SQLite file each keep their own view of the
 * state in memory (the store reads the file once), so what one writes the other never shows: a
 * deployment made through the second is missing from the first's history. The server holding a
 * state file says so in a lock file beside it (`<state file>.lock`: its pid and, once listening,
 * its URL), taken atomically (an exclusive create), removed when it closes or exits; the lock of
 * a process that no longer runs (killed) is taken over.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { z } from "zod";

const LockFile = z.object({ pid: z.number().int().positive(), url: z.string().optional() });
export type StateLockHolder = z.infer<typeof LockFile>;

/** The lock file of `stateFile`. */
export function stateLockPath(stateFile: string): string {
  return `${stateFile}.lock`;
}

/** Another running process holds the state file. */
export class StateFileInUseError extends Error {
  override readonly name = "StateFileInUseError";
  constructor(
    readonly stateFile: string,
    readonly holder: StateLockHolder,
  ) {
    super(
      `the state file ${stateFile} is in use by the emulator of pid ${holder.pid}` +
        `${holder.url === undefined ? "" : ` at ${holder.url}`} (${stateLockPath(stateFile)}); ` +
        "use that emulator, stop it, or pass another state file",
    );
  }
}

/** True while a process with this pid runs (one we may not signal runs too). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return typeof err === "object" && err !== null && "code" in err && err.code === "EPERM";
  }
}

/** Who holds the state file now, if a running process does. */
export function stateFileHolder(stateFile: string): StateLockHolder | undefined {
  const holder = readHolder(stateLockPath(stateFile));
  return holder !== undefined && alive(holder.pid) ? holder : undefined;
}

/** The lock's content; undefined when there is none or it is not ours to read (half written). */
function readHolder(file: string): StateLockHolder | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  try {
    const parsed = LockFile.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export interface StateLock {
  /** Says where the holder listens (written into the lock). */
  listening(url: string): void;
  /** Removes the lock (once; nothing when it is no longer ours). */
  release(): void;
}

/**
 * Takes the lock of `stateFile` for this process, or throws StateFileInUseError naming the
 * running process that holds it. A lock left by a process that no longer runs is taken over.
 */
export function takeStateLock(stateFile: string): StateLock {
  const file = stateLockPath(stateFile);
  // The state file's folder is made with the file; the lock comes first, so it makes it.
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const mine = (url?: string) =>
    `${JSON.stringify({ pid: process.pid, ...(url === undefined ? {} : { url }) })}\n`;
  for (let attempt = 0; ; attempt++) {
    try {
      // The whole content in one write of a file that did not exist: a reader never sees a
      // lock without its pid for longer than that write.
      const fd = fs.openSync(file, "wx");
      try {
        fs.writeSync(fd, mine());
      } finally {
        fs.closeSync(fd);
      }
      break;
    } catch (err) {
      if (!(typeof err === "object" && err !== null && "code" in err && err.code === "EEXIST")) throw err;
    }
    const holder = readHolder(file);
    if (holder !== undefined && alive(holder.pid)) throw new StateFileInUseError(stateFile, holder);
    if (attempt >= 3) {
      throw new Error(
        `the state file ${stateFile} has a lock (${file}) that could not be taken over; ` +
          "if no emulator uses that file, delete the lock",
      );
    }
    // Gone (or a lock half written by a process that died writing it): moved aside under a name
    // of our own, so that two processes taking it over at once cannot both succeed.
    const aside = `${file}.${process.pid}.stale`;
    try {
      fs.renameSync(file, aside);
    } catch {
      continue;
    }
    const moved = readHolder(aside);
    if (moved !== undefined && alive(moved.pid)) {
      // Another process took the lock over between our read and our move: give it back.
      try {
        fs.linkSync(aside, file);
      } catch {
        // It is someone else's now either way.
      }
      fs.rmSync(aside, { force: true });
      throw new StateFileInUseError(stateFile, moved);
    }
    fs.rmSync(aside, { force: true });
  }
  let held = true;
  const ours = () => readHolder(file)?.pid === process.pid;
  const release = () => {
    if (!held) return;
    held = false;
    process.off("exit", release);
    if (ours()) fs.rmSync(file, { force: true });
  };
  process.on("exit", release);
  return {
    listening(url) {
      if (!held || !ours()) return;
      const next = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(next, mine(url));
      fs.renameSync(next, file);
    },
    release,
  };
}
