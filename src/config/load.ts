import { closeSync, fstatSync, openSync, readSync, readdirSync } from "node:fs";
import { open, readdir } from "node:fs/promises";
import { join } from "node:path";
import { ConfigValidationError, type ConfigError, compareErrors } from "./errors";
import { MAX_STACK_FILE_BYTES, oversizeMessage } from "./source-file";
import { type DesiredState, type LoadResult, type StackSource, validateSources } from "./validate";

/** True for the files a config directory contributes: `*.yaml` and `*.yml`, not hidden ones. */
export function isStackFileName(name: string): boolean {
  return !name.startsWith(".") && /\.ya?ml$/i.test(name);
}

/** Longest API stack name `stackFileNameFor` maps to a file, in bytes (file systems allow 255). */
export const STACK_FILE_NAME_MAX_BYTES = 100;

/**
 * The one rule from an API stack's name to its file's name in a config directory: the name and
 * `.yaml`, or the name itself when it already ends in `.yaml`/`.yml` (never `x.yaml.yaml`). Refused
 * (with why, completing "<name> ..."): a name starting with `.` (the loader skips hidden files),
 * holding a path separator or a control character, or longer than {@link STACK_FILE_NAME_MAX_BYTES}.
 */
export function stackFileNameFor(stack: string): { ok: true; name: string } | { ok: false; problem: string } {
  if (stack.startsWith("."))
    return { ok: false, problem: "starts with '.', and the loader skips hidden files" };
  if (/[/\\]/.test(stack)) return { ok: false, problem: "holds a path separator ('/' or '\\')" };
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f-\u009f]/u.test(stack)) return { ok: false, problem: "holds a control character" };
  const bytes = Buffer.byteLength(stack, "utf8");
  if (bytes > STACK_FILE_NAME_MAX_BYTES) {
    return {
      ok: false,
      problem: `is ${bytes} bytes long, over the ${STACK_FILE_NAME_MAX_BYTES} a file name may take`,
    };
  }
  const name = /\.ya?ml$/i.test(stack) ? stack : `${stack}.yaml`;
  return isStackFileName(name) ? { ok: true, name } : { ok: false, problem: "makes no stack file name" };
}

/** A file that was read, or the error that reading it gave. */
type ReadOutcome = StackSource | ConfigError;

/**
 * What a bounded read of a stack file holds: its size is checked before anything is read, and
 * no more than one byte past the bound is ever read (a file that grows meanwhile included), so
 * a file of gigabytes costs no memory.
 */
function boundedOutcome(file: string, size: number, read: Buffer): ReadOutcome {
  if (size > MAX_STACK_FILE_BYTES || read.length > MAX_STACK_FILE_BYTES) {
    return locationless(file, oversizeMessage(Math.max(size, read.length)));
  }
  return { file, text: read.toString("utf8") };
}

