/**
 * Stackwright's resources and data sources, for the program process. The resource classes
 * (program-process/) carry a provider object that loads behaviour/ (the provider process, through provider-process/index.ts) by
 * path; both derive their types from the contracts (shared/). See providers/README.md.
 */
export * from "./program-process/resources";
export type { ArgsOf, OutputsOf } from "./program-process/resource";
export * from "./program-process/drift";
export { markerSeed } from "./program-process/identity";
export {
  programEnv,
  programWorkDir,
  withProgramRun,
  type ProgramRunOptions,
} from "./program-process/program-run";
export * from "./data";
