/**
 * Filters the engine's error stream before users see it: Pulumi's own lock refusal ("the stack
 * is currently locked by 1 lock(s) … `pulumi cancel`", which Stackwright replaces with who holds
 * the lock and what to do) and the AWS SDK's "Response has no supported checksum" warnings (noise
 * from S3-compatible stores that send no checksum). Everything else passes through unchanged.
 */

/** Lines that never reach the user; the lock text's detail lines follow its first line. */
const CHECKSUM_WARNING = /Response has no supported checksum/;
const LOCK_REFUSAL = /the stack is currently locked by \d+ lock\(s\)/;
const LOCK_DETAIL = /^\s+\S.*: created by .+ \(pid \d+\) at /;

/**
 * Returns a writer that passes complete lines to `write`, minus the filtered ones. `flush` writes
 * what is left of an unterminated last line.
 */
export function engineErrorFilter(write: (text: string) => void): {
  write: (chunk: string) => void;
  flush: () => void;
} {
  let pending = "";
  let inLockText = false;
  const keep = (line: string): boolean => {
    if (CHECKSUM_WARNING.test(line)) return false;
    if (LOCK_REFUSAL.test(line)) {
      inLockText = true;
      return false;
    }
    if (inLockText && LOCK_DETAIL.test(line)) return false;
    inLockText = false;
    return true;
  };
  return {
    write(chunk) {
      pending += chunk;
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      const out = lines.filter(keep);
      if (out.length > 0) write(`${out.join("\n")}\n`);
    },
    flush() {
      if (pending !== "" && keep(pending)) write(pending);
      pending = "";
    },
  };
}
