/**
 * The program's errors for a user's mistake (a bad config, a failing check): a RunError, so the
 * engine shows the message alone, made without stack frames. The SDK still formats a thrown
 * error's stack for its trace, and with source maps registered that parses the map of every
 * frame's file: measured at 10-15 s per failing run on a loaded 2-core machine, against under
 * a second without frames. A user's mistake has no frames worth showing anyway.
 */
import * as pulumi from "@pulumi/pulumi";

export function userError(message: string): pulumi.RunError {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new pulumi.RunError(message);
  } finally {
    Error.stackTraceLimit = limit;
  }
}
