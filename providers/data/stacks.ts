/** `getStacks`, `getStack`: stacks the caller may view (endpoints 2 and 3). */
import * as pulumi from "@pulumi/pulumi";
import type { Stack } from "../../src/api";
import { DATA_READERS, memoised } from "./cache";

/** Every stack the caller may view (memoised per run). */
export function fetchStacks(): Promise<Stack[]> {
  return memoised("stacks", {}, (c) => DATA_READERS.stacks.read(c, {}));
}

/** {@link fetchStacks} as an Output. */
export function getStacks(): pulumi.Output<Stack[]> {
  return pulumi.output(fetchStacks());
}

/** Arguments naming a stack. */
export interface StackArgs {
  stack: string;
}

/** One stack (memoised per run and stack). */
export function fetchStack(args: StackArgs): Promise<Stack> {
  return memoised("stack", args, (c) => DATA_READERS.stack.read(c, args));
}

/** {@link fetchStack} as an Output. */
export function getStack(args: StackArgs): pulumi.Output<Stack> {
  return pulumi.output(fetchStack(args));
}
