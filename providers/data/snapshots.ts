/** `getSnapshots`: snapshots of a stack (endpoint 14). */
import * as pulumi from "@pulumi/pulumi";
import type { SnapshotListItem } from "../../src/api";
import { DATA_READERS, memoised } from "./cache";
import type { StackArgs } from "./stacks";

/** Snapshots in list form, including pending ones (memoised per run and stack). */
export function fetchSnapshots(args: StackArgs): Promise<SnapshotListItem[]> {
  return memoised("snapshots", args, (c) => DATA_READERS.snapshots.read(c, args));
}

/** {@link fetchSnapshots} as an Output. */
export function getSnapshots(args: StackArgs): pulumi.Output<SnapshotListItem[]> {
  return pulumi.output(fetchSnapshots(args));
}
