/**
 * The program's entry points. Pulumi.yaml's `main` is main.ts (the program as a file, run by the
 * language host for plain `pulumi`); the `stackwright` command hosts the same program in its own
 * process through host.ts, and serves its dynamic providers from one process of its own
 * (shared-provider.ts).
 */
import { createRequire } from "node:module";
import type { ProgramHost, ProgramHostOptions } from "./host";

export { hostedProject, type HostedProject } from "./hosted-project";
export type { ProgramHost, ProgramHostOptions } from "./host";

/**
 * Starts a language runtime serving the program on a free port of 127.0.0.1 (host.ts). Loaded on
 * the first call: host.ts loads the SDK and gRPC, about 0.2 CPU-seconds of a process (a fresh
 * Node: 0.20 -> 0.42 with this folder loaded, medians of 15), which an `up` or `preview` whose
 * stacks all take the no-change shortcut never uses.
 */
export function startProgramHost(options: ProgramHostOptions): Promise<ProgramHost> {
  const host = createRequire(__filename)("./host") as typeof import("./host");
  return host.startProgramHost(options);
}
export {
  attachDynamicProviders,
  inFlightCreate,
  sharedProviderHost,
  type InFlightCreate,
  type ProviderPort,
  type ProviderPortFactory,
  type RunGuard,
  type SharedProviderHost,
} from "./shared-provider";
