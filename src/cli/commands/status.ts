/**
 * `stackwright status [API_STACK ...]`: what runs where, per site and environment, read-only: the
 * desired ref, the live sha and its deployment, the sync state, the managed lock, the change
 * window and the last `up`. A terminal table with the counts first (colour only on a terminal,
 * never with NO_COLOR); `--json FILE|-` the versioned document of src/observe/model.ts
 * (docs/schemas/status-v1.schema.json); `--html FILE` the fleet page. Never starts the engine and
 * never writes to the API or the state backend.
 */
import * as fs from "node:fs";
import { statusHtml, statusTable } from "../../observe";
import { defineCommand } from "../kit/command";
import { EXIT_CODES } from "../kit/exit-codes";
import { observeFlags, observeTarget } from "../observation/observe-target";
import { say, warn } from "../kit/output";

/** Colour only on a terminal, and never when NO_COLOR is set and not empty (no-color.org). */
export function useColour(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  const noColour = env["NO_COLOR"];
  return stream.isTTY === true && (noColour === undefined || noColour === "");
}

export const statusCommand = defineCommand({
  name: "status",
  args: ["API_STACK..."],
  summary:
    "Shows, per selected API stack (default: all) and environment, the desired ref, what runs (sha, deployment, " +
    "who, when), the sync state, the lock, the change window and the last up. Reads the files, the state backend " +
    "and the API only: it never starts the engine and changes nothing.",
  flags: {
    ...observeFlags,
    json: {
      type: "string",
      help: "write the status as JSON (version 1, docs/schemas/status-v1.schema.json) to FILE, or - for stdout",
    },
    html: { type: "string", help: "write the fleet page, one self-contained HTML file, to FILE" },
  },
  async run({ flags, positional }) {
    const { status } = await observeTarget({
      command: "status",
      names: positional,
      target: flags.target,
      project: flags.project,
      changedSince: flags["changed-since"],
      shard: flags.shard,
      apiConcurrency: flags["api-concurrency"],
    });
    if (flags.json === "-") {
      say(JSON.stringify(status, null, 2));
    } else {
      say(statusTable(status, { colour: useColour(process.stdout) }));
      if (flags.json !== undefined) {
        fs.writeFileSync(flags.json, `${JSON.stringify(status, null, 2)}\n`);
        warn(`status written to ${flags.json}`);
      }
    }
    if (flags.html !== undefined) {
      fs.writeFileSync(flags.html, statusHtml(status));
      warn(`fleet page written to ${flags.html}`);
    }
    return EXIT_CODES.ok;
  },
});
