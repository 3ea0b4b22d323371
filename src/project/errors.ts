/**
 * The errors a user's mistake raises, with the kind of exit it makes: thrown here and by every
 * command, and mapped to the exit code of their kind by the one table of the CLI
 * (src/cli/kit/exit-codes.ts), which prints the message alone, in one line.
 */

/** What went wrong, as a CI job needs to tell apart. */
export type ExitKind = "failed" | "usage" | "locked" | "environment" | "interrupted";

/** An error whose kind the CLI knows; its message is the one line the user reads. */
export class CliError extends Error {
  constructor(
    readonly kind: ExitKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "CliError";
  }
}

/**
 * A bad flag or argument: exit 2, with a pointer to the command's `--help`. A wrong setting,
 * file or variable is a `CliError` of kind `usage` instead (the same exit code, no pointer: the
 * flags are not what to change).
 */
export class UsageError extends CliError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("usage", message, options);
    this.name = "UsageError";
  }
}
