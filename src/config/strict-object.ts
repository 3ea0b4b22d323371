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
