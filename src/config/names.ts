import { z } from "zod";
import { SAFE_NAME_PATTERN, SafeName } from "../api/names";

/**
 * Names that end up in an API path (stack, environment, snapshot and restore logical names,
 * record class, id and method) must not be able to change which path is called. The rule is
 * `nameProblem` of `src/api/names.ts`, the same the client applies before any request, so a name
 * `validate` accepts is one `up` accepts (a property test proves it). Refusing such names here
 * turns a confusing 404 (or a call on another resource) into an error that points at the YAML line.
 */

/** A name used as a value (`stack`, a record's `class` and `method`). */
export function safeName(description: string) {
  return SafeName.meta({ description, pattern: SAFE_NAME_PATTERN });
}

/**
 * A name used as a map key (environments, snapshots, restores). The key is checked by the
 * semantic pass rather than by zod, because a failing record key makes zod skip validating the
 * value under it, and we want every error of a file at once.
 */
export function safeNameKey(description: string) {
  return z.string().meta({ description, pattern: SAFE_NAME_PATTERN });
}
