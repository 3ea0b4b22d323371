/**
 * Entry point of the `stackwright` command: dispatches a subcommand and returns the exit code.
 */
import { previewCommand, upCommand } from "./engine-commands";
import { runEmulatorCommand } from "./emulator-command";
import { summaryCommand } from "./summary-command";

const commands: Record<string, (argv: string[]) => Promise<number>> = {
  preview: previewCommand,
  up: upCommand,
  summary: summaryCommand,
  emulator: runEmulatorCommand,
};

const usage = `usage: stackwright <command> [options]

commands:
${Object.keys(commands)
  .map((c) => `  ${c}`)
  .join("\n")}`;

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    console.log(usage);
    return name === undefined ? 2 : 0;
  }
  const command = commands[name];
  if (command === undefined) {
    console.error(
      `stackwright: unknown command '${name}'. Known commands: ${Object.keys(commands).join(", ")}`,
    );
    return 2;
  }
  return command(rest);
}
