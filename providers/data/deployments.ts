/** `getDeployments`: deployments of an environment with every filter of endpoint 8. */
import * as pulumi from "@pulumi/pulumi";
import type { Deployment, DeploymentListQueryInput } from "../../src/api";
import { DATA_READERS, memoised } from "./cache";
import type { EnvironmentArgs } from "./environment";

/** Arguments of {@link getDeployments}: the environment and the filters of endpoint 8. */
export interface DeploymentsArgs extends EnvironmentArgs {
  filters?: DeploymentListQueryInput | undefined;
}

/** Deployments (memoised per run and arguments). */
export function fetchDeployments(args: DeploymentsArgs): Promise<Deployment[]> {
  return memoised("deployments", args, (c) => DATA_READERS.deployments.read(c, args));
}

/** {@link fetchDeployments} as an Output. */
export function getDeployments(args: DeploymentsArgs): pulumi.Output<Deployment[]> {
  return pulumi.output(fetchDeployments(args));
}
