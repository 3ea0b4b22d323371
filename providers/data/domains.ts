/** `getDomains`: domains of an environment (endpoint 23). */
import * as pulumi from "@pulumi/pulumi";
import type { Domain } from "../../src/api";
import { memoised } from "./cache";
import type { EnvironmentArgs } from "./environment";

/** Domains (memoised per run and arguments). */
export function fetchDomains(args: EnvironmentArgs): Promise<Domain[]> {
  return memoised("domains", args, (c) => c.environments.domains(args.stack, args.environment));
}

/** {@link fetchDomains} as an Output. */
export function getDomains(args: EnvironmentArgs): pulumi.Output<Domain[]> {
  return pulumi.output(fetchDomains(args));
}
