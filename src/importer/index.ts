/**
 * Adopting an existing fleet: the platform's answers about a stack (its environments, their
 * deployments, its snapshots) become the stack file that `stackwright import` writes. Pure: the
 * CLI reads the platform and writes the files; this layer only decides what they say. Of our own
 * modules it imports only `src/api`.
 */
export {
  branchHeads,
  branchesAt,
  deploymentsInProgress,
  liveDeployment,
  shaOf,
  type BranchHead,
  type ImportedEnvironment,
  type ImportedStack,
  type NamedEnvironment,
  type NamedStack,
} from "./live";
export {
  ImportRefusal,
  importedStackFile,
  type EnvironmentOutcome,
  type ImportOptions,
  type ImportedFile,
} from "./stack-document";
