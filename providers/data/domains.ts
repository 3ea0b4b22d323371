/** `getDomains`: domains of an environment (endpoint 23). */
import * as pulumi from "@pulumi/pulumi";
import type { Domain } from "../../src/api";
import { DATA_READERS, memoised } from "./cache";
import type { EnvironmentArgs } from "./environment";

/** Domains (memoised per run and arguments). */
export function fetchDomains(args: EnvironmentArgs): Promise<Domain[]> {
  return memoised("domains", args, (c) => DATA_READERS.domains.read(c, args));
}

/** {@link fetchDomains} as an Output. */
export function getDomains(args: EnvironmentArgs): pulumi.Output<Domain[]> {
  return pulumi.output(fetchDomains(args));
}
