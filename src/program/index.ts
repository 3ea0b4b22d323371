/**
 * The program's entry points. Pulumi.yaml's `main` is main.ts (the program as a file, run by the
 * language host for plain `pulumi`); the `stackwright` command hosts the same program in its own
 * process through host.ts.
 */
export { hostsProjectProgram, startProgramHost, type ProgramHost, type ProgramHostOptions } from "./host";
