/**
 * Reading a thrown value of unknown shape (undici errors, Node system errors, anything a
 * transport throws) without type casts.
 */

/** `value[key]` when `value` is an object that has it, else undefined. */
export function propertyOf(value: unknown, key: PropertyKey): unknown {
  return typeof value === "object" && value !== null && key in value ? Reflect.get(value, key) : undefined;
}

/** The `code` of a thrown value when it is a string (`ECONNREFUSED`, `UND_ERR_BODY_TIMEOUT`). */
export function codeOf(value: unknown): string | undefined {
  const code = propertyOf(value, "code");
  return typeof code === "string" ? code : undefined;
}
