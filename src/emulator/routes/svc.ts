import type { FastifyInstance } from "fastify";
import type { Deps } from "../context";
import { registerDeployments } from "./deployments";
import { registerLocksAndFetches } from "./locks-fetches";
import { registerReads } from "./reads";
import { registerSnapshots } from "./snapshots";

/** Registers the 26 endpoints of the main interface, one file per resource. */
export function registerSvc(app: FastifyInstance, deps: Deps): void {
  registerReads(app, deps);
  registerLocksAndFetches(app, deps);
  registerDeployments(app, deps);
  registerSnapshots(app, deps);
}
