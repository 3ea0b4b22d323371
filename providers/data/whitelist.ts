/** `getWhitelist`: the IP whitelist of an environment (endpoint 26). */
import * as pulumi from "@pulumi/pulumi";
import type { Whitelist } from "../../src/api";
import { memoised } from "./cache";
import type { EnvironmentArgs } from "./environment";

/** The whitelist (memoised per run and arguments). */
export function fetchWhitelist(args: EnvironmentArgs): Promise<Whitelist> {
  return memoised("whitelist", args, (c) => c.environments.whitelist(args.stack, args.environment));
}

/** {@link fetchWhitelist} as an Output. */
export function getWhitelist(args: EnvironmentArgs): pulumi.Output<Whitelist> {
  return pulumi.output(fetchWhitelist(args));
}
