/**
 * `stackwright snapshot download API_STACK SNAPSHOT --to FILE`: downloads a complete snapshot,
 * with a progress bar on a terminal and plain progress lines elsewhere. An interrupted download
 * leaves FILE.part; running the same command again resumes it.
 */
import { apiClient, idArgument, nameArgument } from "../gates/api-command";
import { flag } from "../kit/args";
import { defineCommand, groupCommand } from "../kit/command";
import { CliError, EXIT_CODES, UsageError } from "../kit/exit-codes";
import { bytes, progressReporter } from "../kit/progress";
import { NotFoundError } from "../../client";
import { apiSettingsOf } from "../../project/target-settings";
import { API_SETTINGS_HELP, targetFlags } from "../kit/flag-sets";

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
    to: flag.string("FILE: the file to write (required)"),
    ...targetFlags,
  },
  async run({ flags, positional }, { io, env }) {
    const stack = nameArgument(DOWNLOAD, "API_STACK", positional[0]);
    if (positional[1] === undefined) throw new UsageError(`stackwright ${DOWNLOAD}: SNAPSHOT is missing`);
    const snapshot = idArgument(DOWNLOAD, "SNAPSHOT", positional[1]);
    if (flags.to === undefined) {
      throw new UsageError(`stackwright ${DOWNLOAD}: --to FILE is required (where to write the snapshot)`);
    }
    const client = await apiClient(DOWNLOAD, stack, await apiSettingsOf(flags, env), env);
    const progress = progressReporter({
      write: (text) => io.stderr.write(text),
      isTTY: io.stderr.isTTY,
      columns: io.stderr.columns,
    });
    try {
      const result = await client.snapshots.download(stack, snapshot, {
        to: flags.to,
        onProgress: (p) => progress.update(p),
      });
      progress.done();
      const resumed = result.resumedFromBytes > 0 ? `, resumed at ${bytes(result.resumedFromBytes)}` : "";
      io.say(`snapshot ${snapshot} of ${stack}: ${bytes(result.bytes)} written to ${result.file}${resumed}`);
      return EXIT_CODES.ok;
    } catch (error) {
      progress.done();
      if (NotFoundError.isInstance(error)) {
        throw new CliError("usage", `stackwright ${DOWNLOAD}: ${stack} has no snapshot ${snapshot}`, {
          cause: error,
        });
      }
      throw error;
    } finally {
      await client.close();
    }
  },
});

/** `stackwright snapshot SUBCOMMAND ...`: only `download` so far. */
export const snapshotCommand = groupCommand(
  "snapshot",
  { download: downloadCommand },
  "snapshot download API_STACK SNAPSHOT --to FILE",
);
