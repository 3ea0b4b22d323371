/** `stackwright migrate`: one Pulumi stack per API stack, from a target's single stack (fleet/migrate.ts). */
import { defineCommand } from "../kit/command";
import { EXIT_CODES } from "../kit/exit-codes";
import { legacyProblem, migrateTarget } from "../fleet/migrate";
import { openTarget } from "../fleet/open-target";
import { commandLine } from "../../project/invocation";
import { targetFlags } from "../kit/flag-sets";

export const migrateCommand = defineCommand({
  name: "migrate",
  summary:
    "Moves the resources of a target's single Pulumi stack (before per-file stacks) into one stack per API stack, <target>.<API stack>, without calling the platform. Safe to run again.",
  flags: targetFlags,
  async run({ flags }, { io, env }) {
    const { say } = io;
    const target = await openTarget(flags.project, flags.target, {}, env);
    if ((await legacyProblem(target)) === undefined) {
      say(`stack '${target.name}' holds no API stack's resources: nothing to migrate`);
      return EXIT_CODES.ok;
    }
    const moved = await migrateTarget(target, say);
    say(
      `migrated ${moved.filter((m) => !m.skipped).length} API stack(s); run '${commandLine(`preview --target ${target.name}`)}' to see that nothing changes`,
    );
    return EXIT_CODES.ok;
  },
});
