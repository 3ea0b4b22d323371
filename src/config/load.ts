import { readFileSync, readdirSync } from "node:fs";
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { ConfigValidationError, type ConfigError } from "./errors";
import { type DesiredState, type LoadResult, type StackSource, validateSources } from "./validate";

/** True for the files a config directory contributes: `*.yaml` and `*.yml`, not hidden ones. */
export function isStackFileName(name: string): boolean {
  return !name.startsWith(".") && /\.ya?ml$/i.test(name);
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
    names = (await readdir(dir, { withFileTypes: true }))
      .filter((entry) => entry.isFile() && isStackFileName(entry.name))
      .map((entry) => entry.name);
  } catch (error) {
    return directoryError(dir, error);
  }
  const sources: StackSource[] = await Promise.all(
    names.map(async (name) => ({ file: join(dir, name), text: await readFile(join(dir, name), "utf8") })),
  );
  return finish(dir, sources);
}

/** The synchronous form of {@link loadDesiredState}, for callers that cannot await. */
export function loadDesiredStateSync(dir: string): LoadResult {
  let names: string[];
  try {
    names = readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isFile() && isStackFileName(entry.name))
      .map((entry) => entry.name);
  } catch (error) {
    return directoryError(dir, error);
  }
  const sources = names.map((name) => ({
    file: join(dir, name),
    text: readFileSync(join(dir, name), "utf8"),
  }));
  return finish(dir, sources);
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

function finish(dir: string, sources: StackSource[]): LoadResult {
  if (sources.length === 0) {
    return {
      ok: false,
      errors: [
        dirError(dir, "holds no *.yaml or *.yml stack file; an empty desired state would delete everything"),
      ],
      files: [],
    };
  }
  return validateSources(sources);
}

function directoryError(dir: string, error: unknown): LoadResult {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  const reason =
    code === "ENOENT"
      ? "does not exist"
      : code === "ENOTDIR"
        ? "is not a directory"
        : `cannot be read (${String(code ?? error)})`;
  return { ok: false, errors: [dirError(dir, `the config directory ${reason}`)], files: [] };
}

function dirError(dir: string, message: string): ConfigError {
  return { file: dir, line: 1, column: 1, path: "", message, lineText: "" };
}
