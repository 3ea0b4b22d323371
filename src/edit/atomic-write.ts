/**
 * Replaces a file atomically: the new content goes to a temporary file in the same directory
 * (hidden, so `stacks-config/` never lists it as a stack file), is flushed to disk, then renamed
 * over the original. A reader sees the old file or the new one, never half of either; a failure
 * at any step removes the temporary file and leaves the original as it was.
 */
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { open, realpath, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** Test seam: runs after the temporary file is written and before the rename. */
export interface AtomicWriteOptions {
  readonly beforeRename?: (temporary: string) => Promise<void> | void;
}

/** Writes `text` to `file` atomically, keeping the file's permissions. */
export async function writeFileAtomic(
  file: string,
  text: string,
  options: AtomicWriteOptions = {},
): Promise<void> {
  // Through a symlink, the file it points to is replaced, not the link.
  const target = await realpath(file).catch(() => file);
  const mode = await stat(target).then(
    (s) => s.mode & 0o7777,
    () => 0o644,
  );
  const temporary = join(
    dirname(target),
    `.${basename(target)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`,
  );
  try {
    const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
    try {
      await handle.writeFile(text, "utf8");
      await handle.sync();
    } finally {
      await handle.close();
    }
    await options.beforeRename?.(temporary);
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  // The rename itself reaches the disk with the directory's entry (best effort: not every
  // platform lets a directory be opened for fsync).
  const directory = await open(dirname(target), constants.O_RDONLY).catch(() => undefined);
  if (directory !== undefined) {
    await directory.sync().catch(() => undefined);
    await directory.close();
  }
}
