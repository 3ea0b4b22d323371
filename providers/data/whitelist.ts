/** `getWhitelist`: the IP whitelist of an environment (endpoint 26). */
import * as pulumi from "@pulumi/pulumi";
import type { Whitelist } from "../../src/api";
import { DATA_READERS, memoised } from "./cache";
import type { EnvironmentArgs } from "./environment";

/** The whitelist (memoised per run and arguments). */
export function fetchWhitelist(args: EnvironmentArgs): Promise<Whitelist> {
  return memoised("whitelist", args, (c) => DATA_READERS.whitelist.read(c, args));
}

/** {@link fetchWhitelist} as an Output. */
export function getWhitelist(args: EnvironmentArgs): pulumi.Output<Whitelist> {
  return pulumi.output(fetchWhitelist(args));
}
