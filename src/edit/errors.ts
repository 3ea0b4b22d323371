/**
 * Why an edit of a stack file was refused: a structured value (what, where, what to change),
 * never a stack trace. Nothing is written when an edit is refused.
 */

/** Stable codes a caller (or a test) can branch on. */
export type EditRefusalCode =
  /** The file does not validate before the edit: fix it first. */
  | "invalid-before"
  /** The edit would leave a file that does not validate. */
  | "invalid-after"
  /** The path to edit is missing (no such environment, no `deployment`). */
  | "missing"
  /** The node to edit is shared through a YAML anchor and alias with another place. */
  | "shared-anchor"
  /** The node is written in a layout this editor does not change safely (e.g. explicit `? key`). */
  | "unsupported-layout"
  /** The edited text did not parse to exactly the intended values (nothing was written). */
  | "verify-failed"
  /** git refused, or the repository is not in a state to commit on a new branch. */
  | "git";

export class EditRefusal extends Error {
  constructor(
    readonly code: EditRefusalCode,
    /** The file, as the caller named it. */
    readonly file: string,
    /** The YAML path of the node, e.g. `environments.prod.deployment`. */
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = "EditRefusal";
  }
}
