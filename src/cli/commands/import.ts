/**
 * `stackwright import [API_STACK ...] [--all] [--into DIR] [--force] [--dry-run] [--track BRANCH]`:
 * writes one stack file per API stack from what the platform runs now, so that a team with live
 * sites starts from files whose first `up` changes nothing (every live deployment adopted, no
 * lock declared). Reads only (GET): the stack list, and per stack its snapshots and, per
 * environment, the environment and its deployments. What the files say is decided by
 * src/importer; this command reads, validates each file with the loader's own rules, and writes
 * it atomically, never over an existing file without --force. A stack that cannot be read or
 * written is skipped with one line at the end (exit 1); the others are imported.
 */
import { terminalLines, terminalText } from "../../safe-text";
import * as fs from "node:fs";
import * as path from "node:path";
import { nameProblem, shownValue } from "../../api";
import {
  ApiError,
  InvalidArgumentError,
  missingValue,
  needAttributes,
  type StackwrightClient,
} from "../../client";
import {
  formatErrorLine,
  isStackFileName,
  stackFileNameFor,
  stackFileJsonSchemaText,
  validateStackFile,
} from "../../config";
import {
  ImportRefusal,
  importedStackFile,
  type ImportedFile,
  type ImportedStack,
  type NamedStack,
} from "../../importer";
import { defineCommand } from "../kit/command";
import { CliError, EXIT_CODES, UsageError } from "../kit/exit-codes";
import { flag } from "../kit/args";
import type { Io } from "../kit/context";
import { checkedClient } from "../../project/preflight";
import { commandLine } from "../../project/invocation";
import { apiSettingsOf } from "../../project/target-settings";
import { API_SETTINGS_HELP, targetFlags } from "../kit/flag-sets";

const COMMAND = "import";
/** Stacks read at once: each is a handful of GETs. */
const READ_CONCURRENCY = 8;
const SCHEMA_NAME = "schema.json";

