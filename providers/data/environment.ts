/** `getEnvironment`: one environment, with its live `build_sha` (endpoint 4). */
import * as pulumi from "@pulumi/pulumi";
import type { Environment } from "../../src/api";
import { DATA_READERS, memoised } from "./cache";

/** Arguments naming an environment. */
export interface EnvironmentArgs {
  stack: string;
  environment: string;
}

/** The environment (memoised per run and arguments). */
export function fetchEnvironment(args: EnvironmentArgs): Promise<Environment> {
  return memoised("environment", args, (c) => DATA_READERS.environment.read(c, args));
}

/** {@link fetchEnvironment} as an Output. */
export function getEnvironment(args: EnvironmentArgs): pulumi.Output<Environment> {
  return pulumi.output(fetchEnvironment(args));
}
