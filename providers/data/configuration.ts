/** `getConfiguration`: configuration variables of an environment (endpoint 24), as secrets. */
import * as pulumi from "@pulumi/pulumi";
import type { Configuration } from "../../src/api";
import { DATA_READERS, memoised } from "./cache";
import type { EnvironmentArgs } from "./environment";

/** Configuration documents (memoised per run and arguments). Values may be secrets: do not log. */
export function fetchConfiguration(args: EnvironmentArgs): Promise<Configuration[]> {
  return memoised("configuration", args, (c) => DATA_READERS.configuration.read(c, args));
}

/** {@link fetchConfiguration} as a secret Output: the state stores it encrypted. */
export function getConfiguration(args: EnvironmentArgs): pulumi.Output<Configuration[]> {
  return pulumi.secret(fetchConfiguration(args));
}
