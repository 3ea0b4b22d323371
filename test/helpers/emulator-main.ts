// `stackwright emulator` from the sources, for tests that run it as a real child process.
import { runEmulatorCommand } from "../../src/cli/commands/emulator";

runEmulatorCommand(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(err instanceof Error ? err.stack : String(err));
    process.exitCode = 1;
  },
);
