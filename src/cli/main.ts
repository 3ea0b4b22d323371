/**
 * Entry point of the `stackwright` command: dispatches a subcommand and returns the exit code.
 * Commands load lazily, so that `validate` never opens the emulator's database or the engine.
 * Each command is built with the kit in kit/command.ts; exit codes come from kit/exit-codes.ts.
 */
import type { Command } from "./kit/command";
import { processContext, type CommandContext } from "./kit/context";
import { EXIT_CODES } from "./kit/exit-codes";
import { commandLine } from "../project/invocation";

const commands: Record<string, { readonly help: string; load(): Promise<Command> }> = {
  start: {
    help: "the main job: validate, start the embedded emulator, up the dev stack, print outputs",
    load: async () => (await import("./commands/start.js")).startCommand,
  },
  init: {
    help: "make a directory an ops repository: package.json, Pulumi.yaml, a target, the workflows (never overwrites)",
    load: async () => (await import("./commands/init.js")).initCommand,
  },
  doctor: {
    help: "say what in this ops repository is behind the installed stackwright (--write: bring it up to date)",
    load: async () => (await import("./commands/doctor.js")).doctorCommand,
  },
  validate: {
    help: "check stacks-config/ (no API call, no engine)",
    load: async () => (await import("./commands/validate.js")).validateCommand,
  },
  preview: {
    help: "show what up would change",
    load: async () => (await import("./commands/engine.js")).previewCommand,
  },
  up: {
    help: "make the platform match stacks-config/",
    load: async () => (await import("./commands/engine.js")).upCommand,
  },
  unlock: {
    help: "remove the locks that stopped runs left on a stack (never a live process's)",
    load: async () => (await import("./commands/unlock.js")).unlockCommand,
  },
  import: {
    help: "write stacks-config/ files from what the platform runs (the first up then changes nothing)",
    load: async () => (await import("./commands/import.js")).importCommand,
  },
  logs: {
    help: "print a deployment's log (--follow: until it finishes)",
    load: async () => (await import("./commands/logs.js")).logsCommand,
  },
  history: {
    help: "list an environment's deployments, newest first (current build, Stackwright's or by hand)",
    load: async () => (await import("./commands/history.js")).historyCommand,
  },
  promote: {
    help: "pin --to's deployment in the stack file to exactly what --from runs (a change to review)",
    load: async () => (await import("./commands/promote.js")).promoteCommand,
  },
  rollback: {
    help: "pin an environment's deployment back to an earlier completed build (--up: deploy it now)",
    load: async () => (await import("./commands/rollback.js")).rollbackCommand,
  },
  snapshot: {
    help: "snapshot download API_STACK SNAPSHOT --to FILE: download a snapshot (resumable)",
    load: async () => (await import("./commands/snapshot.js")).snapshotCommand,
  },
  notify: {
    help: "notify test [--sink NAME]: send a sample of each subscribed event to the notification sinks",
    load: async () => (await import("./commands/notify.js")).notifyCommand,
  },
  refresh: {
    help: "read the live state of the selected API stacks' resources",
    load: async () => (await import("./commands/engine.js")).refreshCommand,
  },
  destroy: {
    help: "delete what the named API stacks manage on the platform",
    load: async () => (await import("./commands/engine.js")).destroyCommand,
  },
  migrate: {
    help: "move a target's single-stack state into one Pulumi stack per API stack (no API call)",
    load: async () => (await import("./commands/migrate.js")).migrateCommand,
  },
  status: {
    help: "show what runs where: per site and environment, desired, live and sync state (read-only)",
    load: async () => (await import("./commands/status.js")).statusCommand,
  },
  drift: {
    help: "check for drift without changing anything: exit 0 clean, 5 drift, 1 a check failed",
    load: async () => (await import("./commands/drift.js")).driftCommand,
  },
  summary: {
    help: "turn `pulumi preview --json` into a pull-request comment",
    load: async () => (await import("./commands/summary.js")).summaryCommand,
  },
  env: {
    help: "print a target's engine environment as export lines, for plain `pulumi` commands",
    load: async () => (await import("./commands/env.js")).envCommand,
  },
  emulator: {
    help: "run the reference server of the API",
    load: async () => (await import("./commands/emulator.js")).runEmulatorCommand,
  },
};

const usage = `usage: ${commandLine("<command> [flags]")}   (${commandLine("<command> --help")} for its flags)

commands:
${Object.entries(commands)
  .map(([name, c]) => `  ${name.padEnd(10)} ${c.help}`)
  .join("\n")}`;

/** Runs `stackwright ARGV` with `context` (the process's streams, environment and clock by default). */
export async function main(argv: string[], context: CommandContext = processContext()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    context.io.say(usage);
    return name === undefined ? EXIT_CODES.usage : EXIT_CODES.ok;
  }
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (command === undefined) {
    context.io.warn(
      `stackwright: unknown command '${name}'. Known commands: ${Object.keys(commands).join(", ")}`,
    );
    return EXIT_CODES.usage;
  }
  return (await command.load())(rest, context);
}
