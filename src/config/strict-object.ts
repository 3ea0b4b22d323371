import { z } from "zod";

/**
 * An object that refuses unknown keys. The error message of `unrecognized_keys` carries the list
 * of allowed keys; `issues.ts` turns it into one error per unknown key.
 */
export function strictObject<T extends z.core.$ZodLooseShape>(shape: T) {
  const allowed = Object.keys(shape).join(", ");
  return z.strictObject(shape, {
    error: (issue) => (issue.code === "unrecognized_keys" ? allowed : undefined),
  });
}

/**
 * The params of a refinement of a strict object: it runs on an otherwise valid value only. An
 * unknown key does not stop zod's refinements (its issue lets parsing go on), so a misspelled key
 * would be reported twice: once as unknown, then as whatever its absence left missing. One
 * mistake, one line.
 */
export const onValidValue = {
  when: (payload: z.core.ParsePayload) => payload.issues.length === 0,
} as const;