export const importCommand = defineCommand({
  name: COMMAND,
  args: ["API_STACK..."],
  summary:
    "Writes DIR/<stack>.yaml for each named API stack (or, with --all, each stack the user can see) from what " +
    "the platform runs now: every environment's deployment pinned to its live build (ref_type sha, or package) " +
    "with adopt: its deployment id, so the first up changes nothing on the platform; no lock (the API cannot " +
    "read one); comments with what else could be declared. Makes only GET requests. " +
    API_SETTINGS_HELP,
  flags: {
    all: flag.switch("every stack the user can see (instead of naming them)"),
    into: flag.string(
      "the directory to write into (default: stacks-config, in the --project directory when given)",
    ),
    force: flag.switch("overwrite files that exist (never without it)"),
    "dry-run": flag.switch("print the files instead of writing them"),
    track: flag.string(
      "BRANCH: environments whose live sha is the branch's head deploy the branch (ref_type: branch)",
    ),
    ...targetFlags,
  },
  async run({ flags, positional, given }, { io, env }) {
    const { say, warn } = io;
    const named = [...new Set(positional)];
    for (const name of named) {
      const problem = nameProblem(name);
      if (problem !== undefined)
        throw new UsageError(`stackwright ${COMMAND}: API_STACK '${name}' ${problem}`);
    }
    if (named.length === 0 && !flags.all) {
      throw new UsageError(`stackwright ${COMMAND}: name the API stacks to import, or pass --all`);
    }
    if (named.length > 0 && flags.all) {
      throw new UsageError(`stackwright ${COMMAND}: name API stacks or pass --all, not both`);
    }
    const track = flags.track;
    if (track !== undefined && (track.trim() === "" || /[\s\p{Cc}]/u.test(track))) {
      throw new UsageError(`stackwright ${COMMAND}: --track needs a branch name (no spaces), not '${track}'`);
    }
    const into = path.resolve(
      flags.into ?? (given.has("project") ? path.join(flags.project, "stacks-config") : "stacks-config"),
    );
    const { client, whoami } = await checkedClient({
      command: COMMAND,
      stacks: named.map((name) => ({ name, file: "an API_STACK argument" })),
      config: await apiSettingsOf(flags, env),
      env,
    });
    try {
      const visible = await client.stacks.list();
      // A stack is imported by its name: the file and every request are keyed by it.
      const known = visible.map((s) => needAttributes(s, ["name"], `cannot import a stack without its name`));
      const stacks = flags.all
        ? known
        : named.map((name) => known.find((s) => s.attributes.name === name) ?? missing(name));
      if (stacks.length === 0) {
        throw new CliError("usage", `stackwright ${COMMAND}: ${whoami} sees no stack to import`);
      }
      // A stack that cannot be written is skipped with one line; the others are imported.
      const skipped: string[] = [];
      const skip = (name: string, why: string) => skipped.push(`${shownValue(name)}: ${why}`);
      const targets = stacks.flatMap((s) => {
        const fileName = stackFileNameFor(s.attributes.name);
        if (fileName.ok) return [{ stack: s, file: path.join(into, fileName.name) }];
        skip(s.attributes.name, `the name ${fileName.problem}; not written`);
        return [];
      });
      const dryRun = flags["dry-run"];
      // A dry run shows what a real one would write, also over existing files (it writes nothing).
      refuseExisting(targets, into, flags.force || dryRun);
      const started = Date.now();
      const read = await mapLimit(targets, READ_CONCURRENCY, async (t) => {
        try {
          return await readStack(client, t.stack);
        } catch (error) {
          // A name the API paths cannot carry: no request was sent for it.
          if (InvalidArgumentError.isInstance(error)) {
            skip(t.stack.attributes.name, `the name cannot be read through the API: ${error.message}`);
            return undefined;
          }
          // An answer of the API about this stack (an error, a timeout, a shape that cannot be
          // read): the other stacks are imported all the same; this one is listed at the end.
          if (!ApiError.isInstance(error)) throw error;
          const line = error.message.split("\n")[0] ?? error.message;
          skip(t.stack.attributes.name, `reading it from the API failed, nothing written: ${line}`);
          return undefined;
        }
      });
      const files = read.flatMap((imported, i) => {
        const target = targets[i]?.file ?? "";
        if (imported === undefined) return [];
        let file: ImportedFile;
        try {
          file = importedStackFile(imported, { schemaPath: `./${SCHEMA_NAME}`, track });
        } catch (error) {
          if (!(error instanceof ImportRefusal)) throw error;
          skip(imported.stack.attributes.name, error.message);
          return [];
        }
        const { errors } = validateStackFile(target, file.text);
        const first = errors[0];
        if (first !== undefined) {
          skip(
            file.stack,
            `the file does not validate (a bug of import; not written): ${formatErrorLine(first)}`,
          );
          return [];
        }
        return [{ target, file }];
      });
      // Notes and the files' text name the platform's titles, branches and deployers: shown, never
      // interpreted, by the terminal.
      for (const { file } of files) for (const note of file.notes) warn(terminalText(`note: ${note}`));
      if (dryRun) {
        for (const { target, file } of files) {
          const exists = fs.existsSync(target) ? ", exists: only --force would overwrite it" : "";
          say(
            [
              terminalText(`--- # ${shown(target)} (not written: --dry-run${exists})`),
              ...terminalLines(file.text.trimEnd()),
            ].join("\n"),
          );
        }
        return endOfImport(skipped, io);
      }
      fs.mkdirSync(into, { recursive: true });
      const schema = path.join(into, SCHEMA_NAME);
      if (!fs.existsSync(schema)) writeAtomically(schema, stackFileJsonSchemaText(), false);
      let written = 0;
      for (const { target, file } of files) {
        try {
          writeAtomically(target, file.text, flags.force);
        } catch (error) {
          if (error instanceof CliError || !(error instanceof Error)) throw error;
          skip(
            file.stack,
            `writing ${shown(target)} failed: ${"code" in error ? String(error.code) : error.message}`,
          );
          continue;
        }
        written++;
        say(terminalText(`wrote ${shown(target)}: ${outcomeText(file)}`));
      }
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      say(
        `${written} file${written === 1 ? "" : "s"} written in ${seconds} s. Review them, commit them, ` +
          `then run ${commandLine("preview")}: it should show no change on the platform.`,
      );
      return endOfImport(skipped, io);
    } finally {
      await client.close();
    }
  },
});

/** Exit 0, or the skipped stacks listed (one line each) and exit 1. */
function endOfImport(skipped: readonly string[], io: Io): number {
  if (skipped.length === 0) return EXIT_CODES.ok;
  for (const line of skipped) io.warn(terminalText(`stackwright ${COMMAND}: skipped ${line}`));
  throw new CliError(
    "failed",
    `stackwright ${COMMAND}: ${skipped.length} stack${skipped.length === 1 ? " was" : "s were"} skipped (listed above); ` +
      "the others were imported",
  );
}

