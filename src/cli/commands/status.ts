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
import { flag } from "../kit/args";
import type { Env } from "../kit/context";
import { observeFlags, observeTarget } from "../observation/observe-target";

/** Colour only on a terminal, and never when NO_COLOR is set and not empty (no-color.org). */
export function useColour(stream: { readonly isTTY?: boolean }, env: Env): boolean {
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
    json: flag.output(
      "write the status as JSON (version 1, docs/schemas/status-v1.schema.json) to FILE, or - for stdout",
    ),
    html: flag.string("FILE: write the fleet page, one self-contained HTML file, to FILE"),
  },
  async run({ flags, positional }, context) {
    const { io } = context;
    const { status } = await observeTarget(
      {
        command: "status",
        names: positional,
        target: flags.target,
        project: flags.project,
        changedSince: flags["changed-since"],
        shard: flags.shard,
        apiConcurrency: flags["api-concurrency"],
      },
      context,
    );
    if (flags.json?.to === "stdout") {
      io.say(JSON.stringify(status, null, 2));
    } else {
      io.say(statusTable(status, { colour: useColour(io.stdout, context.env) }));
      if (flags.json !== undefined) {
        fs.writeFileSync(flags.json.path, `${JSON.stringify(status, null, 2)}\n`);
        io.warn(`status written to ${flags.json.path}`);
      }
    }
    if (flags.html !== undefined) {
      fs.writeFileSync(flags.html, statusHtml(status));
      io.warn(`fleet page written to ${flags.html}`);
    }
    return EXIT_CODES.ok;
  },
});
