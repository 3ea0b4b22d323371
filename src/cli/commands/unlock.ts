/**
 * `stackwright unlock STACK`: removes the locks a stopped run left on a stack, on request. A lock
 * whose process still runs on this host is never removed; a lock of another host (whose
 * processes this machine cannot see) is removed because the operator says its run is gone.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { UsageError } from "../kit/args";
import { defineCommand } from "../kit/command";
import { CliError, EXIT_CODES } from "../kit/exit-codes";
import { describeHolder, localJudge, readLocks, judgeLock, removeOrphanAttributes } from "../state/locks";
import { lockTargetOf } from "../../project/lock-target";
import { targetFlags } from "../kit/flag-sets";

export const unlockCommand = defineCommand({
  name: "unlock",
  args: ["STACK"],
  summary:
    "Removes the locks left on STACK by runs that were stopped (killed, cancelled CI jobs). A lock held by a " +
    "process that still runs on this host is kept. Runs recover such locks by themselves when the owner is " +
    "provably gone; this command is for locks of other hosts.",
  flags: { project: targetFlags.project },
  async run({ flags, positional }, { io, env }) {
    const stack = positional[0];
    if (stack === undefined)
      throw new UsageError("stackwright unlock: STACK is missing (the Pulumi stack to unlock)");
    if (!fs.existsSync(path.join(flags.project, "Pulumi.yaml"))) {
      throw new CliError(
        "environment",
        `stackwright unlock: ${flags.project} has no Pulumi.yaml: pass the Stackwright project directory with --project`,
      );
    }
    const target = lockTargetOf(flags.project, stack, env);
    const orphans = await removeOrphanAttributes(target.store, target.project, stack);
    if (orphans > 0) io.say(`removed: ${orphans} attributes file(s) of lock(s) already gone`);
    const locks = await readLocks(target.store, target.project, stack);
    if (locks.length === 0) {
      io.say(`stack ${stack} is not locked (${target.store.description})`);
      return EXIT_CODES.ok;
    }
    const judge = localJudge(undefined);
    let live = 0;
    for (const lock of locks) {
      const verdict = judgeLock(lock, judge);
      const own = lock.readable && lock.hostname === judge.hostname;
      if (own && !verdict.stale) {
        live++;
        io.warn(`kept: ${describeHolder(stack, lock)}: ${verdict.reason}; stop that process first`);
        continue;
      }
      await target.store.remove(lock.key);
      const why = verdict.stale
        ? verdict.reason
        : lock.readable
          ? `on request: it was taken on ${lock.hostname}, whose processes this machine cannot see`
          : `on request: ${verdict.reason}`;
      io.say(`removed: ${describeHolder(stack, lock)}: ${why}`);
    }
    return live > 0 ? EXIT_CODES.failed : EXIT_CODES.ok;
  },
});