function missing(name: string): never {
  // The preflight has already refused a stack the user cannot see; the list changed since.
  throw new CliError("usage", `stackwright ${COMMAND}: stack '${name}' is not in the stack list`);
}

/** A path as the user reads it: relative to the working directory when inside it. */
function shown(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative.startsWith("..") || path.isAbsolute(relative) ? file : relative;
}

function outcomeText(file: ImportedFile): string {
  if (file.environments.length === 0) return "no environment";
  return file.environments
    .map((e) =>
      e.kind === "never-deployed"
        ? `${e.environment} never deployed`
        : `${e.environment} ${e.kind === "tracked" ? "tracks the branch at" : "pinned to"} deployment ${e.deployment}`,
    )
    .join(", ");
}

/**
 * Refuses (exit 2, nothing written) when a file to write exists and `force` is off, and always
 * when another file of DIR already declares one of the stacks: a second file of the same stack
 * is an error of stacks-config/.
 */
function refuseExisting(
  targets: readonly { stack: NamedStack; file: string }[],
  into: string,
  force: boolean,
): void {
  const existing = targets.filter((t) => fs.existsSync(t.file)).map((t) => shown(t.file));
  if (existing.length > 0 && !force) {
    throw new CliError(
      "usage",
      `stackwright ${COMMAND}: ${existing.join(", ")} already exist${existing.length === 1 ? "s" : ""}; ` +
        "nothing was written. Pass --force to overwrite, or --into another directory",
    );
  }
  const declared = declaredStacks(into);
  const elsewhere = targets.flatMap((t) => {
    const other = declared.get(t.stack.attributes.name);
    return other !== undefined && path.resolve(other) !== path.resolve(t.file)
      ? [`'${t.stack.attributes.name}' (${shown(other)})`]
      : [];
  });
  if (elsewhere.length > 0) {
    throw new CliError(
      "usage",
      `stackwright ${COMMAND}: another file of ${shown(into)} already declares ${elsewhere.join(", ")}; ` +
        "nothing was written. Remove or rename that file first (one file per stack)",
    );
  }
}

/** The `stack:` of each stack file of `dir` (files that do not parse are left to `validate`). */
function declaredStacks(dir: string): Map<string, string> {
  const declared = new Map<string, string>();
  if (!fs.existsSync(dir)) return declared;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isFile() || !isStackFileName(entry.name)) continue;
    const file = path.join(dir, entry.name);
    const { stack } = validateStackFile(file, fs.readFileSync(file, "utf8"));
    if (stack !== undefined) declared.set(stack.stack, file);
  }
  return declared;
}

/**
 * Writes `text` to `file` in one step: a temporary file beside it, flushed, then renamed over it
 * (`overwrite`) or linked to its name, which fails when the name exists (never a half-written
 * file, never a file replaced without --force, even by a race).
 */
function writeAtomically(file: string, text: string, overwrite: boolean): void {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  const fd = fs.openSync(temporary, "wx");
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    if (overwrite) fs.renameSync(temporary, file);
    else fs.linkSync(temporary, file);
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "EEXIST") {
      throw new CliError(
        "usage",
        `stackwright ${COMMAND}: ${shown(file)} appeared while importing; not overwritten`,
      );
    }
    throw error;
  } finally {
    fs.rmSync(temporary, { force: true });
  }
}

/** Everything import reads of one stack (GET only). */
async function readStack(client: StackwrightClient, stack: NamedStack): Promise<ImportedStack> {
  const name = stack.attributes.name;
  const listed = stack.relationships?.environments?.data;
  if (listed === null || listed === undefined) {
    throw missingValue(
      stack,
      "relationships.environments.data",
      listed,
      `cannot tell which environments ${name} has`,
    );
  }
  const envNames = listed.map((e) => String(e.id));
  const why = (env: string) => `cannot write what runs on ${name}/${env}`;
  const [environments, snapshots] = await Promise.all([
    Promise.all(
      envNames.map(async (env) => {
        const [environment, deployments] = await Promise.all([
          client.environments.get(name, env),
          client.deployments.list(name, env),
        ]);
        return {
          environment: needAttributes(environment, ["name"], why(env)),
          deployments: deployments.map((d) => needAttributes(d, ["state"], why(env))),
        };
      }),
    ),
    client.snapshots.list(name),
  ]);
  return { stack, environments, snapshots };
}

/** `work` over `items`, at most `limit` at once, results in the items' order. */
async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      const item = items[i] as T;
      results[i] = await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
