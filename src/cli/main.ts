/**
 * Entry point of the `stackwright` command: dispatches a subcommand and returns the exit code.
 * Commands load lazily, so that `validate` never opens the emulator's database or the engine.
 * Each command is built with the kit in command.ts; exit codes come from exit-codes.ts.
 */
import type { Command } from "./command";
import { EXIT_CODES } from "./exit-codes";

const commands: Record<string, { readonly help: string; load(): Promise<Command> }> = {
  start: {
    help: "the main job: validate, start the embedded emulator, up the dev stack, print outputs",
    load: async () => (await import("./start-command.js")).startCommand,
  },
  validate: {
    help: "check stacks-config/ (no API call, no engine)",
    load: async () => (await import("./validate-command.js")).validateCommand,
  },
  preview: {
    help: "show what up would change",
    load: async () => (await import("./engine-commands.js")).previewCommand,
  },
  up: {
    help: "make the platform match stacks-config/",
    load: async () => (await import("./engine-commands.js")).upCommand,
  },
  unlock: {
    help: "remove the locks that stopped runs left on a stack (never a live process's)",
    load: async () => (await import("./state/unlock-command.js")).unlockCommand,
  },
  logs: {
    help: "print a deployment's log (--follow: until it finishes)",
    load: async () => (await import("./logs-command.js")).logsCommand,
  },
  snapshot: {
    help: "snapshot download API_STACK SNAPSHOT --to FILE: download a snapshot (resumable)",
    load: async () => (await import("./snapshot-command.js")).snapshotCommand,
  },
  refresh: {
    help: "read the live state of the selected API stacks' resources",
    load: async () => (await import("./engine-commands.js")).refreshCommand,
  },
  destroy: {
    help: "delete what the named API stacks manage on the platform",
    load: async () => (await import("./engine-commands.js")).destroyCommand,
  },
  migrate: {
    help: "move a target's single-stack state into one Pulumi stack per API stack (no API call)",
    load: async () => (await import("./migrate-command.js")).migrateCommand,
  },
  status: {
    help: "show what runs where: per site and environment, desired, live and sync state (read-only)",
    load: async () => (await import("./status-command.js")).statusCommand,
  },
  drift: {
    help: "check for drift without changing anything: exit 0 clean, 5 drift, 1 a check failed",
    load: async () => (await import("./drift-command.js")).driftCommand,
  },
  summary: {
    help: "turn `pulumi preview --json` into a pull-request comment",
    load: async () => (await import("./summary-command.js")).summaryCommand,
  },
  env: {
    help: "print the engine's environment as export lines, for plain `pulumi` commands",
    load: async () => (await import("./env-command.js")).envCommand,
  },
  emulator: {
    help: "run the reference server of the API",
    load: async () => (await import("./emulator-command.js")).runEmulatorCommand,
  },
};

const usage = `usage: stackwright <command> [flags]   (stackwright <command> --help for its flags)

commands:
${Object.entries(commands)
  .map(([name, c]) => `  ${name.padEnd(10)} ${c.help}`)
  .join("\n")}`;

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    console.log(usage);
    return name === undefined ? EXIT_CODES.usage : EXIT_CODES.ok;
  }
  const command = commands[name];
  if (command === undefined) {
    console.error(
      `stackwright: unknown command '${name}'. Known commands: ${Object.keys(commands).join(", ")}`,
    );
    return EXIT_CODES.usage;
  }
  return (await command.load())(rest);
}
