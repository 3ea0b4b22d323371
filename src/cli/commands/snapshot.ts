/**
 * `stackwright snapshot download API_STACK SNAPSHOT --to FILE`: downloads a complete snapshot,
 * with a progress bar on a terminal and plain progress lines elsewhere. An interrupted download
 * leaves FILE.part; running the same command again resumes it.
 */
import { apiClient, idArgument, nameArgument } from "../gates/api-command";
import { defineCommand, type Command } from "../kit/command";
import { EXIT_CODES, UsageError } from "../kit/exit-codes";
import { say } from "../kit/output";
import { bytes, progressReporter } from "../kit/progress";
import { commandLine } from "../kit/invocation";
import { API_SETTINGS_HELP, apiSettingsOf, targetFlags } from "../settings/target-settings";

const DOWNLOAD = "snapshot download";

const downloadCommand = defineCommand({
  name: DOWNLOAD,
  args: ["API_STACK", "SNAPSHOT"],
  summary:
    "Downloads the complete snapshot SNAPSHOT (its numeric id) of API_STACK to FILE. The bytes go to FILE.part " +
    "until the size matches what the platform declares; a broken connection resumes where it stopped, and so " +
    "does running the command again. " +
    API_SETTINGS_HELP,
  flags: {
    to: { type: "string", help: "the file to write (required)" },
    ...targetFlags,
  },
  async run({ flags, positional }) {
    const stack = nameArgument(DOWNLOAD, "API_STACK", positional[0]);
    if (positional[1] === undefined) throw new UsageError(`stackwright ${DOWNLOAD}: SNAPSHOT is missing`);
    const snapshot = idArgument(DOWNLOAD, "SNAPSHOT", positional[1]);
    if (flags.to === undefined || flags.to === "") {
      throw new UsageError(`stackwright ${DOWNLOAD}: --to FILE is required (where to write the snapshot)`);
    }
    const client = await apiClient(DOWNLOAD, stack, await apiSettingsOf(flags));
    const progress = progressReporter({
      write: (text) => void process.stderr.write(text),
      isTTY: process.stderr.isTTY === true,
      columns: process.stderr.columns,
    });
    try {
      const result = await client.snapshots.download(stack, snapshot, {
        to: flags.to,
        onProgress: (p) => progress.update(p),
      });
      progress.done();
      const resumed = result.resumedFromBytes > 0 ? `, resumed at ${bytes(result.resumedFromBytes)}` : "";
      say(`snapshot ${snapshot} of ${stack}: ${bytes(result.bytes)} written to ${result.file}${resumed}`);
      return EXIT_CODES.ok;
    } catch (error) {
      progress.done();
      throw error;
    } finally {
      await client.close();
    }
  },
});

/** `stackwright snapshot SUBCOMMAND ...`: only `download` so far. */
export const snapshotCommand: Command = async (argv) => {
  const [sub, ...rest] = argv;
  if (sub === "download") return downloadCommand(rest);
  const help = sub === undefined || sub === "--help" || sub === "-h";
  const text = `usage: ${commandLine("snapshot download API_STACK SNAPSHOT --to FILE")}   (${commandLine("snapshot download --help")})`;
  if (help) {
    say(text);
    return sub === undefined ? EXIT_CODES.usage : EXIT_CODES.ok;
  }
  process.stderr.write(`stackwright snapshot: unknown subcommand '${sub}'. ${text}\n`);
  return EXIT_CODES.usage;
};
