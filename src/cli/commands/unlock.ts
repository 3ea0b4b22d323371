/**
 * `stackwright unlock STACK`: removes the locks a stopped run left on a stack, on request. A lock
 * whose process still runs on this host is never removed; a lock of another host (whose
 * processes this machine cannot see) is removed because the operator says its run is gone.
 */
import { describeFlags, parseFlags, UsageError, type FlagSpec } from "../kit/args";
import { reportError } from "../kit/exit-codes";
import { commandLine } from "../kit/invocation";
import { projectDirOf, targetFlags } from "../settings/target-settings";
import { describeHolder, localJudge, readLocks, judgeLock, removeOrphanAttributes } from "../state/locks";
import { lockTargetOf } from "../state/lock-target";

const unlockFlags = { project: targetFlags.project } satisfies FlagSpec;

const help = `usage: ${commandLine("unlock STACK [flags]")}

Removes the locks left on STACK by runs that were stopped (killed, cancelled CI jobs). A lock held
by a process that still runs on this host is kept. Runs recover such locks by themselves when the
owner is provably gone; this command is for locks of other hosts.

flags:
${describeFlags(unlockFlags)}`;

export async function unlockCommand(argv: string[]): Promise<number> {
  if (argv.includes("--help")) {
    console.log(help);
    return 0;
  }
  try {
    const { flags, positional } = parseFlags("unlock", argv, unlockFlags, ["STACK"]);
    const stack = positional[0];
    if (stack === undefined) throw new UsageError(`stackwright unlock needs the stack to unlock\n\n${help}`);
    const target = lockTargetOf(projectDirOf(flags.project), stack);
    const orphans = await removeOrphanAttributes(target.store, target.project, stack);
    if (orphans > 0) console.log(`removed: ${orphans} attributes file(s) of lock(s) already gone`);
    const locks = await readLocks(target.store, target.project, stack);
    if (locks.length === 0) {
      console.log(`stack ${stack} is not locked (${target.store.description})`);
      return 0;
    }
    const judge = localJudge(undefined);
    let live = 0;
    for (const lock of locks) {
      const verdict = judgeLock(lock, judge);
      const own = lock.readable && lock.hostname === judge.hostname;
      if (own && !verdict.stale) {
        live++;
        console.error(`kept: ${describeHolder(stack, lock)}: ${verdict.reason}; stop that process first`);
        continue;
      }
      await target.store.remove(lock.key);
      const why = verdict.stale
        ? verdict.reason
        : lock.readable
          ? `on request: it was taken on ${lock.hostname}, whose processes this machine cannot see`
          : `on request: ${verdict.reason}`;
      console.log(`removed: ${describeHolder(stack, lock)}: ${why}`);
    }
    return live > 0 ? 1 : 0;
  } catch (err) {
    return reportError("unlock", err);
  }
}
