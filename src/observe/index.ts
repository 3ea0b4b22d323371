/**
 * The observe layer: one read-only place that turns a target's files, its state and the
 * platform's answers into the fleet's observed model, shared by `stackwright status`, `stackwright
 * drift` and what reports on them. Of our own modules it imports src/api, src/client and
 * src/config; it never writes to the API or to the state backend.
 */
export * from "./model";
export {
  observeFleet,
  observeFleetProving,
  readKey,
  readProblem,
  recordedDeployments,
  type Observation,
  type ObserveClient,
  type ObserveInput,
  type ProofOptions,
  type StackToObserve,
} from "./observe";
export { proofVerdict, type ProofCheck, type ProofVerdict, type Reread } from "./proof";
export { Budget, Reads } from "./reads";
export { observedDeployment, syncOf, type Applied, type SyncInput, type SyncVerdict } from "./sync";
export {
  FULL_CHECK_REASON,
  NOT_PREVIEWED_REASON,
  driftChecks,
  driftReport,
  withEngineChecks,
  type EngineCheck,
} from "./drift";
export { countsLine, driftChecksLine, driftMarkdown, statusTable } from "./render-text";
export { escapeHtml, statusHtml } from "./render-html";
