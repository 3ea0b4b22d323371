import { z } from "zod";

/**
 * Names that end up in an API path (stack, environment, snapshot and restore logical names,
 * record class, id and method) must not be able to change which path is called. Providers escape
 * path segments too; refusing such names here turns a confusing 404 (or worse, a call on another
 * resource) into an error that points at the YAML line.
 */

/**
 * The same rule as {@link nameProblem}, as a JSON Schema / ECMAScript pattern for editors: no `/`,
 * `\`, `?`, `#`, `%`, whitespace or control characters, not `.` alone and no `..`.
 */
export const SAFE_NAME_PATTERN = "^(?!\\.$)(?!.*\\.\\.)[^/\\\\?#%\\s\\u0000-\\u001f\\u007f]+$";

/** Characters refused in names, each with the reason shown to the user. */
const FORBIDDEN_CHARACTERS: ReadonlyArray<readonly [string, string]> = [
  ["/", "'/'"],
  ["\\", "'\\'"],
  ["?", "'?'"],
  ["#", "'#'"],
  ["%", "'%'"],
];

/**
 * Why `name` could alter an API path, or `undefined` when it is safe.
 * The message completes the sentence "<name> ...", e.g. `must not contain '/'`.
 */
export function nameProblem(name: string): string | undefined {
  if (name === "") return "must not be empty";
  for (const [character, shown] of FORBIDDEN_CHARACTERS) {
    if (name.includes(character)) return `must not contain ${shown} (it would change the API path)`;
  }
  if (/\s/u.test(name)) return "must not contain whitespace (it would change the API path)";
  // eslint-disable-next-line no-control-regex -- control characters are exactly what we look for
  if (/[\u0000-\u001f\u007f]/u.test(name)) {
    return "must not contain control characters (it would change the API path)";
  }
  if (name === "." || name.includes(".."))
    return "must not be '.' or contain '..' (it would change the API path)";
  return undefined;
}

/**
 * A name used as a value (`stack`, a record's `class` and `method`): text that passes
 * {@link nameProblem}. The pattern is metadata for the JSON Schema; the refinement gives the
 * specific message.
 */
export function safeName(description: string) {
  return z
    .string()
    .superRefine((value, ctx) => {
      const problem = nameProblem(value);
      if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
    })
    .meta({ description, pattern: SAFE_NAME_PATTERN });
}

/**
 * A name used as a map key (environments, snapshots, restores). The key is checked by the
 * semantic pass rather than by zod, because a failing record key makes zod skip validating the
 * value under it, and we want every error of a file at once.
 */
export function safeNameKey(description: string) {
  return z.string().meta({ description, pattern: SAFE_NAME_PATTERN });
}
