import { z } from "zod";

/**
 * The one rule for names that end up in an API path: stack and environment names, snapshot and
 * restore logical names, a record's class, id and method. A name must not be able to change which
 * path is called, so the config loader (`validate`), the client (before any request), the
 * providers (`check`) and the emulator all use this rule and agree on every name.
 */

/** Longest name accepted, in characters (Unicode code points). */
export const NAME_MAX_LENGTH = 200;

/**
 * The same rule as {@link nameProblem} as an ECMAScript pattern with the `u` flag (JSON Schema
 * for editors): 1 to 200 characters, no `/`, `\`, `?`, `#`, `%`, whitespace, C0/C1 control
 * characters or unpaired surrogates, not `.` alone, no `..`, not `__proto__`.
 */
export const SAFE_NAME_PATTERN = `^(?!\\.$)(?!__proto__$)(?!.*\\.\\.)[^/\\\\?#%\\s\\u0000-\\u001f\\u007f-\\u009f\\ud800-\\udfff]{1,${NAME_MAX_LENGTH}}$`;

/** Characters refused in names, each as the message shows it. */
const FORBIDDEN_CHARACTERS: ReadonlyArray<readonly [string, string]> = [
  ["/", "'/'"],
  ["\\", "'\\'"],
  ["?", "'?'"],
  ["#", "'#'"],
  ["%", "'%'"],
];

// eslint-disable-next-line no-control-regex -- C0 and C1 control characters are exactly what we look for
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/u;

/**
 * Why `name` could alter an API path, or `undefined` when it is safe. The message completes the
 * sentence "<name> ...", e.g. `must not contain '/' (it would change the API path)`.
 */
export function nameProblem(name: string): string | undefined {
  if (name === "") return "must not be empty";
  const length = [...name].length;
  if (length > NAME_MAX_LENGTH) {
    return `must not be longer than ${NAME_MAX_LENGTH} characters (it has ${length})`;
  }
  for (const [character, shown] of FORBIDDEN_CHARACTERS) {
    if (name.includes(character)) return `must not contain ${shown} (it would change the API path)`;
  }
  if (CONTROL_CHARACTER.test(name)) {
    return "must not contain control characters (it would change the API path)";
  }
  if (/\s/u.test(name)) return "must not contain whitespace (it would change the API path)";
  if (name === "." || name.includes("..")) {
    return "must not be '.' or contain '..' (it would change the API path)";
  }
  // With the `u` flag a paired surrogate is one code point, so this finds only unpaired halves.
  if (/[\ud800-\udfff]/u.test(name)) {
    return "must not contain an unpaired surrogate (it is not valid Unicode and cannot be sent in a URL)";
  }
  // A stack file cannot hold it as a key: it vanishes when YAML becomes a JavaScript object.
  if (name === "__proto__")
    return "must not be '__proto__' (it cannot be told apart from JavaScript internals)";
  return undefined;
}

/** A name quoted for a message: JSON-quoted when it holds characters a terminal would hide. */
export function shownName(name: string): string {
  return CONTROL_CHARACTER.test(name) ? JSON.stringify(name) : `'${name}'`;
}

/** A name used in an API path, checked by {@link nameProblem} (its message on failure). */
export const SafeName = z
  .string()
  .superRefine((value, ctx) => {
    const problem = nameProblem(value);
    if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
  })
  .meta({ pattern: SAFE_NAME_PATTERN });
