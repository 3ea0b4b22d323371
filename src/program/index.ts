/**
 * The program's entry points. Pulumi.yaml's `main` is main.ts (the program as a file, run by the
 * language host for plain `pulumi`); the `stackwright` command hosts the same program in its own
 * process through host.ts, and serves its dynamic providers from one process of its own
 * (shared-provider.ts).
 */
export {
  hostedProject,
  startProgramHost,
  type HostedProject,
  type ProgramHost,
  type ProgramHostOptions,
} from "./host";
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