/** Where a bounded read puts what it reads: as much as stat said, grown once if the file grew. */
class BoundedBuffer {
  buffer: Buffer;
  length = 0;
  constructor(size: number) {
    this.buffer = Buffer.alloc(Math.min(size, MAX_STACK_FILE_BYTES) + 1);
  }
  /** Room left, growing to one byte past the bound when full; 0 once nothing more may be read. */
  room(): number {
    if (this.length === this.buffer.length && this.buffer.length <= MAX_STACK_FILE_BYTES) {
      const grown = Buffer.alloc(MAX_STACK_FILE_BYTES + 1);
      this.buffer.copy(grown);
      this.buffer = grown;
    }
    return this.buffer.length - this.length;
  }
  get read(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}

/** Reads `file` up to the bound ({@link boundedOutcome}). */
function readStackFileSync(file: string): ReadOutcome {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch (error) {
    return unreadable(file, error);
  }
  try {
    const size = fstatSync(fd).size;
    if (size > MAX_STACK_FILE_BYTES) return boundedOutcome(file, size, Buffer.alloc(0));
    const into = new BoundedBuffer(size);
    for (let room = into.room(); room > 0; room = into.room()) {
      const n = readSync(fd, into.buffer, into.length, room, null);
      if (n === 0) break;
      into.length += n;
    }
    return boundedOutcome(file, size, into.read);
  } catch (error) {
    return unreadable(file, error);
  } finally {
    closeSync(fd);
  }
}

/** The asynchronous form of {@link readStackFileSync}. */
async function readStackFile(file: string): Promise<ReadOutcome> {
  let handle;
  try {
    handle = await open(file, "r");
  } catch (error) {
    return unreadable(file, error);
  }
  try {
    const { size } = await handle.stat();
    if (size > MAX_STACK_FILE_BYTES) return boundedOutcome(file, size, Buffer.alloc(0));
    const into = new BoundedBuffer(size);
    for (let room = into.room(); room > 0; room = into.room()) {
      const { bytesRead } = await handle.read(into.buffer, into.length, room, null);
      if (bytesRead === 0) break;
      into.length += bytesRead;
    }
    return boundedOutcome(file, size, into.read);
  } catch (error) {
    return unreadable(file, error);
  } finally {
    await handle.close();
  }
}

/**
 * Reads every `*.yaml`/`*.yml` file of `dir` (not subdirectories, not `schema.json`) and validates
 * them together. Never throws for a bad config: every error of every file is in the result.
 * A directory that is missing or holds no stack file is an error too, because an empty desired
 * state would mean "delete everything".
 */
export async function loadDesiredState(dir: string): Promise<LoadResult> {
  let names: string[];
  try {
    names = stackFileNames(await readdir(dir, { withFileTypes: true }));
  } catch (error) {
    return directoryError(dir, error);
  }
  const outcomes = await Promise.all(names.map((name) => readStackFile(join(dir, name))));
  return finish(dir, outcomes);
}

/** The synchronous form of {@link loadDesiredState}, for callers that cannot await. */
export function loadDesiredStateSync(dir: string): LoadResult {
  let names: string[];
  try {
    names = stackFileNames(readdirSync(dir, { withFileTypes: true }));
  } catch (error) {
    return directoryError(dir, error);
  }
  const outcomes = names.map((name) => readStackFileSync(join(dir, name)));
  return finish(dir, outcomes);
}

/** A stack file read, with the API stack its top-level `stack:` line declares. */
export interface DeclaredSource extends StackSource {
  readonly stack: string;
}

/**
 * Every stack file of `dir`, read but not parsed, each with the API stack its top-level `stack:`
 * line declares: what a run of a few files needs to know of the others, at the cost of reading
 * them (parsing and validating every file is what grows with the fleet). Undefined when that is
 * not enough to tell: the directory or a file cannot be read, a file has no such line or more
 * than one, or two files declare the same stack. Callers then load everything
 * ({@link loadDesiredState}), which reports what is wrong.
 */
export function scanDeclaredStacks(dir: string): DeclaredSource[] | undefined {
  let names: string[];
  try {
    names = stackFileNames(readdirSync(dir, { withFileTypes: true }));
  } catch {
    return undefined;
  }
  const scanned: DeclaredSource[] = [];
  const seen = new Set<string>();
  for (const name of names) {
    const file = join(dir, name);
    const read = readStackFileSync(file);
    if (!("text" in read)) return undefined;
    const { text } = read;
    const declared = [...text.matchAll(/^stack:[ \t]*(["']?)([^"'\s#]+)\1[ \t]*(?:#.*)?$/gm)];
    const stack = declared.length === 1 ? declared[0]?.[2] : undefined;
    if (stack === undefined || seen.has(stack)) return undefined;
    seen.add(stack);
    scanned.push({ file, text, stack });
  }
  return scanned.length === 0 ? undefined : scanned;
}

/**
 * The desired state of one API stack, for the program of its per-file stack: every file is read,
 * but only the one that declares `apiStack` is parsed and validated, so a run's cost does not
 * grow with the fleet ({@link scanDeclaredStacks}; when that cannot tell, every file is loaded as
 * by {@link loadDesiredStateSync}, which reports what is wrong). The CLI validates the files of
 * the stacks it runs before it starts any; `apiStack` undefined loads all.
 */
export function loadStackSync(dir: string, apiStack: string | undefined): LoadResult {
  if (apiStack === undefined) return loadDesiredStateSync(dir);
  const declaring = scanDeclaredStacks(dir)?.filter((source) => source.stack === apiStack) ?? [];
  return declaring.length === 1 ? validateSources(declaring) : loadDesiredStateSync(dir);
}

/**
 * Loads the desired state or throws a {@link ConfigValidationError} whose message lists every
 * error with its source line (for the program, where a bad config must stop the run).
 */
export async function loadDesiredStateOrThrow(dir: string): Promise<DesiredState> {
  const result = await loadDesiredState(dir);
  if (!result.ok) throw new ConfigValidationError(result.errors);
  return result.state;
}

function stackFileNames(
  entries: readonly { name: string; isFile(): boolean; isSymbolicLink(): boolean }[],
): string[] {
  // Symbolic links count (a stack file may be shared that way); a dangling one is reported when read.
  return entries
    .filter((entry) => (entry.isFile() || entry.isSymbolicLink()) && isStackFileName(entry.name))
    .map((entry) => entry.name);
}

function finish(dir: string, outcomes: readonly ReadOutcome[]): LoadResult {
  const sources = outcomes.filter((outcome): outcome is StackSource => "text" in outcome);
  const unreadableFiles = outcomes.filter((outcome): outcome is ConfigError => !("text" in outcome));
  const files = outcomes.map((outcome) => outcome.file);
  if (unreadableFiles.length > 0) {
    // The readable files are still checked, but a stack whose file could not be read must never
    // look absent (absent means "delete it"), so the whole result is a failure.
    const rest = sources.length === 0 ? [] : validateSources(sources).errors;
    return { ok: false, errors: [...unreadableFiles, ...rest].sort(compareErrors), files };
  }
  if (sources.length === 0) {
    const message = "holds no *.yaml or *.yml stack file; an empty desired state would delete everything";
    return { ok: false, errors: [locationless(dir, message)], files };
  }
  return validateSources(sources);
}

function errorCode(error: unknown): string {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" ? code : String(error);
}

function unreadable(file: string, error: unknown): ConfigError {
  return locationless(file, `the file cannot be read (${errorCode(error)})`);
}

function directoryError(dir: string, error: unknown): LoadResult {
  const code = errorCode(error);
  const reason =
    code === "ENOENT"
      ? "does not exist"
      : code === "ENOTDIR"
        ? "is not a directory"
        : `cannot be read (${code})`;
  return { ok: false, errors: [locationless(dir, `the config directory ${reason}`)], files: [] };
}

/** An error about a whole file or directory: placed at 1:1 with no source line. */
function locationless(file: string, message: string): ConfigError {
  return { file, line: 1, column: 1, path: "", message, lineText: "" };
}
