/**
 * The typed client of the Deployment Management API. This file only wires exports; see
 * `create-client.ts` to start.
 */
export {
  API_CONCURRENCY_VARIABLE,
  apiConcurrencyOf,
  createClient,
  ClientOptionsSchema,
  baseUrlProblem,
  isLoopbackHost,
} from "./create-client";
export {
  API_PROXY_VARIABLE,
  environmentDispatcher,
  proxySettings,
  shownProxy,
  type ProxySettings,
  type TransportSettings,
} from "./transport";
export { EXTRA_CA_VARIABLE, tlsProblem, type TlsProblem } from "./tls";
export type { ClientOptions, StackwrightClient } from "./create-client";
export {
  CREDENTIAL_SOURCES,
  clientOptionsFromEnv,
  resolveCredentials,
  type CredentialField,
  type CredentialSource,
  type ResolvedSetting,
} from "./env";
export { clientDefaults } from "./defaults";
export { PROCESS_LIST_BYTES, ReadBudget, processReadBudget } from "./read-budget";
export type { ClientDefaults, PollPolicy, RetryPolicy } from "./defaults";
export * from "./errors";
export { needAttributes, missingValue, type WithAttributes } from "./needs";
export type { ClientLogEvent, ClientLogger } from "./attempt";
export type { CallOptions } from "./call-options";
export { Info, type WhoAmI } from "./info";
export { Stacks } from "./stacks";
export { Environments, type ModulesOptions } from "./environments";
export {
  Deployments,
  type CreateDeploymentInput,
  type CreateDeploymentOptions,
  type DeploymentLog,
} from "./deployments";
export {
  Snapshots,
  type CreateSnapshotOptions,
  type FindSnapshotOptions,
  type SnapshotCreation,
} from "./snapshots";
export { Transfers } from "./transfers";
export { PARTIAL_SUFFIX, type DownloadOptions, type DownloadProgress, type DownloadResult } from "./download";
export { Fetches } from "./fetches";
export { Locks } from "./locks";
export { Records, type RecordFields } from "./records";
export { MIN_MARKER_LENGTH } from "./marker";
export { nameProblem } from "../api";
export {
  backoffDelay,
  decideRetry,
  parseRetryAfter,
  type AttemptOutcome,
  type CallSafety,
  type RetryDecision,
} from "./retry";
export {
  deploymentPhase,
  fetchPhase,
  pollDelay,
  snapshotPhase,
  transferPhase,
  waitUntil,
  type WaitOptions,
  type WaitPhase,
  type WaitProgress,
} from "./waiters";
export { DATA_READERS, readRecorded, type DataReader, type DataReadName } from "./data-readers";
